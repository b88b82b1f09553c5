/**
 * What a codec spec is: the JSON a pack carries for each field, the value each spec holds in code,
 * the `Codec` a spec turns into, and the limits every spec and value is held to.
 */
import type { JsonValue } from '@oh/schema';
import type { ProfileIssue, ProfileNormalization } from '../errors.ts';

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
/** The bounds and scale shared by the decimal-valued codecs: decimal, quantity and money. */
export interface DecimalOptions {
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

export type CodecResult<T> =
  { ok: true; value: T; normalized?: ProfileNormalization[] } | { ok: false; errors: ProfileIssue[] };

export interface Codec<T = unknown> {
  readonly spec: CodecSpec;
  /** A short description for people, e.g. `exact decimal, at most 2 decimal places`. */
  readonly summary: string;
  /**
   * Check any input; on success the value is in canonical form, and `normalized` says which
   * values were stored in another form than written, and why. Never throws.
   */
  validate(input: unknown): CodecResult<T>;
  /** The canonical JSON value. Throws `ProfileError` (`invalid_input`) for an invalid value. */
  encode(value: T): JsonValue;
  /** Back from JSON (canonical or not). Throws `ProfileError` (`invalid_input`) when invalid. */
  decode(json: unknown): T;
}

// ---------------------------------------------------------------------------------------------
// Limits

/** Bounds on specs and values, so that neither a pack nor a value can be made unboundedly costly. */
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
