// The public surface of @oh/memory, Oh's notebook store. What is not listed here is private to
// the package. Input schemas, limits and refusal reasons are Oh's schema entry's (@oh/schema).
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
  LogRange,
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
  ReviewedKnowledgeReader,
  ReviewedRecord,
  RevisionMark,
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
  PlainRow,
  Synchronous,
} from './db/index.ts';
export type { PurgerOptions } from './purger.ts';

export { MemoryError, isMemoryError, isUnavailable } from './errors.ts';
// For an application keeping tables of its own beside the store's (Sponge's reviewed knowledge):
// a driver or SQL error as the MemoryError the store would throw (`unavailable`, `integrity`…).
export { toMemoryError } from './errors.ts';
export { applyMigrations, checkpointWal, isLockError, openDatabase, readRow } from './db/index.ts';
// Reading libSQL cells with the type the schema guarantees, for an application's own tables too.
export { num, str, strOrNull } from './context.ts';
export {
  canonicalData,
  canonicalJson,
  kindOf,
  parseStoredData,
  parseStoredLinks,
  recordDigest,
  shortDigest,
} from './records.ts';
// Checking input as the store does: every problem named, one `invalid_input` MemoryError.
export { parseInput, parseRememberInput } from './validation.ts';
export { createMemoryStore } from './store.ts';
export { openPurger } from './purger.ts';
// The operator's `verify` command: replay every session's log, check what is derived, repair it.
export { openVerifier } from './verify/database.ts';
export type { MemoryVerifier, RepairReport, VerifierOptions } from './verify/database.ts';
export type { SessionVerification, VerifyFinding } from './verify/session.ts';
export type { RecallLag } from './verify/vectors.ts';

// Recall (SPEC §5): the rebuildable libSQL vector index over a session's notes. The embedding
// adapters it takes are @oh/embeddings'.
export { createRecallIndex } from './recall/index.ts';
export type {
  CatchUpSource,
  IndexReport,
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
