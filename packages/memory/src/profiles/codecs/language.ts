/**
 * BCP 47 language tags: well-formed per RFC 5646, stored in its canonical casing (§2.1.1).
 */
import { parse as parseBcp47, stringify as stringifyBcp47 } from 'bcp-47';
import type { Schema as Bcp47Schema } from 'bcp-47';
import { fail, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { CODEC_LIMITS } from './spec.ts';

export function checkLanguage(input: unknown): Checked<string> {
  if (typeof input !== 'string')
    return fail(`expected a BCP 47 language tag such as "en-GB", got ${typeOf(input)}`);
  if (input.length > CODEC_LIMITS.languageTagChars)
    return fail(`a language tag is at most ${CODEC_LIMITS.languageTagChars} characters`);
  const warnings: string[] = [];
  const tag = parseBcp47(input, {
    warning: (reason, _code, offset) => void warnings.push(`${reason.toLowerCase()} at ${offset + 1}`),
  });
  const empty = !tag.language && !tag.irregular && !tag.regular && tag.privateuse.length === 0;
  if (warnings.length || empty) {
    return fail(
      `${show(input)} is not a well-formed BCP 47 language tag${warnings.length ? ` (${warnings[0]})` : ''}`,
    );
  }
  // Well-formed per RFC 5646 §2.2.9 also means no repeated variant and no repeated singleton.
  const variants = tag.variants.map((v) => v.toLowerCase());
  if (new Set(variants).size !== variants.length) return fail(`${show(input)} repeats a variant subtag`);
  const singletons = tag.extensions.map((e) => e.singleton.toLowerCase());
  if (new Set(singletons).size !== singletons.length)
    return fail(`${show(input)} repeats an extension singleton`);
  return pass(stringifyBcp47(canonicalCase(tag)));
}

/** RFC 5646 §2.1.1 casing: language lower, script title, region upper, the rest lower. */
function canonicalCase(tag: Bcp47Schema): Bcp47Schema {
  const lower = (s: string | null | undefined) => s?.toLowerCase() ?? s;
  return {
    ...tag,
    language: lower(tag.language),
    extendedLanguageSubtags: tag.extendedLanguageSubtags.map((s) => s.toLowerCase()),
    script: tag.script ? tag.script[0]!.toUpperCase() + tag.script.slice(1).toLowerCase() : tag.script,
    region: tag.region?.toUpperCase() ?? tag.region,
    variants: tag.variants.map((s) => s.toLowerCase()),
    extensions: tag.extensions.map((e) => ({
      singleton: e.singleton.toLowerCase(),
      extensions: e.extensions.map((s) => s.toLowerCase()),
    })),
    privateuse: tag.privateuse.map((s) => s.toLowerCase()),
    irregular: lower(tag.irregular),
    regular: lower(tag.regular),
  };
}
