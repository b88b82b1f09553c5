import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codec } from './codecs/index.ts';

const lang = codec({ type: 'language' });

/** The registry as the package ships it, read independently of the codec's own index. */
const registry = createRequire(import.meta.url)('language-subtag-registry/data/json/registry.json') as Array<{
  Type: string;
  Subtag?: string;
  Deprecated?: string;
}>;
const subtags = (type: string, current = true) =>
  registry
    .filter((e) => e.Type === type && e.Subtag && !e.Subtag.includes('..') && !(current && e.Deprecated))
    .map((e) => e.Subtag!);

function accepted(tag: string) {
  const r = lang.validate(tag);
  if (!r.ok) throw new Error(`${tag} refused: ${r.errors.map((e) => e.message).join('; ')}`);
  return r;
}
function refused(tag: string): string {
  const r = lang.validate(tag);
  if (r.ok) throw new Error(`${tag} accepted as ${r.value}`);
  return r.errors.map((e) => e.message).join('\n');
}

describe('language tags: valid, not only well-formed', () => {
  it.each([
    ['zh-Hant-TW', 'zh-Hant-TW'],
    ['sr-Latn-RS', 'sr-Latn-RS'],
    ['de-DE-1996', 'de-DE-1996'],
    ['en-US-x-private', 'en-US-x-private'],
    ['en-u-ca-gregory', 'en-u-ca-gregory'],
    ['es-419', 'es-419'],
    ['x-whatever', 'x-whatever'],
    ['i-default', 'i-default'], // grandfathered, no preferred value: kept as the registry spells it
    // Private-use ranges of the registry (qaa..qtz, Qaaa..Qabx, QM..QZ, XA..XZ) are valid.
    ['qab-Qaab-XX', 'qab-Qaab-XX'],
    ['en-XX', 'en-XX'],
    // Case is normalised (RFC 5646 §2.1.1) without a note: it is the same tag.
    ['EN-gb', 'en-GB'],
    ['sR-lATN-rs', 'sr-Latn-RS'],
    ['DE-de-U-CO-PHONEBK', 'de-DE-u-co-phonebk'],
  ])('accepts %s as %s, with nothing to report', (input, stored) => {
    const r = accepted(input);
    expect(r.value).toBe(stored);
    expect(r.normalized).toBeUndefined();
  });

  it.each([
    ['en-UK', 'en-GB', 'UK is not a region code in the IANA registry; CLDR maps it to GB (United Kingdom)'],
    [
      'iw',
      'he',
      'iw (Hebrew) is deprecated in the IANA registry since 1989-01-01; its preferred value is he',
    ],
    [
      'in',
      'id',
      'in (Indonesian) is deprecated in the IANA registry since 1989-01-01; its preferred value is id',
    ],
    [
      'ji',
      'yi',
      'ji (Yiddish) is deprecated in the IANA registry since 1989-01-01; its preferred value is yi',
    ],
    ['IW-il', 'he-IL', /^iw \(Hebrew\) is deprecated/],
    [
      'i-klingon',
      'tlh',
      "i-klingon (Klingon) is a grandfathered tag, deprecated since 2004-02-24; the IANA registry's preferred value is tlh",
    ],
    ['zh-min-nan', 'nan', /^zh-min-nan \(Minnan.*\) is a grandfathered tag, .*preferred value is nan$/],
    ['en-GB-oed', 'en-GB-oxendict', /grandfathered tag, deprecated since 2015-04-17/],
    ['sgn-BR', 'bzs', /^sgn-BR \(Brazilian Sign Language\) is a redundant tag/],
    ['zh-yue', 'yue', /^zh-yue \(Cantonese\) is a redundant tag/],
    [
      'en-BU',
      'en-MM',
      'BU (Burma) is deprecated in the IANA registry since 1989-12-05; its preferred value is MM',
    ],
    ['en-840', 'en-US', '840 is not a region code in the IANA registry; CLDR maps it to US (United States)'],
    [
      'ja-Latn-hepburn-heploc',
      'ja-Latn-hepburn-alalc97',
      /^heploc \(Hepburn romanization.*preferred value is alalc97$/,
    ],
    ['tl', 'fil', 'CLDR maps tl (Tagalog) to fil (Filipino)'],
    ['zh-guoyu', 'zh', /preferred value is cmn; CLDR maps cmn \(Mandarin Chinese\) to zh \(Chinese\)$/],
  ])('maps %s to %s and says why', (input, stored, why) => {
    const r = accepted(input);
    expect(r.value).toBe(stored);
    const expected = typeof why === 'string' ? why : expect.stringMatching(why);
    expect(r.normalized).toEqual([{ path: '', from: input, to: stored, why: expected }]);
  });

  it.each([
    ['xx', '"xx" is not a language subtag in the IANA registry'],
    ['en-Xyzw', '"Xyzw" is not a script subtag in the IANA registry'],
    ['en-AB', '"AB" is not a region subtag in the IANA registry'],
    ['de-1997', '"1997" is not a variant subtag in the IANA registry'],
    ['en-yue', '"yue" is not an extended language subtag of "en" in the IANA registry'],
    ['xx-Xyzw-AB', /^"xx" is not a language.*\n"Xyzw" is not a script.*\n"AB" is not a region/],
  ])('refuses %s, naming the unknown subtag', (input, message) => {
    expect(refused(input)).toMatch(message);
  });

  it('refuses tags that are not well-formed', () => {
    expect(refused('en--US')).toMatch(/^"en--US" is not a well-formed BCP 47 language tag/);
    expect(refused('e')).toMatch(/not a well-formed BCP 47 language tag/);
    expect(refused('en_US')).toMatch(/not a well-formed BCP 47 language tag/);
    expect(refused('de-1996-1996')).toBe('"de-1996-1996" repeats a variant subtag');
    expect(refused('de-DE-1996-1996')).toBe('"de-DE-1996-1996" repeats a variant subtag');
    expect(refused('en-a-bbb-a-ccc')).toBe('"en-a-bbb-a-ccc" repeats an extension singleton');
    expect(refused('')).toMatch(/not a well-formed/);
  });

  it('accepts every subtag in the registry, deprecated ones in their preferred form', () => {
    const tags = [
      ...subtags('language', false),
      ...subtags('script', false).map((s) => `und-${s}`),
      ...subtags('region', false).map((r) => `und-${r}`),
      ...subtags('variant', false).map((v) => `und-${v}`),
    ];
    expect(tags.length).toBeGreaterThan(8_500);
    for (const tag of tags) {
      const stored = accepted(tag).value;
      // The stored form is itself valid and final: checking it again changes nothing.
      expect(lang.validate(stored), tag).toEqual({ ok: true, value: stored });
    }
  });

  it('ignores case, and reports a change only when the tag itself changed', () => {
    const pick = (list: string[]) => fc.constantFrom(...list);
    const tags = fc
      .tuple(
        pick(subtags('language')),
        fc.option(pick(subtags('script')), { nil: undefined }),
        fc.option(pick(subtags('region')), { nil: undefined }),
      )
      .map((parts) => parts.filter(Boolean).join('-'));
    const randomCase = (s: string) =>
      fc
        .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
        .map((flips) => [...s].map((ch, i) => (flips[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));
    fc.assert(
      fc.property(
        tags.chain((t) => fc.tuple(fc.constant(t), randomCase(t))),
        ([tag, written]) => {
          const canonical = accepted(tag);
          const r = accepted(written);
          expect(r.value).toBe(canonical.value);
          if (r.value.toLowerCase() === written.toLowerCase()) expect(r.normalized).toBeUndefined();
          else expect(r.normalized).toEqual([expect.objectContaining({ from: written, to: r.value })]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('places each note at the path of its value, as errors are placed', () => {
    const names = codec({ type: 'list', of: { type: 'language' }, maxItems: 3 });
    expect(names.validate(['en', 'iw'])).toMatchObject({
      ok: true,
      value: ['en', 'he'],
      normalized: [{ path: '1', from: 'iw', to: 'he' }],
    });
    const entry = codec({
      type: 'object',
      fields: {
        source: { codec: { type: 'language' }, required: true, description: 's' },
        targets: {
          codec: { type: 'list', of: { type: 'language' }, maxItems: 3 },
          required: true,
          description: 't',
        },
      },
    });
    const r = entry.validate({ source: 'en-UK', targets: ['de', 'ji', 'in'] });
    expect(r.ok && r.normalized?.map((n) => `${n.path}: ${n.from} → ${n.to}`)).toEqual([
      'source: en-UK → en-GB',
      'targets.1: ji → yi',
      'targets.2: in → id',
    ]);
  });
});
