/**
 * The recall index: one vector per (session, note), kept with the note's digest in the memory
 * database (a libSQL `F32_BLOB(N)` column), searched with libSQL's `vector_distance_cos`.
 *
 * Invariants
 *   - Only `(session_id, name, digest, model, embedding, indexed_at)` is stored; the note's text is
 *     rendered in memory to compute the vector and never written. `recall_events` keeps a query's
 *     SHA-256 and the `{name, digest, score}` results, never the query or note text.
 *   - Every stored vector was computed from the note content that has the stored digest, so a row
 *     is never wrong, only possibly stale. `search` returns a row only when its digest is the
 *     caller's current digest for that name and its model is this adapter's id.
 *   - The index is derived data: `rebuild` recreates a session's vectors from its notes,
 *     `catchUp` repairs whatever is missing, stale or orphaned.
 *   - Background indexing (`indexLater`) never throws: failures are retried in process with
 *     exponential backoff; after `maxAttempts` the session is marked for catch-up.
 *   - `deleteSession` cancels queued work for the session and makes in-flight writes for it void
 *     before deleting its rows, so a forgotten session cannot get vectors back from this process.
 */
import { createHash } from 'node:crypto';
import type { Client, InStatement, ResultSet } from '@libsql/client';
import { EmbeddingError } from './adapter.ts';
import type { EmbeddingAdapter } from './adapter.ts';
import { renderNote } from './render.ts';
import type { RecallNote } from './render.ts';

export const NOTE_VECTORS_TABLE = 'note_vectors';
export const RECALL_EVENTS_TABLE = 'recall_events';
/** Every table holding per-session recall data (all keyed by `session_id`). */
export const RECALL_TABLES = [NOTE_VECTORS_TABLE, RECALL_EVENTS_TABLE] as const;
/** The optional libSQL DiskANN index over `note_vectors.embedding` (see `vectorIndex`). */
export const RECALL_VECTOR_INDEX = 'note_vectors_ann';
/** DiskANN settings: compressed neighbours keep writes ~4 ms and the index ~20 KB per row. */
export const RECALL_VECTOR_INDEX_SETTINGS = [
  'metric=cosine',
  'compress_neighbors=float8',
  'max_neighbors=32',
];

export interface RecallHit {
  name: string;
  digest: string;
  /** Cosine similarity, −1..1 (rounded to 6 decimals). */
  score: number;
}

export interface RecallSearchOptions {
  /** 1..200; 10 by default. */
  limit?: number;
  /** The session's notes as they are now: name → digest. A name absent here is never returned. */
  currentDigests: ReadonlyMap<string, string>;
}

export type RecallEventMode = 'shadow' | 'live';

export interface RecallEventInput {
  mode: RecallEventMode;
  /** The query text; only its SHA-256 is stored. Give this or `queryDigest`. */
  text?: string;
  queryDigest?: string;
  results: RecallHit[];
  at?: Date;
}

export interface RecallEvent {
  at: string;
  queryDigest: string;
  mode: RecallEventMode;
  /** The adapter id the results were computed with. */
  model: string;
  results: RecallHit[];
}

/** Where `catchUp` gets notes: all of them, or the current digests plus a loader for the few it needs. */
export type CatchUpSource =
  RecallNote[] | { digests: ReadonlyMap<string, string>; load(names: string[]): Promise<RecallNote[]> };

export interface RecallStatus {
  /** Current notes whose vector is stored under this adapter and their current digest. */
  indexed: number;
  /** Current notes with no usable vector (none, stale digest, or another model). */
  missing: number;
  /** Stored vectors whose note is gone. */
  orphaned: number;
  /** Notes queued by `indexLater` for this session. */
  pending: number;
  /** Background indexing overflowed or gave up: run `catchUp`. */
  needsCatchUp: boolean;
}

export interface RecallQueueOptions {
  /** Notes queued across all sessions before new ones are refused (and the session marked for catch-up). 5,000 by default. */
  maxPending?: number;
  /** Attempts per batch before giving up (the session is then marked for catch-up). 6 by default. */
  maxAttempts?: number;
  /** First retry delay; 1 s by default, doubling with full jitter. */
  baseDelayMs?: number;
  /** Largest retry delay; 60 s by default. */
  maxDelayMs?: number;
  /** Notes embedded per background batch; 256 by default. */
  batchSize?: number;
}

export interface RecallIndexOptions {
  /** The memory database's client. The index creates its own tables in it. */
  client: Client;
  adapter: EmbeddingAdapter;
  /**
   * Also create a libSQL DiskANN vector index and try `vector_top_k` first (falling back to the
   * exact scan when it yields too few rows of the session). Off by default: the index is global
   * (it cannot be restricted to one session), makes every write several times slower and the
   * database many times larger, while the exact per-session scan is already fast at the
   * 10,000-notes-per-session cap. See the benchmark.
   */
  vectorIndex?: boolean;
  queue?: RecallQueueOptions;
  /** Recall events kept per session (oldest pruned); 200 by default. */
  eventsPerSession?: number;
  /**
   * Called when background indexing fails (never with note text). By default a warning is logged
   * when a session's batch is given up.
   */
  onBackgroundError?: (error: unknown, info: { sessionId: string; attempt: number; gaveUp: boolean }) => void;
  now?: () => Date;
}

export interface IndexReport {
  /** Vectors written. */
  indexed: number;
  /** Notes whose stored vector already had this digest and model. */
  unchanged: number;
  /** Vectors not written because the session was deleted or rebuilt meanwhile. */
  discarded: number;
}

export interface RecallIndex {
  readonly adapter: EmbeddingAdapter;
  /** Creates the tables (idempotent; every method awaits it). */
  init(): Promise<void>;
  /** Embeds and upserts the given notes (skipping those already indexed at this digest). */
  index(sessionId: string, notes: RecallNote[]): Promise<IndexReport>;
  /** Deletes the vectors of these names and cancels their queued indexing. */
  remove(sessionId: string, names: string[]): Promise<void>;
  search(sessionId: string, text: string, options: RecallSearchOptions): Promise<RecallHit[]>;
  /**
   * Replaces the session's vectors with vectors of exactly these notes (embedded first: a failure
   * changes nothing). `discarded` when the session was deleted or rebuilt again meanwhile.
   */
  rebuild(sessionId: string, notes: RecallNote[]): Promise<{ indexed: number; discarded: boolean }>;
  /** Deletes every vector and recall event of the session and cancels its queued work. */
  deleteSession(sessionId: string): Promise<{ vectors: number; events: number }>;
  recordRecall(sessionId: string, event: RecallEventInput): Promise<void>;
  /** Newest first. */
  recentRecalls(sessionId: string, limit?: number): Promise<RecallEvent[]>;
  /** Queues notes for background indexing and returns at once; never throws. */
  indexLater(sessionId: string, notes: RecallNote[]): void;
  /** Indexes what is missing or stale and deletes orphaned vectors. */
  catchUp(sessionId: string, source: CatchUpSource): Promise<{ indexed: number; removed: number }>;
  status(sessionId: string, currentDigests: ReadonlyMap<string, string>): Promise<RecallStatus>;
  /** Notes waiting in the background queue (for one session, or all). */
  pending(sessionId?: string): number;
  /** Runs every queued batch now (ignoring backoff) until the queue is empty or an attempt fails; returns what is left. */
  drain(): Promise<number>;
  /** Stops background work (queued notes are dropped and their sessions marked for catch-up). */
  close(): void;
}

interface SessionQueue {
  notes: Map<string, RecallNote>;
  attempts: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  running: Promise<void> | undefined;
}

const SEARCH_LIMIT_MAX = 200;

export function createRecallIndex(options: RecallIndexOptions): RecallIndex {
  const { client, adapter } = options;
  const dims = adapter.dimensions;
  const model = adapter.id;
  const useAnn = options.vectorIndex ?? false;
  const now = options.now ?? (() => new Date());
  const eventsPerSession = options.eventsPerSession ?? 200;
  const maxPending = options.queue?.maxPending ?? 5_000;
  const maxAttempts = options.queue?.maxAttempts ?? 6;
  const baseDelayMs = options.queue?.baseDelayMs ?? 1_000;
  const maxDelayMs = options.queue?.maxDelayMs ?? 60_000;
  const queueBatch = options.queue?.batchSize ?? 256;
  const onBackgroundError =
    options.onBackgroundError ??
    ((error: unknown, info: { sessionId: string; attempt: number; gaveUp: boolean }) => {
      if (!info.gaveUp) return;
      const message = error instanceof Error ? error.message : String(error);
      console.warn(
        `recall: background indexing for session ${info.sessionId} gave up after ${info.attempt} attempts: ${message}`,
      );
    });

  let ready: Promise<void> | undefined;
  let closed = false;
  const queues = new Map<string, SessionQueue>();
  const needsCatchUp = new Set<string>();

  // Epochs make in-flight writes void after deleteSession/rebuild. Values are unique (a global
  // counter) and an entry is dropped once no operation of the session is in flight.
  let epochCounter = 0;
  const epochs = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const epochOf = (s: string): number => epochs.get(s) ?? 0;
  const bump = (s: string): void => {
    // Nothing in flight means nothing to invalidate (and no entry to leak).
    if (inFlight.has(s)) epochs.set(s, ++epochCounter);
  };
  const enter = (s: string): number => {
    inFlight.set(s, (inFlight.get(s) ?? 0) + 1);
    return epochOf(s);
  };
  const leave = (s: string): void => {
    const n = (inFlight.get(s) ?? 1) - 1;
    if (n > 0) inFlight.set(s, n);
    else {
      inFlight.delete(s);
      epochs.delete(s);
    }
  };

  function init(): Promise<void> {
    ready ??= migrate().catch((err: unknown) => {
      ready = undefined;
      throw err;
    });
    return ready;
  }

  async function migrate(): Promise<void> {
    const info = await client.execute(`PRAGMA table_info(${NOTE_VECTORS_TABLE})`);
    if (info.rows.length > 0) {
      const embedding = info.rows.find((r) => r.name === 'embedding');
      const type = String(embedding?.type ?? '')
        .replace(/\s+/g, '')
        .toUpperCase();
      const hasModel = info.rows.some((r) => r.name === 'model');
      // Another dimension means another column type: vectors are derived data, so start over
      // (catchUp/rebuild refill them).
      if (type !== `F32_BLOB(${dims})` || !hasModel) await client.execute(`DROP TABLE ${NOTE_VECTORS_TABLE}`);
    }
    const stmts: string[] = [
      `CREATE TABLE IF NOT EXISTS ${NOTE_VECTORS_TABLE} (
        session_id TEXT NOT NULL,
        name TEXT NOT NULL,
        digest TEXT NOT NULL,
        model TEXT NOT NULL,
        embedding F32_BLOB(${dims}) NOT NULL,
        indexed_at TEXT NOT NULL,
        PRIMARY KEY (session_id, name)
      )`,
      `CREATE TABLE IF NOT EXISTS ${RECALL_EVENTS_TABLE} (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        at TEXT NOT NULL,
        query_digest TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('shadow', 'live')),
        model TEXT NOT NULL,
        results TEXT NOT NULL CHECK (json_valid(results))
      )`,
      `CREATE INDEX IF NOT EXISTS ${RECALL_EVENTS_TABLE}_by_session ON ${RECALL_EVENTS_TABLE} (session_id, id)`,
    ];
    if (useAnn) {
      const settings = RECALL_VECTOR_INDEX_SETTINGS.map((s) => `'${s}'`).join(', ');
      stmts.push(
        `CREATE INDEX IF NOT EXISTS ${RECALL_VECTOR_INDEX} ON ${NOTE_VECTORS_TABLE} (libsql_vector_idx(embedding, ${settings}))`,
      );
    }
    await client.batch(stmts, 'write');
  }

  async function embed(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const vectors = await adapter.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new EmbeddingError(
        'bad_response',
        `embedding adapter ${model} returned ${vectors?.length} vectors for ${texts.length} texts`,
      );
    }
    for (const v of vectors) {
      if (!(v instanceof Float32Array) || v.length !== dims) {
        throw new EmbeddingError(
          'dimension_mismatch',
          `embedding adapter ${model} returned a vector of length ${v?.length}, expected ${dims}`,
        );
      }
      for (let i = 0; i < v.length; i++) {
        if (!Number.isFinite(v[i]!))
          throw new EmbeddingError('bad_response', `embedding adapter ${model} returned a non-finite value`);
      }
    }
    return vectors;
  }

  function upsert(sessionId: string, note: RecallNote, vector: Float32Array, at: string): InStatement {
    return {
      sql: `INSERT INTO ${NOTE_VECTORS_TABLE} (session_id, name, digest, model, embedding, indexed_at)
            VALUES (?, ?, ?, ?, vector32(?), ?)
            ON CONFLICT (session_id, name) DO UPDATE SET
              digest = excluded.digest, model = excluded.model,
              embedding = excluded.embedding, indexed_at = excluded.indexed_at`,
      args: [sessionId, note.name, note.digest, model, blob(vector), at],
    };
  }

  async function storedRows(
    sessionId: string,
    names?: string[],
  ): Promise<Map<string, { digest: string; model: string }>> {
    const rs =
      names === undefined
        ? await client.execute({
            sql: `SELECT name, digest, model FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?`,
            args: [sessionId],
          })
        : await client.execute({
            sql: `SELECT name, digest, model FROM ${NOTE_VECTORS_TABLE}
                  WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
            args: [sessionId, JSON.stringify(names)],
          });
    const out = new Map<string, { digest: string; model: string }>();
    for (const r of rs.rows) out.set(String(r.name), { digest: String(r.digest), model: String(r.model) });
    return out;
  }

  async function index(sessionId: string, notes: RecallNote[]): Promise<IndexReport> {
    checkSession(sessionId);
    const unique = dedupe(notes);
    if (unique.size === 0) return { indexed: 0, unchanged: 0, discarded: 0 };
    await init();
    const epoch = enter(sessionId);
    try {
      const stored = await storedRows(sessionId, [...unique.keys()]);
      const todo = [...unique.values()].filter((n) => {
        const row = stored.get(n.name);
        return row === undefined || row.digest !== n.digest || row.model !== model;
      });
      const unchanged = unique.size - todo.length;
      if (todo.length === 0) return { indexed: 0, unchanged, discarded: 0 };
      const vectors = await embed(todo.map(renderNote));
      // Checked right before the write is issued: deleteSession/rebuild bump the epoch first.
      if (epochOf(sessionId) !== epoch) return { indexed: 0, unchanged, discarded: todo.length };
      const at = now().toISOString();
      await client.batch(
        todo.map((n, i) => upsert(sessionId, n, vectors[i]!, at)),
        'write',
      );
      return { indexed: todo.length, unchanged, discarded: 0 };
    } finally {
      leave(sessionId);
    }
  }

  async function remove(sessionId: string, names: string[]): Promise<void> {
    checkSession(sessionId);
    const q = queues.get(sessionId);
    if (q) for (const name of names) q.notes.delete(name);
    if (names.length === 0) return;
    await init();
    await client.execute({
      sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
      args: [sessionId, JSON.stringify(names)],
    });
  }

  async function search(sessionId: string, text: string, opts: RecallSearchOptions): Promise<RecallHit[]> {
    checkSession(sessionId);
    if (typeof text !== 'string') throw new TypeError('recall: search text must be a string');
    const limit = opts.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
      throw new RangeError(`recall: limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
    }
    const current = opts.currentDigests;
    if (!(current instanceof Map))
      throw new TypeError('recall: currentDigests (a Map of name → digest) is required');
    if (current.size === 0 || text.trim() === '') return [];
    await init();
    const [query] = await embed([text]);
    if (query === undefined || isZero(query)) return [];
    const q = blob(query);

    const keep = (rows: ResultSet['rows']): RecallHit[] => {
      const hits: RecallHit[] = [];
      for (const r of rows) {
        const name = String(r.name);
        const digest = String(r.digest);
        if (current.get(name) !== digest) continue; // stale or removed: never returned
        hits.push({ name, digest, score: Math.round((1 - Number(r.d)) * 1e6) / 1e6 });
        if (hits.length === limit) break;
      }
      return hits;
    };

    if (useAnn) {
      const k = Math.min(Math.max(limit * 10, 100), 2_000);
      try {
        const rs = await client.execute({
          sql: `SELECT name, digest, d FROM (
                  SELECT v.name AS name, v.digest AS digest,
                         vector_distance_cos(v.embedding, vector32(?1)) AS d
                  FROM vector_top_k('${RECALL_VECTOR_INDEX}', vector32(?1), ?4) AS t
                  JOIN ${NOTE_VECTORS_TABLE} AS v ON v.rowid = t.id
                  WHERE v.session_id = ?2 AND v.model = ?3)
                WHERE d IS NOT NULL ORDER BY d, name`,
          args: [q, sessionId, model, k],
        });
        const hits = keep(rs.rows);
        if (hits.length === limit) return hits;
      } catch {
        // The index is missing or unusable: the exact scan below is always correct.
      }
    }

    // Exact scan of the session's vectors, best first. Stale rows are skipped in JS, so fetch a
    // margin and widen the page in the rare case that many of the best rows are stale.
    for (let page = limit + 32; ; page *= 4) {
      const rs = await client.execute({
        sql: `SELECT name, digest, d FROM (
                SELECT name, digest, vector_distance_cos(embedding, vector32(?1)) AS d
                FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?2 AND model = ?3)
              WHERE d IS NOT NULL ORDER BY d, name LIMIT ?4`,
        args: [q, sessionId, model, page],
      });
      const hits = keep(rs.rows);
      if (hits.length === limit || rs.rows.length < page) return hits;
    }
  }

  async function rebuild(
    sessionId: string,
    notes: RecallNote[],
  ): Promise<{ indexed: number; discarded: boolean }> {
    checkSession(sessionId);
    const unique = dedupe(notes);
    await init();
    const epoch = enter(sessionId);
    try {
      const list = [...unique.values()];
      const vectors = await embed(list.map(renderNote));
      // Deleted or rebuilt again while embedding: the later call wins.
      if (epochOf(sessionId) !== epoch) return { indexed: 0, discarded: true };
      bump(sessionId); // earlier in-flight writes for this session are void from here on
      const q = queues.get(sessionId);
      if (q) for (const n of list) if (q.notes.get(n.name)?.digest === n.digest) q.notes.delete(n.name);
      const at = now().toISOString();
      await client.batch(
        [
          { sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?`, args: [sessionId] },
          ...list.map((n, i) => upsert(sessionId, n, vectors[i]!, at)),
        ],
        'write',
      );
      needsCatchUp.delete(sessionId);
      return { indexed: list.length, discarded: false };
    } finally {
      leave(sessionId);
    }
  }

  async function deleteSession(sessionId: string): Promise<{ vectors: number; events: number }> {
    checkSession(sessionId);
    bump(sessionId);
    const q = queues.get(sessionId);
    if (q) {
      q.notes.clear();
      if (q.timer) clearTimeout(q.timer);
      q.timer = undefined;
      if (!q.running) queues.delete(sessionId);
    }
    needsCatchUp.delete(sessionId);
    await init();
    const [v, e] = await client.batch(
      [
        { sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?`, args: [sessionId] },
        { sql: `DELETE FROM ${RECALL_EVENTS_TABLE} WHERE session_id = ?`, args: [sessionId] },
      ],
      'write',
    );
    return { vectors: v?.rowsAffected ?? 0, events: e?.rowsAffected ?? 0 };
  }

  async function recordRecall(sessionId: string, event: RecallEventInput): Promise<void> {
    checkSession(sessionId);
    if (event.mode !== 'shadow' && event.mode !== 'live')
      throw new TypeError('recall: event mode must be shadow or live');
    let queryDigest: string;
    if (typeof event.text === 'string') queryDigest = sha256(event.text.normalize('NFC'));
    else if (typeof event.queryDigest === 'string' && event.queryDigest !== '')
      queryDigest = event.queryDigest;
    else throw new TypeError('recall: an event needs the query text or its digest');
    if (!Array.isArray(event.results)) throw new TypeError('recall: event results must be an array');
    // Copy only the three fields: whatever else a caller put on a hit is never stored.
    const results = event.results.map((h) => ({
      name: String(h.name),
      digest: String(h.digest),
      score: Number(h.score),
    }));
    await init();
    await client.batch(
      [
        {
          sql: `INSERT INTO ${RECALL_EVENTS_TABLE} (session_id, at, query_digest, mode, model, results) VALUES (?, ?, ?, ?, ?, ?)`,
          args: [
            sessionId,
            (event.at ?? now()).toISOString(),
            queryDigest,
            event.mode,
            model,
            JSON.stringify(results),
          ],
        },
        {
          sql: `DELETE FROM ${RECALL_EVENTS_TABLE} WHERE session_id = ?1 AND id NOT IN (
                  SELECT id FROM ${RECALL_EVENTS_TABLE} WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2)`,
          args: [sessionId, eventsPerSession],
        },
      ],
      'write',
    );
  }

  async function recentRecalls(sessionId: string, limit = 20): Promise<RecallEvent[]> {
    checkSession(sessionId);
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError('recall: limit must be a positive integer');
    await init();
    const rs = await client.execute({
      sql: `SELECT at, query_digest, mode, model, results FROM ${RECALL_EVENTS_TABLE}
            WHERE session_id = ? ORDER BY id DESC LIMIT ?`,
      args: [sessionId, limit],
    });
    return rs.rows.map((r) => ({
      at: String(r.at),
      queryDigest: String(r.query_digest),
      mode: String(r.mode) as RecallEventMode,
      model: String(r.model),
      results: JSON.parse(String(r.results)) as RecallHit[],
    }));
  }

  async function catchUp(
    sessionId: string,
    source: CatchUpSource,
  ): Promise<{ indexed: number; removed: number }> {
    checkSession(sessionId);
    await init();
    const byName = Array.isArray(source) ? dedupe(source) : undefined;
    const digests: ReadonlyMap<string, string> = byName
      ? new Map([...byName].map(([name, n]) => [name, n.digest]))
      : (source as Exclude<CatchUpSource, RecallNote[]>).digests;
    const stored = await storedRows(sessionId);
    const orphans = [...stored.keys()].filter((name) => !digests.has(name));
    const needed = [...digests].filter(([name, digest]) => {
      const row = stored.get(name);
      return row === undefined || row.digest !== digest || row.model !== model;
    });
    if (orphans.length > 0) {
      await client.execute({
        sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
        args: [sessionId, JSON.stringify(orphans)],
      });
    }
    let indexed = 0;
    if (needed.length > 0) {
      const names = needed.map(([name]) => name);
      const notes = byName
        ? names.map((n) => byName.get(n)!)
        : await (source as Exclude<CatchUpSource, RecallNote[]>).load(names);
      const report = await index(sessionId, notes);
      indexed = report.indexed;
      const q = queues.get(sessionId);
      if (q) for (const n of notes) if (q.notes.get(n.name)?.digest === n.digest) q.notes.delete(n.name);
    }
    needsCatchUp.delete(sessionId);
    return { indexed, removed: orphans.length };
  }

  async function status(
    sessionId: string,
    currentDigests: ReadonlyMap<string, string>,
  ): Promise<RecallStatus> {
    checkSession(sessionId);
    await init();
    const stored = await storedRows(sessionId);
    let indexed = 0;
    for (const [name, digest] of currentDigests) {
      const row = stored.get(name);
      if (row !== undefined && row.digest === digest && row.model === model) indexed++;
    }
    let orphaned = 0;
    for (const name of stored.keys()) if (!currentDigests.has(name)) orphaned++;
    return {
      indexed,
      missing: currentDigests.size - indexed,
      orphaned,
      pending: pending(sessionId),
      needsCatchUp: needsCatchUp.has(sessionId),
    };
  }

  // ---- background queue -------------------------------------------------------------------

  function pending(sessionId?: string): number {
    if (sessionId !== undefined) return queues.get(sessionId)?.notes.size ?? 0;
    let n = 0;
    for (const q of queues.values()) n += q.notes.size;
    return n;
  }

  function indexLater(sessionId: string, notes: RecallNote[]): void {
    try {
      checkSession(sessionId);
      if (closed) {
        needsCatchUp.add(sessionId);
        return;
      }
      let q = queues.get(sessionId);
      if (!q) {
        q = { notes: new Map(), attempts: 0, timer: undefined, running: undefined };
        queues.set(sessionId, q);
      }
      let room = maxPending - pending();
      let refused = 0;
      for (const n of notes) {
        if (q.notes.has(n.name))
          q.notes.delete(n.name); // re-insert: newest content, queue order
        else if (room <= 0) {
          refused++;
          continue;
        } else room--;
        q.notes.set(n.name, n);
      }
      if (refused > 0) {
        needsCatchUp.add(sessionId);
        onBackgroundError(new Error(`recall: background queue full, ${refused} notes left for catch-up`), {
          sessionId,
          attempt: 0,
          gaveUp: true,
        });
      }
      if (q.notes.size === 0 && !q.running) queues.delete(sessionId);
      else if (q.attempts === 0) schedule(sessionId, 0); // during backoff, keep the retry timer
    } catch (err) {
      try {
        onBackgroundError(err, { sessionId, attempt: 0, gaveUp: true });
      } catch {
        // never let background indexing reach the caller
      }
    }
  }

  function schedule(sessionId: string, delay: number): void {
    const q = queues.get(sessionId);
    if (!q || q.timer || q.running || closed) return;
    q.timer = setTimeout(() => {
      q.timer = undefined;
      void runBatch(sessionId);
    }, delay);
    q.timer.unref?.();
  }

  async function runBatch(sessionId: string): Promise<void> {
    const q = queues.get(sessionId);
    if (!q || q.running || closed) return;
    const batch = [...q.notes.values()].slice(0, queueBatch);
    if (batch.length === 0) {
      queues.delete(sessionId);
      return;
    }
    let retryIn = 0;
    q.running = (async () => {
      try {
        await index(sessionId, batch);
        for (const n of batch) if (q.notes.get(n.name) === n) q.notes.delete(n.name);
        q.attempts = 0;
      } catch (err) {
        q.attempts++;
        const gaveUp = q.attempts >= maxAttempts;
        try {
          onBackgroundError(err, { sessionId, attempt: q.attempts, gaveUp });
        } catch {
          // a throwing listener must not stop the queue
        }
        if (gaveUp) {
          for (const n of batch) if (q.notes.get(n.name) === n) q.notes.delete(n.name);
          q.attempts = 0;
          needsCatchUp.add(sessionId);
        } else {
          const backoff = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (q.attempts - 1));
          const hinted = err instanceof EmbeddingError ? err.retryAfterMs : undefined;
          retryIn = Math.min(maxDelayMs, Math.max(backoff, hinted ?? 0));
        }
      }
    })();
    await q.running;
    q.running = undefined;
    if (queues.get(sessionId) !== q) return;
    if (q.notes.size === 0) queues.delete(sessionId);
    else schedule(sessionId, retryIn);
  }

  async function drain(): Promise<number> {
    for (;;) {
      let progressed = false;
      for (const [sessionId, q] of [...queues]) {
        if (q.running) {
          await q.running;
          progressed = true;
          continue;
        }
        if (q.timer) clearTimeout(q.timer);
        q.timer = undefined;
        const before = q.notes.size;
        const attemptsBefore = q.attempts;
        await runBatch(sessionId);
        if (q.notes.size < before && q.attempts <= attemptsBefore) progressed = true;
      }
      if (!progressed || queues.size === 0) return pending();
    }
  }

  function close(): void {
    closed = true;
    for (const [sessionId, q] of queues) {
      if (q.timer) clearTimeout(q.timer);
      q.timer = undefined;
      if (q.notes.size > 0) needsCatchUp.add(sessionId);
      q.notes.clear();
    }
    queues.clear();
  }

  return {
    adapter,
    init,
    index,
    remove,
    search,
    rebuild,
    deleteSession,
    recordRecall,
    recentRecalls,
    indexLater,
    catchUp,
    status,
    pending,
    drain,
    close,
  };
}

/** The statements that delete a session's recall data (for the store's forget/purge transaction). */
export function recallDeleteStatements(sessionId: string): InStatement[] {
  return RECALL_TABLES.map((table) => ({
    sql: `DELETE FROM ${table} WHERE session_id = ?`,
    args: [sessionId],
  }));
}

/**
 * Deletes a session's recall data through any executor (a Client or a Transaction), skipping
 * tables that were never created. Prefer `RecallIndex.deleteSession` in a process that also
 * queues background indexing, so queued work for the session is cancelled too.
 */
export async function deleteRecallSessionData(
  db: { execute(stmt: InStatement): Promise<ResultSet> },
  sessionId: string,
): Promise<number> {
  const rs = await db.execute({
    sql: `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))`,
    args: [JSON.stringify(RECALL_TABLES)],
  });
  let deleted = 0;
  for (const row of rs.rows) {
    const table = String(row.name);
    if (!(RECALL_TABLES as readonly string[]).includes(table)) continue;
    const res = await db.execute({ sql: `DELETE FROM ${table} WHERE session_id = ?`, args: [sessionId] });
    deleted += res.rowsAffected;
  }
  return deleted;
}

function checkSession(sessionId: string): void {
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new TypeError('recall: sessionId must be a non-empty string');
}

function dedupe(notes: RecallNote[]): Map<string, RecallNote> {
  const out = new Map<string, RecallNote>();
  for (const n of notes) {
    if (
      typeof n?.name !== 'string' ||
      n.name === '' ||
      typeof n.digest !== 'string' ||
      n.digest === '' ||
      typeof n.kind !== 'string' ||
      typeof n.text !== 'string'
    ) {
      throw new TypeError('recall: every note needs a name, digest, kind and text');
    }
    out.set(n.name, n);
  }
  return out;
}

/** libSQL reads F32 blobs little-endian, as Float32Array is on every platform Node runs on. */
function blob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
