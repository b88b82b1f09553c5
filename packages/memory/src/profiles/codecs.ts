/**
 * Value codecs: the types a profile's fields can hold. A codec is described by a JSON spec (so a
 * pack can carry it) and turns a spec into three functions: `validate` (any input → a checked
 * value or issues), `encode` (value → its canonical JSON form) and `decode` (JSON → value).
 *
 * Canonical forms are chosen so that equal values have byte-equal canonical JSON: decimals keep
 * their scale ("1.10" stays "1.10") but lose a `+` and leading zeros, DOIs are lowercased, URLs
 * are WHATWG-serialised, language tags take RFC 5646 casing, currency codes are uppercase.
 */
import canonicalize from 'canonicalize';
import { z } from 'zod';
import Decimal from 'decimal.js';
import { code as currencyByCode } from 'currency-codes';
import { parse as parseBcp47, stringify as stringifyBcp47 } from 'bcp-47';
import type { Schema as Bcp47Schema } from 'bcp-47';
import { KIND_RE, NAME_RE } from '@sponge/contract';
import type { JsonValue } from '../types.ts';
import { ProfileError, formatIssues, fromZod, toIssues } from './errors.ts';
import type { PathSegment, ProfileIssue, RawIssue } from './errors.ts';
import { unitProblem } from './units.ts';

// ---------------------------------------------------------------------------------------------
// Specs

export interface TextSpec {
  type: 'text';
  /** In Unicode code points. */
  maxLength: number;
  minLength?: number;
  /** A regular expression (Unicode mode) the whole text must match. */
  pattern?: string;
}
export interface IntegerSpec {
  type: 'integer';
  /** Numbers, or digit strings for bounds past the safe range of a `big` integer. */
  min?: number | string;
  max?: number | string;
  /** Allow integers past ±2^53−1; they are bigints in code and strings in JSON. */
  big?: boolean;
}
interface DecimalOptions {
  min?: string;
  max?: string;
  /** Most digits after the point. */
  maxScale?: number;
}
export interface DecimalSpec extends DecimalOptions {
  type: 'decimal';
}
export interface QuantitySpec extends DecimalOptions {
  type: 'quantity';
  /** Allowed UCUM units; any valid unit when absent. */
  units?: readonly string[];
}
export interface DateSpec {
  type: 'date';
  /** Allow `YYYY` and `YYYY-MM` (default true). */
  partial?: boolean;
}
export interface MoneySpec extends DecimalOptions {
  type: 'money';
  /** Allowed ISO 4217 codes; any current code when absent. */
  currencies?: readonly string[];
}
export interface CurrencySpec {
  type: 'currency';
  /** Allowed ISO 4217 codes; any current code when absent. */
  currencies?: readonly string[];
}
export interface LanguageSpec {
  type: 'language';
}
export interface DoiSpec {
  type: 'doi';
}
export interface UrlSpec {
  type: 'url';
  /** Default 2,048. */
  maxLength?: number;
}
export interface EnumSpec {
  type: 'enum';
  values: readonly string[];
}
export interface RefSpec {
  type: 'ref';
  /** The kinds a referenced record may have. */
  kinds: readonly string[];
}
export interface ListSpec {
  type: 'list';
  of: CodecSpec;
  minItems?: number;
  maxItems: number;
  /** Refuse two items with the same canonical JSON. */
  unique?: boolean;
}
export interface ObjectSpec {
  type: 'object';
  fields: Readonly<Record<string, FieldSpec>>;
}
export interface FieldSpec {
  codec: CodecSpec;
  required: boolean;
  description: string;
}

export type CodecSpec =
  | TextSpec
  | IntegerSpec
  | DecimalSpec
  | QuantitySpec
  | DateSpec
  | MoneySpec
  | CurrencySpec
  | LanguageSpec
  | DoiSpec
  | UrlSpec
  | EnumSpec
  | RefSpec
  | ListSpec
  | ObjectSpec;

export type CodecType = CodecSpec['type'];

export const CODEC_TYPES = [
  'text',
  'integer',
  'decimal',
  'quantity',
  'date',
  'money',
  'currency',
  'language',
  'doi',
  'url',
  'enum',
  'ref',
  'list',
  'object',
] as const satisfies readonly CodecType[];

// ---------------------------------------------------------------------------------------------
// Values

export interface Quantity {
  /** An exact decimal string. */
  value: string;
  /** A UCUM unit, e.g. `mg/dL`, `1`, `%`. */
  unit: string;
}
export interface Money {
  /** An exact decimal string. */
  amount: string;
  /** An ISO 4217 code, uppercase. */
  currency: string;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ObjectValue<F extends Readonly<Record<string, FieldSpec>>> = Simplify<
  { -readonly [K in keyof F as F[K]['required'] extends true ? K : never]: ValueOf<F[K]['codec']> } & {
    -readonly [K in keyof F as F[K]['required'] extends true ? never : K]?: ValueOf<F[K]['codec']>;
  }
>;

/** The value type a spec's codec validates to and encodes from. */
export type ValueOf<S extends CodecSpec> = S extends {
  type: 'enum';
  values: readonly (infer V extends string)[];
}
  ? V
  : S extends { type: 'integer'; big: true }
    ? bigint
    : S extends { type: 'integer' }
      ? number
      : S extends { type: 'quantity' }
        ? Quantity
        : S extends { type: 'money' }
          ? Money
          : S extends { type: 'list'; of: infer O extends CodecSpec }
            ? ValueOf<O>[]
            : S extends { type: 'object'; fields: infer F extends Readonly<Record<string, FieldSpec>> }
              ? ObjectValue<F>
              : string;

export type CodecResult<T> = { ok: true; value: T } | { ok: false; errors: ProfileIssue[] };

export interface Codec<T = unknown> {
  readonly spec: CodecSpec;
  /** A short description for people, e.g. `exact decimal, at most 2 decimal places`. */
  readonly summary: string;
  /** Check any input; on success the value is in canonical form. Never throws. */
  validate(input: unknown): CodecResult<T>;
  /** The canonical JSON value. Throws `ProfileError` (`invalid_input`) for an invalid value. */
  encode(value: T): JsonValue;
  /** Back from JSON (canonical or not). Throws `ProfileError` (`invalid_input`) when invalid. */
  decode(json: unknown): T;
}

// ---------------------------------------------------------------------------------------------
// Spec schema (structure) and spec checks (meaning)

export const CODEC_LIMITS = {
  textChars: 100_000,
  patternChars: 200,
  decimalDigits: 100,
  bigIntegerDigits: 100,
  urlChars: 8_192,
  defaultUrlChars: 2_048,
  doiChars: 512,
  languageTagChars: 128,
  enumValues: 256,
  enumValueChars: 64,
  listItems: 1_000,
  nesting: 4,
  objectFields: 64,
  descriptionChars: 1_000,
} as const;

/** Field names are camelCase identifiers, so they read the same in JSON and in code. */
export const FIELD_RE = /^[a-z][a-zA-Z0-9]{0,63}$/;

const count = z.number().int().min(0);
const decimalString = z.string().max(CODEC_LIMITS.decimalDigits + 2);
const integerBound = z.union([
  z.number().int(),
  z.string().regex(/^-?\d{1,100}$/, 'expected an integer string'),
]);
const description = z.string().min(1).max(CODEC_LIMITS.descriptionChars);

export const fieldSpecSchema: z.ZodType<FieldSpec> = z.strictObject({
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
export const codecSpecSchema: z.ZodType<CodecSpec> = z.discriminatedUnion('type', specOptions, {
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
  const decimalBounds = (s: DecimalOptions) => {
    for (const key of ['min', 'max'] as const) {
      const bound = s[key];
      if (bound === undefined) continue;
      const r = checkDecimal(bound, {});
      if (!r.ok) add([key], r.issues[0]!.message);
    }
    if (s.min !== undefined && s.max !== undefined && isDecimal(s.min) && isDecimal(s.max)) {
      if (new Decimal(s.min).gt(s.max)) add(['min'], `min ${s.min} is greater than max ${s.max}`);
    }
  };
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
      decimalBounds(spec);
      break;
    case 'quantity':
      decimalBounds(spec);
      spec.units?.forEach((u, i) => {
        const problem = unitProblem(u);
        if (problem) add(['units', i], problem);
      });
      duplicates(spec.units ?? []).forEach((i) =>
        add(['units', i], `unit "${spec.units![i]}" is listed twice`),
      );
      break;
    case 'money':
      decimalBounds(spec);
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

// ---------------------------------------------------------------------------------------------
// Checks, one per codec type. Each takes any input and returns the canonical value or issues.

type Checked<T> = { ok: true; value: T } | { ok: false; issues: RawIssue[] };

const pass = <T>(value: T): Checked<T> => ({ ok: true, value });
const fail = (message: string, path: PathSegment[] = []): Checked<never> => ({
  ok: false,
  issues: [{ path, message }],
});

/** A compact rendering of a bad input for messages. */
function show(input: unknown): string {
  if (typeof input === 'bigint') return `${input}n`;
  if (input === undefined) return 'nothing';
  const text = JSON.stringify(input) ?? String(input);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'an object';
  return `the ${typeof input} ${show(input)}`;
}

function isPlainObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const proto = Object.getPrototypeOf(input) as unknown;
  return proto === Object.prototype || proto === null;
}

const LONE_SURROGATE = /\p{Cs}/u;

function checkText(input: unknown, spec: TextSpec, pattern: RegExp | undefined): Checked<string> {
  if (typeof input !== 'string') return fail(`expected text, got ${typeOf(input)}`);
  // A lone surrogate has no UTF-8 encoding, so it would have no well-defined digest.
  if (LONE_SURROGATE.test(input)) return fail('text contains an unpaired UTF-16 surrogate');
  const length = [...input].length;
  if (length > spec.maxLength) return fail(`text is at most ${spec.maxLength} characters, got ${length}`);
  if (spec.minLength !== undefined && length < spec.minLength) {
    return fail(`text is at least ${spec.minLength} characters, got ${length}`);
  }
  if (pattern && !pattern.test(input))
    return fail(`${show(input)} does not match the pattern ${spec.pattern}`);
  return pass(input);
}

const INTEGER_STRING = /^[+-]?\d+$/;

function checkInteger(input: unknown, spec: IntegerSpec): Checked<number | bigint> {
  let value: bigint;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return fail(`expected an integer, got ${show(input)}`);
    if (!Number.isInteger(input)) return fail(`${input} is not an integer`);
    if (!Number.isSafeInteger(input)) {
      return fail(
        spec.big
          ? `${input} is past the safe integer range, where JSON numbers lose digits: pass it as a string`
          : `${input} is past the safe integer range (±${Number.MAX_SAFE_INTEGER})`,
      );
    }
    value = BigInt(input);
  } else if (spec.big && typeof input === 'bigint') {
    value = input;
  } else if (spec.big && typeof input === 'string') {
    if (!INTEGER_STRING.test(input)) return fail(`${show(input)} is not an integer`);
    if (input.replace(/^[+-]?0*/, '').length > CODEC_LIMITS.bigIntegerDigits) {
      return fail(`an integer has at most ${CODEC_LIMITS.bigIntegerDigits} digits`);
    }
    value = BigInt(input);
  } else {
    return fail(
      `expected an integer${spec.big ? ' (a number, or a string of digits)' : ''}, got ${typeOf(input)}`,
    );
  }
  if (spec.min !== undefined && value < BigInt(spec.min))
    return fail(`${value} is less than the minimum ${spec.min}`);
  if (spec.max !== undefined && value > BigInt(spec.max))
    return fail(`${value} is greater than the maximum ${spec.max}`);
  return pass(spec.big ? value : Number(value));
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

function isDecimal(s: string): boolean {
  return DECIMAL.test(s);
}

/** Canonical exact decimal: no `+`, no leading zeros, no `-` on zero, scale kept. */
function checkDecimal(input: unknown, spec: DecimalOptions, what = 'an exact decimal'): Checked<string> {
  if (typeof input === 'number') {
    // A JSON number has been through a binary float on the way in; the exact value is gone.
    return fail(
      Number.isInteger(input)
        ? `expected ${what} as a string such as "${input}", got the number ${input} (numbers are refused: they pass through floats)`
        : `${input} is a float; ${what} is a string such as "1.10", which keeps its exact digits`,
    );
  }
  if (typeof input !== 'string')
    return fail(`expected ${what} as a string such as "12.50", got ${typeOf(input)}`);
  const m = DECIMAL.exec(input);
  if (!m)
    return fail(
      `${show(input)} is not ${what}: expected digits with an optional sign and fraction, such as "-12.50"`,
    );
  const intPart = m[2]!.replace(/^0+(?=\d)/, '');
  const frac = m[3] ?? '';
  if (intPart.length + frac.length > CODEC_LIMITS.decimalDigits)
    return fail(`${what} has at most ${CODEC_LIMITS.decimalDigits} digits`);
  const zero = /^0*$/.test(intPart + frac);
  const canonical = `${m[1] === '-' && !zero ? '-' : ''}${intPart}${frac ? `.${frac}` : ''}`;
  if (spec.maxScale !== undefined && frac.length > spec.maxScale) {
    return fail(`${canonical} has ${frac.length} decimal places; at most ${spec.maxScale} allowed`);
  }
  if (spec.min !== undefined && new Decimal(canonical).lt(spec.min))
    return fail(`${canonical} is less than the minimum ${spec.min}`);
  if (spec.max !== undefined && new Decimal(canonical).gt(spec.max))
    return fail(`${canonical} is greater than the maximum ${spec.max}`);
  return pass(canonical);
}

function checkParts(
  input: unknown,
  keys: readonly string[],
  example: string,
): Checked<Record<string, unknown>> {
  if (!isPlainObject(input)) return fail(`expected an object ${example}, got ${typeOf(input)}`);
  const issues: RawIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!keys.includes(key))
      issues.push({ path: [key], message: `unknown field "${key}" (expected ${keys.join(' and ')})` });
  }
  for (const key of keys) if (!Object.hasOwn(input, key)) issues.push({ path: [key], message: 'required' });
  return issues.length ? { ok: false, issues } : pass(input);
}

function checkQuantity(input: unknown, spec: QuantitySpec): Checked<Quantity> {
  const parts = checkParts(input, ['value', 'unit'], 'such as {"value":"12.5","unit":"mg"}');
  if (!parts.ok) return parts;
  const issues: RawIssue[] = [];
  const value = checkDecimal(parts.value.value, spec);
  if (!value.ok) issues.push(...value.issues.map((i) => ({ ...i, path: ['value', ...i.path] })));
  const unit = parts.value.unit;
  if (typeof unit !== 'string')
    issues.push({ path: ['unit'], message: `expected a UCUM unit such as "mg", got ${typeOf(unit)}` });
  else if (spec.units && !spec.units.includes(unit)) {
    issues.push({ path: ['unit'], message: `unit "${unit}" is not one of: ${spec.units.join(', ')}` });
  } else {
    const problem = unitProblem(unit);
    if (problem) issues.push({ path: ['unit'], message: problem });
  }
  if (issues.length || !value.ok) return { ok: false, issues };
  return pass({ unit: unit as string, value: value.value });
}

/** `null` when `code` is a current ISO 4217 currency, else why not. */
export function currencyProblem(code: string): string | null {
  if (!/^[A-Za-z]{3}$/.test(code))
    return `${show(code)} is not an ISO 4217 currency code (three letters, e.g. EUR)`;
  const upper = code.toUpperCase();
  // XXX (no currency) and XTS (testing) are in the standard but are not money.
  if (upper === 'XXX' || upper === 'XTS')
    return `${upper} is an ISO 4217 code for ${upper === 'XXX' ? 'no currency' : 'testing'}, not a currency`;
  if (!currencyByCode(upper)) return `"${code}" is not an ISO 4217 currency code`;
  return null;
}

function checkCurrency(input: unknown, spec: CurrencySpec): Checked<string> {
  if (typeof input !== 'string') return fail(`expected an ISO 4217 code such as "EUR", got ${typeOf(input)}`);
  const problem = currencyProblem(input);
  if (problem) return fail(problem);
  const code = input.toUpperCase();
  if (spec.currencies && !spec.currencies.includes(code))
    return fail(`${code} is not one of: ${spec.currencies.join(', ')}`);
  return pass(code);
}

function checkMoney(input: unknown, spec: MoneySpec): Checked<Money> {
  const parts = checkParts(input, ['amount', 'currency'], 'such as {"amount":"12.50","currency":"EUR"}');
  if (!parts.ok) return parts;
  const issues: RawIssue[] = [];
  const amount = checkDecimal(parts.value.amount, spec, 'an exact amount');
  if (!amount.ok) issues.push(...amount.issues.map((i) => ({ ...i, path: ['amount', ...i.path] })));
  const currency = parts.value.currency;
  const code = checkCurrency(currency, {
    type: 'currency',
    ...(spec.currencies && { currencies: spec.currencies }),
  });
  if (!code.ok) issues.push(...code.issues.map((i) => ({ ...i, path: ['currency', ...i.path] })));
  if (!amount.ok || !code.ok) return { ok: false, issues };
  return pass({ amount: amount.value, currency: code.value });
}

// prettier-ignore
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June',
  'July', 'August', 'September', 'October', 'November', 'December',
] as const;

function daysInMonth(year: number, month: number): number {
  // Proleptic Gregorian, as ISO 8601 reckons.
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

function checkDate(input: unknown, spec: DateSpec): Checked<string> {
  const partial = spec.partial ?? true;
  const forms = partial ? 'YYYY-MM-DD, YYYY-MM or YYYY' : 'YYYY-MM-DD';
  if (typeof input !== 'string') return fail(`expected an ISO 8601 date (${forms}), got ${typeOf(input)}`);
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(input);
  if (!m) return fail(`${show(input)} is not an ISO 8601 date (${forms})`);
  const [, y, mo, d] = m;
  if (!partial && d === undefined)
    return fail(`${input} is a partial date; a full date YYYY-MM-DD is required`);
  if (mo !== undefined) {
    const month = Number(mo);
    if (month < 1 || month > 12) return fail(`${input} is not a calendar date: there is no month ${mo}`);
    if (d !== undefined) {
      const day = Number(d);
      const days = daysInMonth(Number(y), month);
      if (day < 1 || day > days) {
        return fail(`${input} is not a calendar date: ${MONTHS[month - 1]} ${y} has ${days} days`);
      }
    }
  }
  return pass(input);
}

function checkLanguage(input: unknown): Checked<string> {
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

const DOI_PREFIX = /^(?:doi:|https?:\/\/(?:dx\.)?doi\.org\/)/i;
const DOI = /^10\.\d{4,9}(?:\.\d+)*\/[^\s\p{Cc}]+$/u;

function checkDoi(input: unknown): Checked<string> {
  if (typeof input !== 'string') return fail(`expected a DOI such as "10.1000/xyz123", got ${typeOf(input)}`);
  if (input.length > CODEC_LIMITS.doiChars)
    return fail(`a DOI is at most ${CODEC_LIMITS.doiChars} characters`);
  let doi = input;
  const prefix = DOI_PREFIX.exec(doi);
  if (prefix) {
    doi = doi.slice(prefix[0].length);
    if (prefix[0].includes('/')) {
      try {
        doi = decodeURIComponent(doi);
      } catch {
        return fail(`${show(input)} is not a DOI: bad percent-encoding`);
      }
    }
  }
  if (!DOI.test(doi))
    return fail(`${show(input)} is not a DOI: expected 10.NNNN/suffix, such as "10.1000/xyz123"`);
  // DOIs are case-insensitive (ISO 26324); lowercase is the one spelling we store.
  return pass(doi.toLowerCase());
}

function checkUrl(input: unknown, spec: UrlSpec): Checked<string> {
  const max = spec.maxLength ?? CODEC_LIMITS.defaultUrlChars;
  if (typeof input !== 'string') return fail(`expected an http(s) URL, got ${typeOf(input)}`);
  if (input.length > max) return fail(`a URL is at most ${max} characters, got ${input.length}`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return fail(`${show(input)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(`only http and https URLs are allowed, got a ${url.protocol.slice(0, -1)} URL`);
  }
  if (url.username || url.password) return fail('URLs with a user name or password are refused');
  if (url.href.length > max) return fail(`a URL is at most ${max} characters once normalised`);
  return pass(url.href);
}

function checkEnum(input: unknown, spec: EnumSpec): Checked<string> {
  if (typeof input !== 'string' || !spec.values.includes(input)) {
    return fail(`${show(input)} is not one of: ${spec.values.join(', ')}`);
  }
  return pass(input);
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

function checkRef(input: unknown, spec: RefSpec): Checked<string> {
  const expected = orList(spec.kinds);
  if (typeof input !== 'string')
    return fail(`expected a record name such as "${spec.kinds[0]}:my-slug", got ${typeOf(input)}`);
  if (!NAME_RE.test(input)) {
    return fail(
      `${show(input)} is not a record name: kind:slug, kind [a-z][a-z0-9-]{0,31}, slug [a-z0-9][a-z0-9._-]{0,95}`,
    );
  }
  const kind = input.slice(0, input.indexOf(':'));
  if (!spec.kinds.includes(kind)) return fail(`${input} refers to a ${kind}; expected a ${expected}`);
  return pass(input);
}

// ---------------------------------------------------------------------------------------------
// Codec construction

interface Impl {
  check(input: unknown): Checked<unknown>;
  /** From a checked value to JSON; only bigints differ. */
  toJson(value: unknown): JsonValue;
}

const identity = (value: unknown) => value as JsonValue;

function implFor(spec: CodecSpec): Impl {
  switch (spec.type) {
    case 'text': {
      const pattern = spec.pattern === undefined ? undefined : new RegExp(`^(?:${spec.pattern})$`, 'u');
      return { check: (x) => checkText(x, spec, pattern), toJson: identity };
    }
    case 'integer':
      return {
        check: (x) => checkInteger(x, spec),
        toJson: (v) =>
          typeof v === 'bigint'
            ? v >= -MAX_SAFE && v <= MAX_SAFE
              ? Number(v)
              : v.toString()
            : (v as number),
      };
    case 'decimal':
      return { check: (x) => checkDecimal(x, spec), toJson: identity };
    case 'quantity':
      return { check: (x) => checkQuantity(x, spec), toJson: identity };
    case 'date':
      return { check: (x) => checkDate(x, spec), toJson: identity };
    case 'money':
      return { check: (x) => checkMoney(x, spec), toJson: identity };
    case 'currency':
      return { check: (x) => checkCurrency(x, spec), toJson: identity };
    case 'language':
      return { check: checkLanguage, toJson: identity };
    case 'doi':
      return { check: checkDoi, toJson: identity };
    case 'url':
      return { check: (x) => checkUrl(x, spec), toJson: identity };
    case 'enum':
      return { check: (x) => checkEnum(x, spec), toJson: identity };
    case 'ref':
      return { check: (x) => checkRef(x, spec), toJson: identity };
    case 'list':
      return listImpl(spec);
    case 'object':
      return objectImpl(spec.fields);
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function listImpl(spec: ListSpec): Impl {
  const item = implFor(spec.of);
  const range = `${spec.minItems ?? 0}–${spec.maxItems}`;
  return {
    check(input) {
      if (!Array.isArray(input)) return fail(`expected a list of ${range} items, got ${typeOf(input)}`);
      if (input.length > spec.maxItems) return fail(`at most ${spec.maxItems} items, got ${input.length}`);
      if (spec.minItems !== undefined && input.length < spec.minItems) {
        return fail(`at least ${spec.minItems} item${spec.minItems === 1 ? '' : 's'}, got ${input.length}`);
      }
      const issues: RawIssue[] = [];
      const values: unknown[] = [];
      input.forEach((x, i) => {
        const r = item.check(x);
        if (r.ok) values.push(r.value);
        else issues.push(...r.issues.map((e) => ({ ...e, path: [i, ...e.path] })));
      });
      if (issues.length) return { ok: false, issues };
      if (spec.unique) {
        const seen = new Map<string, number>();
        values.forEach((v, i) => {
          const key = canonicalJson(item.toJson(v));
          const first = seen.get(key);
          if (first !== undefined) issues.push({ path: [i], message: `item ${i} repeats item ${first}` });
          else seen.set(key, i);
        });
        if (issues.length) return { ok: false, issues };
      }
      return pass(values);
    },
    toJson: (v) => (v as unknown[]).map((x) => item.toJson(x)),
  };
}

const MAX_UNKNOWN_REPORTED = 20;

/** Checks a JSON object against named fields; shared by the `object` codec and records. */
export function objectImpl(fields: Readonly<Record<string, FieldSpec>>): Impl {
  const names = Object.keys(fields).sort();
  const impls = new Map(names.map((n) => [n, implFor(fields[n]!.codec)]));
  return {
    check(input) {
      if (!isPlainObject(input))
        return fail(`expected an object with fields ${names.join(', ')}, got ${typeOf(input)}`);
      const issues: RawIssue[] = [];
      const unknown = Object.keys(input)
        .filter((key) => !impls.has(key))
        .sort();
      for (const key of unknown.slice(0, MAX_UNKNOWN_REPORTED)) {
        issues.push({ path: [key], message: `unknown field "${key}" (fields: ${names.join(', ')})` });
      }
      if (unknown.length > MAX_UNKNOWN_REPORTED) {
        issues.push({ path: [], message: `${unknown.length - MAX_UNKNOWN_REPORTED} more unknown fields` });
      }
      const out: Record<string, unknown> = {};
      for (const name of names) {
        // Own properties only: a field named like an Object.prototype member must not see it.
        const value = Object.hasOwn(input, name) ? input[name] : undefined;
        if (value === undefined) {
          if (fields[name]!.required) issues.push({ path: [name], message: 'required' });
          continue;
        }
        if (value === null) {
          issues.push({ path: [name], message: 'null is not a value; leave an optional field out instead' });
          continue;
        }
        const r = impls.get(name)!.check(value);
        if (r.ok) out[name] = r.value;
        else issues.push(...r.issues.map((e) => ({ ...e, path: [name, ...e.path] })));
      }
      return issues.length ? { ok: false, issues } : pass(out);
    },
    toJson(v) {
      const value = v as Record<string, unknown>;
      const out: Record<string, JsonValue> = {};
      for (const name of names)
        if (value[name] !== undefined) out[name] = impls.get(name)!.toJson(value[name]);
      return out;
    },
  };
}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/**
 * Whether a JSON value nests deeper than `limit`. Checked before zod sees a document, so that a
 * hostile pack cannot exhaust the stack of the recursive spec schema.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Deep enough for a pack: kinds › kind › fields › field › codec, then nested lists and objects. */
export const MAX_JSON_DEPTH = 48;

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

function buildCodec<T>(spec: CodecSpec, impl: Impl, summary: string): Codec<T> {
  const validate = (input: unknown): CodecResult<T> => {
    const r = impl.check(input);
    return r.ok ? { ok: true, value: r.value as T } : { ok: false, errors: toIssues(r.issues) };
  };
  const orThrow = (input: unknown): T => {
    const r = validate(input);
    if (!r.ok)
      throw new ProfileError('invalid_input', `invalid ${summary}:\n${formatIssues(r.errors)}`, r.errors);
    return r.value;
  };
  return Object.freeze({
    spec,
    summary,
    validate,
    encode: (value: T) => impl.toJson(orThrow(value)),
    decode: orThrow,
  });
}

/**
 * The codec for a spec. The spec is checked first (unknown keys, bounds, units, currencies), so a
 * bad spec fails here, not on the first value.
 *
 * @example
 * const price = codec({ type: 'money', currencies: ['EUR', 'USD'] });
 * price.encode({ amount: '+012.50', currency: 'eur' }); // { amount: '12.50', currency: 'EUR' }
 * price.validate({ amount: 12.5, currency: 'EUR' }).ok; // false: floats are refused
 */
export function codec<const S extends CodecSpec>(spec: S): Codec<ValueOf<S>> {
  const checked = parseSpec(spec);
  return buildCodec(checked, implFor(checked), describeCodec(checked));
}

/** For specs already checked as part of a pack (their kind references resolved there). */
export function codecOfCheckedSpec(spec: CodecSpec): Codec<unknown> {
  return buildCodec(spec, implFor(spec), describeCodec(spec));
}

// ---------------------------------------------------------------------------------------------
// Summaries for people

function decimalLimits(s: DecimalOptions): string[] {
  const parts: string[] = [];
  if (s.maxScale !== undefined)
    parts.push(`at most ${s.maxScale} decimal place${s.maxScale === 1 ? '' : 's'}`);
  if (s.min !== undefined && s.max !== undefined) parts.push(`${s.min} to ${s.max}`);
  else if (s.min !== undefined) parts.push(`at least ${s.min}`);
  else if (s.max !== undefined) parts.push(`at most ${s.max}`);
  return parts;
}

const withLimits = (head: string, limits: string[]) =>
  limits.length ? `${head}, ${limits.join(', ')}` : head;

/**
 * A one-line description of a spec for people.
 *
 * @example
 * describeCodec({ type: 'list', of: { type: 'language' }, maxItems: 5 }) // 'list of up to 5 × BCP 47 language tag'
 */
export function describeCodec(spec: CodecSpec): string {
  switch (spec.type) {
    case 'text':
      return withLimits(`text, at most ${spec.maxLength} characters`, [
        ...(spec.minLength ? [`at least ${spec.minLength}`] : []),
        ...(spec.pattern ? [`matching ${spec.pattern}`] : []),
      ]);
    case 'integer': {
      const range =
        spec.min !== undefined && spec.max !== undefined
          ? [`${spec.min} to ${spec.max}`]
          : spec.min !== undefined
            ? [`at least ${spec.min}`]
            : spec.max !== undefined
              ? [`at most ${spec.max}`]
              : [];
      return withLimits(spec.big ? 'integer of any size (digits as a string past ±2^53)' : 'integer', range);
    }
    case 'decimal':
      return withLimits('exact decimal as a string (scale kept, e.g. "1.10")', decimalLimits(spec));
    case 'quantity':
      return withLimits(
        `quantity: exact decimal value + ${spec.units ? `unit (${spec.units.join(', ')})` : 'UCUM unit'}`,
        decimalLimits(spec),
      );
    case 'date':
      return spec.partial === false ? 'date YYYY-MM-DD' : 'date YYYY-MM-DD, YYYY-MM or YYYY';
    case 'money':
      return withLimits(
        `money: exact decimal amount + ${spec.currencies ? `currency (${spec.currencies.join(', ')})` : 'ISO 4217 currency'}`,
        decimalLimits(spec),
      );
    case 'currency':
      return spec.currencies ? `ISO 4217 currency (${spec.currencies.join(', ')})` : 'ISO 4217 currency code';
    case 'language':
      return 'BCP 47 language tag';
    case 'doi':
      return 'DOI (10.NNNN/suffix, stored lowercase)';
    case 'url':
      return 'http(s) URL';
    case 'enum':
      return `one of: ${spec.values.join(', ')}`;
    case 'ref':
      return `reference to a ${orList(spec.kinds)} (kind:slug)`;
    case 'list': {
      const count = spec.minItems ? `${spec.minItems}–${spec.maxItems}` : `up to ${spec.maxItems}`;
      return `list of ${count}${spec.unique ? ' distinct' : ''} × ${describeCodec(spec.of)}`;
    }
    case 'object':
      return `object { ${Object.keys(spec.fields)
        .sort()
        .map((n) => `${n}${spec.fields[n]!.required ? '' : '?'}: ${describeCodec(spec.fields[n]!.codec)}`)
        .join('; ')} }`;
  }
}
