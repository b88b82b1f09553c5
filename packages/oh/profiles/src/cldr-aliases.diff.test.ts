/**
 * Differential test for language-aliases.ts's deep imports: `bcp-47-normalize/lib/matches.js`
 * (whole-tag aliases) and `bcp-47-normalize/lib/fields.js` (single-subtag aliases), the tables
 * the package's entry applies but does not export. language-aliases.ts applies them itself,
 * without the entry's last step (removing likely subtags, which would rewrite `en-US` as `en`).
 *
 * Here what it derives is compared with the package's public `bcp47Normalize` on every subtag of
 * the IANA registry and on random tags. An upgrade that moves, renames or reshapes the tables, or
 * changes how the entry applies them, makes the two disagree.
 *
 * Two differences are by design and taken out of the comparison, not hidden:
 * - The public function also minimises. `qaa` (private use) has no likely subtags, so behind it
 *   scripts, regions and variants are compared exactly; `und` is left out, because the public
 *   minimiser turns it into `en`.
 * - The public function matches every whole-tag alias against the tag as it came in, so an alias
 *   that only applies after an earlier one changed the language is missed there (`ilw-arevmda`:
 *   `gal-arevmda`, which `bcp47Normalize` maps to `gal` when called again). Ours applies it at once.
 *   Random tags are therefore compared with the public function applied until nothing changes.
 */
import { createRequire } from 'node:module';
import { parse, stringify } from 'bcp-47';
import { bcp47Normalize } from 'bcp-47-normalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCldrAliases } from './codecs/language-aliases.ts';

/** The registry as the package ships it (its data files are its interface). */
const registry = createRequire(import.meta.url)('language-subtag-registry/data/json/registry.json') as Array<{
  Type: string;
  Subtag?: string;
  Tag?: string;
}>;
const registered = (type: string) =>
  registry
    .map((e) => (e.Type === type ? (e.Subtag ?? e.Tag) : undefined))
    .filter((s): s is string => s !== undefined && !s.includes('..'))
    .map((s) => s.toLowerCase());

/** What language-aliases.ts makes of a lowercase tag, variants sorted as the public function sorts them. */
function ours(input: string): string {
  const tag = parse(input, { normalize: false });
  applyCldrAliases(tag, []);
  tag.variants.sort();
  return stringify(tag);
}

// CPU only: 2.5 s and 1.4 s on an idle core here (every tag goes through ~2,000 alias ranges on
// each side), several times that while the whole suite shares two cores.
const HEAVY_MS = 120_000;

const publicForm = (tag: string) => bcp47Normalize(tag).toLowerCase();
/** The public function applied until the tag stops changing. */
function publicFixpoint(tag: string): string {
  let current = tag;
  for (let i = 0; i < 8; i++) {
    const next = publicForm(current);
    if (next === current) return current;
    current = next;
  }
  throw new Error(`${tag} does not settle under bcp47Normalize`);
}

describe('CLDR aliases (deep imports of bcp-47-normalize lib/) against bcp47Normalize', () => {
  it('qaa is a language without likely subtags: the public minimiser keeps what follows it', () => {
    expect(bcp47Normalize('qaa-Latn-US')).toBe('qaa-Latn-US');
    expect(bcp47Normalize('en-Latn-US')).toBe('en');
  });

  it(
    'every registry language alone, and every script, region and variant after qaa: the same tag',
    () => {
      const inputs = [
        ...registered('language').filter((l) => l !== 'und'),
        ...registered('script').map((s) => `qaa-${s}`),
        ...registered('region').map((r) => `qaa-${r}`),
        // Numeric regions (UN M.49), registered or not: CLDR aliases some (840 → US).
        ...Array.from({ length: 1000 }, (_, i) => `qaa-${String(i).padStart(3, '0')}`),
        ...registered('variant').map((v) => `qaa-${v}`),
      ];
      let changed = 0;
      for (const input of inputs) {
        const derived = ours(input);
        expect(derived, input).toBe(publicForm(input));
        if (derived !== input) changed++;
      }
      expect(inputs.length).toBeGreaterThan(9_500);
      // The tables are really applied: tl → fil, iw → he, qaa-uk → qaa-gb, qaa-840 → qaa-us, …
      expect(changed).toBeGreaterThan(500);
    },
    HEAVY_MS,
  );

  it(
    'redundant tags of the registry and random tags: same language and variants, same final form',
    () => {
      const languages = registered('language').filter((l) => l !== 'und');
      const tags = fc
        .tuple(
          fc.constantFrom(...languages),
          fc.option(fc.constantFrom(...registered('script')), { nil: undefined }),
          fc.option(fc.constantFrom(...registered('region')), { nil: undefined }),
          fc.uniqueArray(fc.constantFrom(...registered('variant')), { maxLength: 2 }),
        )
        .map(([language, script, region, variants]) =>
          [language, script, region, ...variants].filter(Boolean).join('-'),
        );
      const redundant = registered('redundant').filter((tag) => {
        const t = parse(tag, { normalize: false });
        // Extended language subtags never reach the aliases: language.ts replaces or refuses them first.
        return t.language !== 'und' && t.extendedLanguageSubtags.length === 0;
      });
      expect(redundant.length).toBeGreaterThan(40);
      const compare = (input: string) => {
        const derived = parse(ours(input));
        const expected = parse(publicFixpoint(input));
        // Minimising drops or swaps only a script or region: language and variants are compared as they are.
        expect(derived.language, input).toBe(expected.language);
        expect(derived.variants, input).toEqual(expected.variants);
        expect(publicFixpoint(stringify(derived)), input).toBe(stringify(expected));
      };
      for (const tag of redundant) compare(tag);
      fc.assert(fc.property(tags, compare), { numRuns: 1000 });
    },
    HEAVY_MS,
  );
});
