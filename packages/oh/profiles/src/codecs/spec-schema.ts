/**
 * A spec's structure (zod) and its meaning (`specIssues`: what needs more than one field, or a
 * registry, to check), and `parseSpec`, which applies both.
 */
import { z } from 'zod';
import { KIND_RE } from '@oh/schema';
import { ProfileError, formatIssues, fromZod, toIssues } from '../errors.ts';
import type { PathSegment, ProfileIssue, RawIssue } from '../errors.ts';
import { unitProblem } from '../units.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json.ts';
import { currencyProblem } from './money.ts';
import { decimalBoundIssues } from './numbers.ts';
import { CODEC_LIMITS, CODEC_TYPES, FIELD_RE } from './spec.ts';
import type { CodecSpec, FieldSpec } from './spec.ts';

const count = z.number().int().min(0);
const decimalString = z.string().max(CODEC_LIMITS.decimalDigits + 2);
const integerBound = z.union([
  z.number().int(),
  z.string().regex(/^-?\d{1,100}$/, 'expected an integer string'),
]);
const description = z.string().min(1).max(CODEC_LIMITS.descriptionChars);

const fieldSpecSchema: z.ZodType<FieldSpec> = z.strictObject({
  get codec() {
    return codecSpecSchema;
  },
  required: z.boolean(),
  description,
});

export const fieldsSchema = z
  .record(z.string().regex(FIELD_RE, 'a field name is camelCase: [a-z][a-zA-Z0-9]{0,63}'), fieldSpecSchema)
  .refine(
    (fields) => Object.keys(fields).length <= CODEC_LIMITS.objectFields,
    `at most ${CODEC_LIMITS.objectFields} fields`,
  );

const specOptions = [
  z.strictObject({
    type: z.literal('text'),
    maxLength: z.number().int().min(1).max(CODEC_LIMITS.textChars),
    minLength: count.optional(),
    pattern: z.string().min(1).max(CODEC_LIMITS.patternChars).optional(),
  }),
  z.strictObject({
    type: z.literal('integer'),
    min: integerBound.optional(),
    max: integerBound.optional(),
    big: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('decimal'),
    min: decimalString.optional(),
    max: decimalString.optional(),
    maxScale: count.max(CODEC_LIMITS.decimalDigits).optional(),
  }),
  z.strictObject({
    type: z.literal('quantity'),
    units: z.array(z.string()).min(1).optional(),
    min: decimalString.optional(),
    max: decimalString.optional(),
    maxScale: count.max(CODEC_LIMITS.decimalDigits).optional(),
  }),
  z.strictObject({ type: z.literal('date'), partial: z.boolean().optional() }),
  z.strictObject({
    type: z.literal('money'),
    currencies: z.array(z.string()).min(1).optional(),
    min: decimalString.optional(),
    max: decimalString.optional(),
    maxScale: count.max(CODEC_LIMITS.decimalDigits).optional(),
  }),
  z.strictObject({ type: z.literal('currency'), currencies: z.array(z.string()).min(1).optional() }),
  z.strictObject({ type: z.literal('language') }),
  z.strictObject({ type: z.literal('doi') }),
  z.strictObject({
    type: z.literal('url'),
    maxLength: z.number().int().min(12).max(CODEC_LIMITS.urlChars).optional(),
  }),
  z.strictObject({
    type: z.literal('enum'),
    values: z.array(z.string().min(1).max(CODEC_LIMITS.enumValueChars)).min(1).max(CODEC_LIMITS.enumValues),
  }),
  z.strictObject({ type: z.literal('ref'), kinds: z.array(z.string()).min(1) }),
  z.strictObject({
    type: z.literal('list'),
    get of() {
      return codecSpecSchema;
    },
    minItems: count.optional(),
    maxItems: z.number().int().min(1).max(CODEC_LIMITS.listItems),
    unique: z.boolean().optional(),
  }),
  z.strictObject({ type: z.literal('object'), fields: fieldsSchema }),
] as const;

/** The structure of a codec spec; `specIssues` adds the checks that need more than one field. */
const codecSpecSchema: z.ZodType<CodecSpec> = z.discriminatedUnion('type', specOptions, {
  error: (iss) => {
    if (iss.code !== 'invalid_union') return undefined;
    const type = (iss.input as { type?: unknown } | undefined)?.type;
    const known = CODEC_TYPES.join(', ');
    return typeof type === 'string'
      ? `unknown codec "${type}" (known codecs: ${known})`
      : `a codec needs a "type", one of: ${known}`;
  },
});

/**
 * What is wrong with a structurally valid spec: bounds in the wrong order, a pattern that does
 * not compile, an unknown unit or currency, duplicate enum values, a reference to a kind that
 * `kinds` (the pack's kinds, when known) does not have.
 */
export function specIssues(spec: CodecSpec, kinds?: ReadonlySet<string>, depth = 0): RawIssue[] {
  const issues: RawIssue[] = [];
  const add = (path: PathSegment[], message: string) => issues.push({ path, message });
  switch (spec.type) {
    case 'text':
      if (spec.minLength !== undefined && spec.minLength > spec.maxLength) {
        add(['minLength'], `minLength ${spec.minLength} is greater than maxLength ${spec.maxLength}`);
      }
      if (spec.pattern !== undefined) {
        try {
          new RegExp(spec.pattern, 'u');
        } catch (e) {
          add(['pattern'], `pattern does not compile: ${(e as Error).message}`);
        }
      }
      break;
    case 'integer': {
      for (const key of ['min', 'max'] as const) {
        const bound = spec[key];
        if (typeof bound === 'number' && !Number.isSafeInteger(bound)) {
          add([key], `${key} ${bound} is past ±2^53−1, where JSON numbers lose digits: write it as a string`);
        } else if (typeof bound === 'string' && !spec.big) {
          add([key], `${key} is a number unless the codec is big`);
        }
      }
      if (spec.min !== undefined && spec.max !== undefined && BigInt(spec.min) > BigInt(spec.max)) {
        add(['min'], `min ${spec.min} is greater than max ${spec.max}`);
      }
      break;
    }
    case 'decimal':
      issues.push(...decimalBoundIssues(spec));
      break;
    case 'quantity':
      issues.push(...decimalBoundIssues(spec));
      spec.units?.forEach((u, i) => {
        const problem = unitProblem(u);
        if (problem) add(['units', i], problem);
      });
      duplicates(spec.units ?? []).forEach((i) =>
        add(['units', i], `unit "${spec.units![i]}" is listed twice`),
      );
      break;
    case 'money':
      issues.push(...decimalBoundIssues(spec));
    // falls through: money and currency share the allow-list check
    case 'currency':
      spec.currencies?.forEach((c, i) => {
        const problem = currencyProblem(c);
        if (problem) add(['currencies', i], problem);
        else if (c !== c.toUpperCase())
          add(['currencies', i], `write currency codes in uppercase ("${c.toUpperCase()}")`);
      });
      duplicates(spec.currencies ?? []).forEach((i) =>
        add(['currencies', i], `"${spec.currencies![i]}" is listed twice`),
      );
      break;
    case 'enum':
      duplicates(spec.values).forEach((i) => add(['values', i], `"${spec.values[i]}" is listed twice`));
      break;
    case 'ref':
      spec.kinds.forEach((k, i) => {
        if (!KIND_RE.test(k)) add(['kinds', i], `"${k}" is not a kind name ([a-z][a-z0-9-]{0,31})`);
        else if (kinds && !kinds.has(k)) add(['kinds', i], `no kind "${k}" in this pack`);
      });
      duplicates(spec.kinds).forEach((i) => add(['kinds', i], `"${spec.kinds[i]}" is listed twice`));
      break;
    case 'list':
      if (spec.minItems !== undefined && spec.minItems > spec.maxItems) {
        add(['minItems'], `minItems ${spec.minItems} is greater than maxItems ${spec.maxItems}`);
      }
      if (depth >= CODEC_LIMITS.nesting)
        add(['of'], `lists and objects nest at most ${CODEC_LIMITS.nesting} deep`);
      else for (const i of specIssues(spec.of, kinds, depth + 1)) add(['of', ...i.path], i.message);
      break;
    case 'object':
      if (depth >= CODEC_LIMITS.nesting)
        add(['fields'], `lists and objects nest at most ${CODEC_LIMITS.nesting} deep`);
      else
        for (const [name, field] of Object.entries(spec.fields)) {
          for (const i of specIssues(field.codec, kinds, depth + 1))
            add(['fields', name, 'codec', ...i.path], i.message);
        }
      break;
    case 'date':
    case 'language':
    case 'doi':
    case 'url':
      break;
  }
  return issues;
}

function duplicates(values: readonly string[]): number[] {
  const seen = new Set<string>();
  const dup: number[] = [];
  values.forEach((v, i) => (seen.has(v) ? dup.push(i) : seen.add(v)));
  return dup;
}

/** Parse a spec and check its meaning; throws `ProfileError` (`invalid_input`) naming the path. */
export function parseSpec(spec: unknown, kinds?: ReadonlySet<string>): CodecSpec {
  if (nestsDeeperThan(spec, MAX_JSON_DEPTH)) {
    const issues = [{ path: '', message: `a codec spec nests at most ${MAX_JSON_DEPTH} levels deep` }];
    throw new ProfileError('invalid_input', `invalid codec spec:\n${formatIssues(issues)}`, issues);
  }
  const parsed = codecSpecSchema.safeParse(spec);
  const issues: ProfileIssue[] = parsed.success
    ? toIssues(specIssues(parsed.data, kinds))
    : fromZod(parsed.error);
  if (issues.length || !parsed.success) {
    throw new ProfileError('invalid_input', `invalid codec spec:\n${formatIssues(issues)}`, issues);
  }
  return parsed.data;
}
