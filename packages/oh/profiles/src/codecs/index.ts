/**
 * Value codecs: the types a profile's fields can hold. A codec is described by a JSON spec (so a
 * pack can carry it) and turns a spec into three functions: `validate` (any input → a checked
 * value or issues), `encode` (value → its canonical JSON form) and `decode` (JSON → value).
 *
 * Canonical forms are chosen so that equal values have byte-equal canonical JSON: decimals keep
 * their scale ("1.10" stays "1.10") but lose a `+` and leading zeros, DOIs are lowercased, URLs
 * are WHATWG-serialised, language tags take RFC 5646 casing, currency codes are uppercase.
 *
 * This is the folder's one entry. One file per family of codecs (text.ts, numbers.ts,
 * quantity.ts, money.ts, date.ts, language.ts, doi-url.ts), compound.ts for lists, objects and
 * the dispatch from a spec to its check, spec-schema.ts for what makes a spec valid.
 */
export { codec, codecOfCheckedSpec } from './codec.ts';
export { objectImpl } from './compound.ts';
export { describeCodec } from './describe.ts';
export { MAX_JSON_DEPTH, nestsDeeperThan } from './json.ts';
export { fieldsSchema, specIssues } from './spec-schema.ts';
export type {
  Codec,
  CodecResult,
  CodecSpec,
  CurrencySpec,
  DateSpec,
  DecimalSpec,
  DoiSpec,
  EnumSpec,
  FieldSpec,
  IntegerSpec,
  LanguageSpec,
  ListSpec,
  Money,
  MoneySpec,
  ObjectSpec,
  Quantity,
  QuantitySpec,
  RefSpec,
  TextSpec,
  UrlSpec,
  ValueOf,
} from './spec.ts';
