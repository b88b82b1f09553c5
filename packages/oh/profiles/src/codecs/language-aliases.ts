/**
 * CLDR's aliases for language tags (Unicode TR35 §3.2.1, "canonical form"), from the tables the
 * `bcp-47-normalize` package generates from CLDR's supplemental metadata. Its own entry point
 * also minimises tags (`en-US` → `en`), which would change what a reviewer wrote; only its alias
 * tables are used, applied the way it applies them.
 *
 * Two tables: whole-tag aliases matched as RFC 4647 extended-filtering ranges (`sgn-br` → `bzs`,
 * `tl` → `fil`, `und-hepburn-heploc` → `und-alalc97`, where `und` stands for any language), and
 * single-field aliases (region `uk` → `gb`, region `840` → `us`, script `qaai` → `zinh`).
 */
import { parse, stringify } from 'bcp-47';
import type { Schema } from 'bcp-47';
import { fields as fieldAliases } from 'bcp-47-normalize/lib/fields.js';
import { matches as tagAliases } from 'bcp-47-normalize/lib/matches.js';
import { cased, described, lookup } from './language-registry.ts';
import type { SubtagType } from './language-registry.ts';

/** Whether a tag falls under a range (RFC 4647 §3.3.2), both split into lowercase subtags. */
function extendedMatch(t: readonly string[], r: readonly string[]): boolean {
  if (t[0] !== r[0]) return false;
  let ti = 1;
  for (let ri = 1; ri < r.length;) {
    if (ti >= t.length) return false;
    if (t[ti] === r[ri]) ri++;
    // A singleton ends the part of a tag a range may skip over.
    else if (t[ti]!.length === 1) return false;
    ti++;
  }
  return true;
}

type Field = 'language' | 'script' | 'region' | 'variants';
const FIELDS: readonly Field[] = ['language', 'script', 'region', 'variants'];

function removeValue(schema: Schema, field: Field, value: string): boolean {
  if (field === 'variants') {
    const before = schema.variants.length;
    schema.variants = schema.variants.filter((v) => v !== value);
    return schema.variants.length !== before;
  }
  if (schema[field] !== value) return false;
  schema[field] = field === 'language' ? undefined : null;
  return true;
}

function addValue(schema: Schema, field: Field, value: string): void {
  if (field === 'variants') {
    if (!schema.variants.includes(value)) schema.variants.push(value);
  } else schema[field] = value;
}

/** A whole-tag alias: remove what `from` names, then fill in what `to` names where now empty. */
function replaceTag(schema: Schema, from: string, to: string): void {
  const left = parse(from);
  const right = parse(to);
  const removed = new Set<Field>();
  for (const field of FIELDS) {
    const values = field === 'variants' ? left.variants : [left[field]];
    for (const v of values) if (v && removeValue(schema, field, v)) removed.add(field);
  }
  for (const field of FIELDS) {
    const values = field === 'variants' ? right.variants : [right[field]];
    for (const v of values) {
      if (!v || !(removed.has(field) || (field !== 'variants' && !schema[field]))) continue;
      // `und` in a target keeps the language the tag had.
      addValue(schema, field, field === 'language' && v === 'und' ? left.language! : v);
    }
  }
}

const tagAliasRanges = tagAliases.map((a) => ({ range: a.from.split('-'), to: a.to }));
const fieldAliasByValue = new Map(fieldAliases.map((a) => [`${a.from.field}:${a.from.value}`, a]));

const TYPE_OF: Record<Exclude<Field, 'language'>, SubtagType> = {
  script: 'script',
  region: 'region',
  variants: 'variant',
};

/** `from` and `to` as a reviewer reads them: registry casing, and the name of a lone language. */
function showTag(tag: string): string {
  const s = parse(tag);
  const onlyLanguage = s.language && !s.script && !s.region && s.variants.length === 0;
  if (onlyLanguage) return described('language', s.language!);
  return stringify({
    ...s,
    script: s.script && cased('script', s.script),
    region: s.region && cased('region', s.region),
  });
}

/**
 * Apply CLDR's aliases to a parsed, lowercase tag, in place; each applied alias adds a reason in
 * plain words.
 *
 * @example
 * const tag = parse('en-uk'); applyCldrAliases(tag, reasons); // tag.region: 'gb'
 * // reasons: ['UK is not a region code in the IANA registry; CLDR maps it to GB (United Kingdom)']
 */
export function applyCldrAliases(schema: Schema, reasons: string[]): void {
  if (!schema.language) return;
  let tag = stringify(schema).split('-');
  for (const alias of tagAliasRanges) {
    // Most ranges start with another language; `und` stands for the tag's own.
    if (alias.range[0] !== tag[0] && alias.range[0] !== 'und') continue;
    const range = [schema.language, ...alias.range.slice(1)];
    if (!extendedMatch(tag, range)) continue;
    const from = range.join('-');
    replaceTag(schema, from, alias.to);
    tag = stringify(schema).split('-');
    reasons.push(`CLDR maps ${showTag(from)} to ${showTag(alias.to.replace(/^und\b/, schema.language))}`);
  }
  const present = [
    ['script', schema.script],
    ['region', schema.region],
    ...schema.variants.map((v) => ['variants', v]),
  ] as const;
  for (const [field, value] of present) {
    const alias = value ? fieldAliasByValue.get(`${field}:${value}`) : undefined;
    if (!alias) continue;
    const { from, to } = alias;
    removeValue(schema, from.field, from.value);
    addValue(schema, to.field, to.value);
    const type = TYPE_OF[from.field];
    const shown = cased(type, from.value);
    const target = described(TYPE_OF[to.field], cased(TYPE_OF[to.field], to.value));
    reasons.push(
      lookup(type, from.value)
        ? `CLDR maps ${type} ${shown} to ${target}`
        : `${shown} is not a ${type} code in the IANA registry; CLDR maps it to ${target}`,
    );
  }
}
