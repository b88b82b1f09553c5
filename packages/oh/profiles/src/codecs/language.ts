/**
 * BCP 47 language tags, valid and not only well-formed (RFC 5646 §2.2.9): every language,
 * extended language, script, region and variant subtag is in the IANA Language Subtag Registry.
 * A tag is stored in its preferred form (RFC 5646 §4.5, then CLDR's aliases) and canonical
 * casing (§2.1.1); when the form changed, the check says so and why (`iw` → `he`, `en-UK` →
 * `en-GB`), so the reviewer sees what is stored.
 *
 * Not done, on purpose: removing likely subtags (`en-US` stays `en-US`), reordering variants or
 * extensions, and checking a variant's recommended prefix or an extension's content; each would
 * change or refuse what a reviewer may mean.
 */
import { parse as parseBcp47, stringify as stringifyBcp47 } from 'bcp-47';
import type { Schema as Bcp47Schema } from 'bcp-47';
import type { RawIssue } from '../errors.ts';
import { fail, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { applyCldrAliases } from './language-aliases.ts';
import { cased, described, lookup } from './language-registry.ts';
import type { RegistryEntry, SubtagType } from './language-registry.ts';
import { CODEC_LIMITS } from './spec.ts';

export function checkLanguage(input: unknown): Checked<string> {
  if (typeof input !== 'string')
    return fail(`expected a BCP 47 language tag such as "en-GB", got ${typeOf(input)}`);
  if (input.length > CODEC_LIMITS.languageTagChars)
    return fail(`a language tag is at most ${CODEC_LIMITS.languageTagChars} characters`);
  const parsed = parseWellFormed(input);
  if (!parsed.ok) return parsed;
  const reasons: string[] = [];
  let tag = parsed.value;

  const legacy = tag.irregular ?? tag.regular;
  if (legacy) {
    // A grandfathered tag (RFC 5646 §2.2.8) is valid as a whole; its preferred value, if any,
    // is a tag of the ordinary form.
    const entry = lookup('grandfathered', legacy);
    if (!entry) return fail(`${show(input)} is not a grandfathered tag in the IANA registry`);
    const preferred = entry['Preferred-Value'];
    if (!preferred) return pass(entry.Tag!);
    reasons.push(
      `${entry.Tag} (${entry.Description[0]}) is a grandfathered tag${since(entry)}; ${prefers(preferred)}`,
    );
    tag = parseBcp47(preferred.toLowerCase(), { normalize: false });
  }
  preferIana(tag, reasons);
  applyCldrAliases(tag, reasons);
  const issues = unknownSubtags(tag);
  if (issues.length) return { ok: false, issues };

  const value = stringifyBcp47(canonicalCase(tag));
  const changed = reasons.length > 0 && value.toLowerCase() !== input.toLowerCase();
  return pass(value, changed ? [{ path: [], from: input, to: value, why: reasons.join('; ') }] : []);
}

/** RFC 5646 §2.1 syntax, plus §2.2.9's no repeated variant and no repeated singleton; lowercase. */
function parseWellFormed(input: string): Checked<Bcp47Schema> {
  const warnings: string[] = [];
  const tag = parseBcp47(input.toLowerCase(), {
    normalize: false,
    warning: (reason, _code, offset) => void warnings.push(`${reason.toLowerCase()} at ${offset + 1}`),
  });
  const empty = !tag.language && !tag.irregular && !tag.regular && tag.privateuse.length === 0;
  if (warnings.length || empty) {
    return fail(
      `${show(input)} is not a well-formed BCP 47 language tag${warnings.length ? ` (${warnings[0]})` : ''}`,
    );
  }
  if (new Set(tag.variants).size !== tag.variants.length)
    return fail(`${show(input)} repeats a variant subtag`);
  const singletons = tag.extensions.map((e) => e.singleton);
  if (new Set(singletons).size !== singletons.length)
    return fail(`${show(input)} repeats an extension singleton`);
  return pass(tag);
}

const since = (entry: RegistryEntry) => (entry.Deprecated ? `, deprecated since ${entry.Deprecated}` : '');
const prefers = (value: string) => `the IANA registry's preferred value is ${value}`;

/**
 * RFC 5646 §4.5 with the registry: a redundant tag, an extended language subtag, and deprecated
 * subtags are replaced by their Preferred-Value. Works in place on a lowercase tag.
 */
function preferIana(tag: Bcp47Schema, reasons: string[]): void {
  if (!tag.language) return;
  const core = stringifyBcp47({ ...tag, extensions: [], privateuse: [] });
  const redundant = lookup('redundant', core);
  const preferred = redundant?.['Preferred-Value'];
  if (redundant && preferred) {
    reasons.push(
      `${redundant.Tag} (${redundant.Description[0]}) is a redundant tag${since(redundant)}; ${prefers(preferred)}`,
    );
    const replacement = parseBcp47(preferred.toLowerCase(), { normalize: false });
    Object.assign(tag, { ...replacement, extensions: tag.extensions, privateuse: tag.privateuse });
  }
  const [extlang] = tag.extendedLanguageSubtags;
  const entry = extlang === undefined ? undefined : lookup('extlang', extlang);
  // Only a known extlang after its own prefix is replaced; anything else is reported as unknown.
  if (extlang && entry?.Prefix?.includes(tag.language) && tag.extendedLanguageSubtags.length === 1) {
    reasons.push(
      `${tag.language}-${extlang} uses an extended language subtag; the IANA registry's preferred form is ${described('language', extlang)}`,
    );
    tag.language = entry['Preferred-Value'] ?? extlang;
    tag.extendedLanguageSubtags = [];
  }
  const replace = (type: SubtagType, value: string): string => {
    const found = lookup(type, value);
    const to = found?.['Preferred-Value'];
    if (!found?.Deprecated || !to) return value;
    reasons.push(
      `${described(type, cased(type, value))} is deprecated in the IANA registry since ${found.Deprecated}; its preferred value is ${cased(type, to)}`,
    );
    return to.toLowerCase();
  };
  tag.language = replace('language', tag.language);
  if (tag.script) tag.script = replace('script', tag.script);
  if (tag.region) tag.region = replace('region', tag.region);
  tag.variants = tag.variants.map((v) => replace('variant', v));
}

/** RFC 5646 §2.2.9: each subtag is in the registry; the message names the subtag. */
function unknownSubtags(tag: Bcp47Schema): RawIssue[] {
  const issues: RawIssue[] = [];
  const check = (type: SubtagType, value: string | null | undefined, what: string) => {
    if (value && !lookup(type, value))
      issues.push({ path: [], message: `"${cased(type, value)}" is not ${what} in the IANA registry` });
  };
  check('language', tag.language, 'a language subtag');
  // A known extended language subtag after its prefix was replaced by preferIana; any left is wrong.
  const extlangs = tag.extendedLanguageSubtags;
  if (extlangs.length > 1) {
    issues.push({
      path: [],
      message: `a tag has at most one extended language subtag, got ${extlangs.join('-')}`,
    });
  } else if (extlangs.length === 1) {
    issues.push({
      path: [],
      message: `"${extlangs[0]}" is not an extended language subtag of "${tag.language}" in the IANA registry`,
    });
  }
  check('script', tag.script, 'a script subtag');
  check('region', tag.region, 'a region subtag');
  for (const v of tag.variants) check('variant', v, 'a variant subtag');
  return issues;
}

/** RFC 5646 §2.1.1 casing: language lower, script title, region upper, the rest lower. */
function canonicalCase(tag: Bcp47Schema): Bcp47Schema {
  return {
    ...tag,
    script: tag.script && cased('script', tag.script),
    region: tag.region && cased('region', tag.region),
  };
}
