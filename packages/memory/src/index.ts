// The public surface of @oh/memory. What is not listed here is private to the package. Input
// schemas, limits and error reasons are the shared contract's (@sponge/contract).
export type {
  AgentContext,
  AppliedChange,
  Change,
  ErrorReason,
  ExplainInput,
  ExplainResult,
  JsonValue,
  Link,
  LinkRel,
  LogEntry,
  MemoryStore,
  MemoryStoreOptions,
  NoteView,
  OpenSessionInput,
  Preload,
  PurgeReport,
  Purger,
  QueryAnswer,
  QueryInput,
  QueryRow,
  RecallRecord,
  RecallResult,
  RecallRow,
  RecallToolInput,
  RecallToolMode,
  Question,
  ReadInput,
  ReadResult,
  RecordContent,
  RememberInput,
  RememberResult,
  ReviewDecision,
  ReviewDecisionInput,
  ReviewedKnowledge,
  ReviewedKnowledgeReader,
  ReviewedRecord,
  SessionInfo,
  SessionState,
  StoreOptions,
  VerifyReport,
} from './types.ts';
export type {
  DerivedMigration,
  DerivedTables,
  Migration,
  MigrationSettings,
  OpenDatabaseOptions,
  Synchronous,
} from './db/index.ts';
export type { PurgerOptions } from './purger.ts';
export type { ReviewedKnowledgeOptions } from './reviewed.ts';

export { MemoryError, isMemoryError, isUnavailable } from './errors.ts';
export { applyMigrations, checkpointWal, isLockError, openDatabase } from './db/index.ts';
export { canonicalJson, kindOf, recordDigest, shortDigest } from './records.ts';
export { createMemoryStore } from './store.ts';
export { createReviewedKnowledge, reviewDecisionInputSchema } from './reviewed.ts';
export { openPurger } from './purger.ts';
// The operator's `verify` command: replay every session's log, check what is derived, repair it.
export { openVerifier, verifyReviewed } from './verifier.ts';
export type { MemoryVerifier, RepairReport, ReviewedVerification, VerifierOptions } from './verifier.ts';
export type { RecallLag, SessionVerification, VerifyFinding } from './verify.ts';

// --- Vocabulary profiles (SPEC §7): value codecs, packs, the shipped Research/Language/Finance packs.
export {
  CODEC_TYPES,
  ProfileError,
  codec,
  createPack,
  currencyProblem,
  describeCodec,
  getPack,
  listPacks,
  loadPack,
  packDigest,
  packJson,
  previewPack,
  unitProblem,
  validateRecord,
} from './profiles/index.ts';
export type {
  Codec,
  CodecResult,
  CodecSpec,
  CodecType,
  CurrencySpec,
  DateSpec,
  DecimalSpec,
  DoiSpec,
  EnumSpec,
  FieldSpec,
  IntegerSpec,
  KindSpec,
  LanguageSpec,
  ListSpec,
  Money,
  MoneySpec,
  ObjectSpec,
  Pack,
  PackDefinition,
  PackExample,
  PackPreview,
  PackSummary,
  ProfileErrorReason,
  ProfileIssue,
  ProfileNormalization,
  Quantity,
  QuantitySpec,
  RecordResult,
  RefSpec,
  RelationSpec,
  TextSpec,
  UrlSpec,
  ValueOf,
} from './profiles/index.ts';

// ---- Recall (SPEC §5, issue 6): embedding adapters and the rebuildable libSQL vector index ----
export {
  EmbeddingError,
  MAX_EMBEDDING_DIMENSIONS,
  LOCAL_EMBEDDING_VERSION,
  NOTE_VECTORS_TABLE,
  RECALL_EVENTS_TABLE,
  RECALL_TABLES,
  RECALL_VECTOR_INDEX,
  RECALL_VECTOR_INDEX_SETTINGS,
  RENDER_MAX_CHARS,
  createCloudEmbeddingAdapter,
  createLocalEmbeddingAdapter,
  createRecallIndex,
  deleteRecallSessionData,
  parseRetryAfter,
  recallDeleteStatements,
  renderNote,
} from './recall/index.ts';
export type {
  CatchUpSource,
  HeaderSource,
  CloudEmbeddingOptions,
  EmbeddingAdapter,
  EmbeddingErrorCode,
  IndexReport,
  LocalEmbeddingOptions,
  RecallEvent,
  RecallEventInput,
  RecallEventMode,
  RecallHit,
  RecallIndex,
  RecallIndexOptions,
  RecallNote,
  RecallQueueOptions,
  RecallSearchOptions,
  RecallStatus,
} from './recall/index.ts';
