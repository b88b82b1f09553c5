/**
 * The public contract of the working-memory store (SPEC §3–§5, §8, §9).
 *
 * Everything here is JSON-safe (ISO strings, numbers, plain objects) so the API can hand it to
 * tRPC without a transformer. The API builds against these types; the store implements them.
 */

import type { Change, JsonValue, Link, QueryRow, Question } from '@oh/schema';
import type { EmbeddingAdapter } from '@oh/embeddings';

// The record vocabulary, question menu and error reasons are the shared contract's; the store
// implements them.
export { ERROR_REASONS, QUESTIONS } from '@oh/schema';
export type { Change, ErrorReason, JsonValue, Link, LinkRel, Question, QueryRow } from '@oh/schema';

/** The content every record (note or reviewed) is digested over (SPEC §3). */
export interface RecordContent {
  kind: string;
  name: string;
  text: string;
  data: JsonValue | null;
  links: Link[];
}

export interface RememberInput {
  basedOn: number;
  /** 1..128 chars of `[A-Za-z0-9._:-]`. */
  requestId: string;
  /** 1..64 changes, each naming a distinct note. */
  changes: Change[];
}

export interface AppliedChange {
  op: Change['op'];
  name: string;
  /** `null` for a removed note. */
  digest: string | null;
}

export interface RememberResult {
  version: number;
  applied: AppliedChange[];
  /** true when this is the stored result of an earlier identical call with the same request id. */
  replayed: boolean;
}

/**
 * Who is calling the session-scoped operations. The API derives it from the run token; the
 * store never takes author or time from a tool's input.
 */
export interface AgentContext {
  sessionId: string;
  /** The run's agent identity, recorded as the author of every change. */
  author: string;
}

/** Stored states plus `expired`, which is judged by the clock (open and past `expiresAt`). */
export type SessionState = 'opening' | 'open' | 'expired' | 'forgotten' | 'purged' | 'empty';

export interface SessionInfo {
  id: string;
  ownerId: string;
  documentId: string;
  runId: string;
  state: SessionState;
  version: number;
  pinnedRevision: number;
  startedAt: string;
  /** startedAt + TTL; the panel calls it `forgetsAt`. */
  expiresAt: string;
  forgottenAt: string | null;
  purgedAt: string | null;
  noteCount: number;
}

export interface OpenSessionInput {
  /** Optional caller-chosen id (the API uses random ids); one is generated when absent. */
  id?: string;
  ownerId: string;
  documentId: string;
  runId: string;
  /** The document's newest reviewed revision at open; the session sees exactly this revision. */
  pinnedRevision: number;
}

export interface QueryInput {
  question: Question;
  /** Required for related_to and supports. */
  name?: string;
  /** Required for changed_since. */
  sinceVersion?: number;
  /** 1..100, default 24. */
  limit?: number;
  /** Opaque, from an earlier answer's nextCursor; pages stay at that answer's version. */
  cursor?: string;
}

export interface QueryAnswer {
  answerId: string;
  version: number;
  pinnedRevision: number;
  rows: QueryRow[];
  nextCursor: string | null;
  explainToken: string;
  explainExpiresAt: string;
}

export interface ExplainInput {
  token: string;
  row: number;
}

export interface ExplainResult {
  row: number;
  name: string;
  source: 'note' | 'reviewed';
  question: Question;
  /** A sentence for a person: why this row came back at the answer's version. */
  reason: string;
  /** The chain that led to the row, e.g. `['lead:a', 'supports', 'finding:b']`. */
  path: string[];
  basis: { version: number; pinnedRevision: number };
}

export interface ReadInput {
  name: string;
  source?: 'note' | 'reviewed';
  /** When given and the record's digest differs: `stale_digest`. */
  digest?: string;
}

export interface ReadResult {
  source: 'note' | 'reviewed';
  kind: string;
  name: string;
  text: string;
  data: JsonValue | null;
  links: Link[];
  digest: string;
  /** Set for notes: the memory version of the note's latest change. */
  version?: number;
  /** Set for reviewed records: the revision the session is pinned at. */
  revision?: number;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export interface Preload {
  rows: QueryRow[];
  truncated: boolean;
}

/** A working note with content, for the owner's panel. */
export interface NoteView {
  kind: string;
  name: string;
  digest: string;
  text: string;
  data: JsonValue | null;
  links: Link[];
  author: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** One applied remember call, for transcript cards (derived from the log when read). */
export interface LogEntry {
  version: number;
  requestId: string;
  author: string;
  at: string;
  applied: AppliedChange[];
}

/** Log entries by version: after `afterVersion` (default: from the first) up to `upToVersion` (default: the last). */
export interface LogRange {
  afterVersion?: number;
  upToVersion?: number;
}

export interface VerifyReport {
  ok: boolean;
  sessionId: string;
  version: number;
  logEntries: number;
  notes: number;
  /** Names whose replayed digest differs from the stored note (or that exist on one side only). */
  mismatches: Array<{ name: string; replayed: string | null; stored: string | null }>;
  /** Structural findings for a person (a gap in the log's versions, a wrong note count…). */
  problems?: string[];
}

/** A reviewed record as a session sees it at its pinned revision. */
export interface ReviewedRecord extends RecordContent {
  digest: string;
  documentId: string;
  /** The revision at which this content was accepted. */
  revision: number;
  sourceDocumentId: string;
  passage: string;
  reviewerId: string;
  decisionId: string;
  comment: string;
  createdAt: string;
  /**
   * What corrects or retracts this record at this revision; empty when nothing does. The
   * `ReviewedKnowledgeReader` fills it (what a correction is, is the application's rule); the
   * store turns marks into conflicts (reviewed-marks.ts) and a missing list into an empty one.
   */
  marks?: RevisionMark[];
}

/**
 * How a correction or a retraction in view touches a reviewed record (issue 18). The record
 * itself is never replaced: it stays in view as accepted, with this mark.
 */
export interface RevisionMark {
  /**
   * `corrected` / `retracted`: `target` is corrected or retracted by `by`, and this record is
   * `target` or depends on it; `corrects`: this record is the correction `by` of `target`.
   */
  reason: 'corrected' | 'retracted' | 'corrects';
  /** The correction record, or the publication retracted by its own status. */
  by: string;
  /** The record corrected or retracted. */
  target: string;
  /** This record, then each record its depends_on links lead through, ending at `target`. */
  path: string[];
}

/**
 * Read-only access to a document's reviewed knowledge, as of one revision: what the store needs
 * of it, implemented by the application that keeps it (Sponge, over its application database).
 * A revision never changes once it exists, so the store caches what `recordsAt` returns for it.
 */
export interface ReviewedKnowledgeReader {
  /** The newest revision of a document's reviewed knowledge (0 when there is none). */
  latestRevision(documentId: string): Promise<number>;
  /**
   * Every record in view at `revision`, ordered by name, each with its `marks`: the corrections
   * and retractions touching it at that revision, as the reader's rules decide them. The store
   * does not compute marks; it shows the conflicts the returned ones make.
   */
  recordsAt(documentId: string, revision: number): Promise<ReviewedRecord[]>;
}

export interface PurgeReport {
  purgedSessions: number;
  deletedRows: number;
  emptiedSessions: number;
}

/** Options shared by the factories: where the database is and how time is told. */
export interface StoreOptions {
  /** `file:/path/memory.db` (default embedded), `libsql://…`, `http(s)://…` or `:memory:`. */
  url: string;
  authToken?: string;
  /** Injected clock, for tests of expiry; defaults to `() => new Date()`. */
  now?: () => Date;
  /**
   * An embedded file's `synchronous`: FULL (default) makes every acknowledged change survive a
   * power loss; NORMAL may lose the last commits on power loss (never on a process crash).
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** 'worker': the embedded file's SQLite calls run on a thread of their own (see openDatabase). */
  thread?: 'main' | 'worker';
}

export interface MemoryStoreOptions extends StoreOptions {
  /** Signs explain tokens and cursors (HMAC-SHA256); at least 32 characters. */
  tokenSecret: string;
  /** Session TTL, default 86,400 s. */
  sessionTtlSeconds?: number;
  /** Explain token TTL, default 600 s (at most 600). */
  explainTtlSeconds?: number;
  /** Where the reviewed records in view come from (the application database). */
  reviewed: ReviewedKnowledgeReader;
  /**
   * Fuzzy recall (SPEC §5). When given, notes are embedded in the background after each remember
   * (never making it fail or wait) and `recall` searches them; without it `recall` answers no rows.
   */
  recall?: {
    adapter: EmbeddingAdapter;
    /**
     * Where background recall work reports its failures (never with note text): a batch given up,
     * a stale vector that could not be deleted. A process warning by default.
     */
    onBackgroundError?: BackgroundErrorListener;
  };
}

/** Told of a failure of background recall work: a session's batch, a retry, or giving up. */
export type BackgroundErrorListener = (
  error: unknown,
  info: { sessionId: string; attempt: number; gaveUp: boolean },
) => void;

export type RecallToolMode = 'shadow' | 'live' | 'off';

export interface RecallToolInput {
  /** 1..4,000 characters. */
  text: string;
  /** 1..50, default 10. */
  limit?: number;
}

export interface RecallRow {
  name: string;
  digest: string;
  /** Cosine similarity, −1..1. */
  score: number;
}

/**
 * What the store's recall answers: rows (names, digests and scores) only in live, none in
 * shadow/off; and how many similar notes the index `found` (the rows' number in live, 0 when
 * nothing was computed), for the host's record of the call. An agent tool in shadow mode passes
 * `mode` and `rows` on, never `found`: the agent is not to learn what recall would have shown.
 */
export type RecallResult =
  { mode: 'off' | 'shadow'; rows: []; found: number } | { mode: 'live'; rows: RecallRow[]; found: number };

/** One recorded recall, for the owner's panel: names, digests and scores, never text. */
export interface RecallRecord {
  at: string;
  mode: 'shadow' | 'live';
  results: RecallRow[];
}

/**
 * The working-memory store. Session-scoped calls take an `AgentContext` the API built from the
 * run token; every one of them answers `session_closed` unless the session is open and unexpired.
 */
export interface MemoryStore {
  openSession(input: OpenSessionInput): Promise<SessionInfo>;
  /** `null` when no such session exists. State `expired` is judged by the store's clock. */
  getSession(sessionId: string): Promise<SessionInfo | null>;
  /** A document's sessions, newest first. */
  listSessions(documentId: string): Promise<SessionInfo[]>;
  /** Several sessions at once (runs lists), keyed by id; unknown ids are left out. */
  getSessions(sessionIds: string[]): Promise<Map<string, SessionInfo>>;
  /** Forget now: notes, log, recall data and vectors go at once; a content-free tombstone stays. */
  forget(sessionId: string): Promise<SessionInfo>;

  remember(ctx: AgentContext, input: RememberInput): Promise<RememberResult>;
  query(ctx: AgentContext, input: QueryInput): Promise<QueryAnswer>;
  read(ctx: AgentContext, input: ReadInput): Promise<ReadResult>;
  explain(ctx: AgentContext, input: ExplainInput): Promise<ExplainResult>;
  /**
   * Fuzzy recall over the session's notes. `off` computes nothing; `shadow` computes, records the
   * result for the owner and returns no rows; `live` returns `{name, digest, score}` rows. Both
   * say how many the index `found`, which the agent must not be shown in shadow.
   */
  recall(ctx: AgentContext, input: RecallToolInput, mode: RecallToolMode): Promise<RecallResult>;
  /** The session's recorded recalls, newest first (empty without recall or once forgotten). */
  recentRecalls(sessionId: string, limit?: number): Promise<RecallRecord[]>;
  /**
   * Runs background recall indexing now until nothing is queued or in flight (ignoring retry
   * backoff), so a caller can look at the vectors knowing no write is still on its way. Resolves
   * with the notes still queued after a failed attempt; 0 without recall.
   */
  drainRecall(): Promise<number>;
  /** `current_notes` on the agent's behalf: ≤ 24 rows and ≤ 4,000 characters of rows. */
  preload(ctx: AgentContext): Promise<Preload>;

  /** Owner views (the API checks ownership first). They work on closed sessions too. */
  notes(sessionId: string): Promise<NoteView[]>;
  reviewedInView(sessionId: string): Promise<ReviewedRecord[]>;
  /** The session's log, oldest first; with a range, only the entries in it. */
  log(sessionId: string, range?: LogRange): Promise<LogEntry[]>;

  /** Replay the log and compare it, digest by digest, with the current notes. */
  verify(sessionId: string): Promise<VerifyReport>;
  close(): void;
}

/** The purge worker's whole surface (SPEC §8): it cannot open or reopen a session. */
export interface Purger {
  /** One pass: purge expired and forgotten sessions, mark stale `opening` sessions `empty`. */
  purgeOnce(options?: { chunkSize?: number }): Promise<PurgeReport>;
  close(): void;
}
