// The public surface of @oh/profiles, Oh's open research profile (SPEC §7): RFC 8785 canonical
// JSON, the pack format, the value codecs, and the shipped Research, Language and Finance packs.
export { CanonicalJsonError, canonicalJson } from './canonical-json.ts';
export { codec } from './codecs/index.ts';
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
} from './codecs/index.ts';
export { ProfileError } from './errors.ts';
export type { ProfileErrorReason, ProfileIssue, ProfileNormalization } from './errors.ts';
export { createPack, loadPack, packJson, validateRecord } from './pack.ts';
export type { KindSpec, Pack, PackDefinition, PackExample, RecordResult, RelationSpec } from './pack.ts';
export { getPack, listPacks, previewPack } from './registry.ts';
export type { PackPreview, PackSummary } from './registry.ts';
