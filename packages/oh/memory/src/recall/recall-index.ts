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
 *
 * The tables and their migrations are in schema.ts, the nearest-note SQL in search.ts and the
 * background queue in queue.ts; this module ties them together.
 */
import { createHash } from 'node:crypto';
import type { Client, InStatement, ResultSet } from '@libsql/client';
import { EmbeddingError } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { createIndexQueue } from './queue.ts';
import type { BackgroundErrorListener } from '../types.ts';
import type { RecallQueueOptions } from './queue.ts';
import { renderNote } from './render.ts';
import type { RecallNote } from './render.ts';
import { NOTE_VECTORS_TABLE, RECALL_EVENTS_TABLE, applyRecallSchema } from './schema.ts';
import { isZero, searchLimit, vectorBlob } from './search.ts';
import { createSessionVectors } from './session-vectors.ts';
import type { SessionVectorOptions } from './session-vectors.ts';
import type { RecallHit, RecallSearchOptions } from './search.ts';
import { checkSession, dedupe } from './validate.ts';

// verify.ts reads the table name from here; the recall tables themselves are schema.ts's.
export { NOTE_VECTORS_TABLE } from './schema.ts';

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

export interface RecallIndexOptions {
  /** The memory database's client. The index creates its own tables in it. */
  client: Client;
  adapter: EmbeddingAdapter;
  queue?: RecallQueueOptions;
  /** Recall events kept per session (oldest pruned); 200 by default. */
  eventsPerSession?: number;
  /**
   * Called when background indexing fails (never with note text). By default a process warning is
   * emitted when a session's batch is given up.
   */
  onBackgroundError?: BackgroundErrorListener;
  /**
   * Write a vector only while its note still stands in the store's `notes` table with that
   * digest, judged inside the insert itself. The store sets it: the in-process epoch check cannot
   * see Forget now or a purge done by another process (the purge worker), and a background write
   * landing after one would leave a forgotten note's vector behind.
   */
  onlyLiveNotes?: boolean;
  /**
   * Up to `limit` notes of a session with no vector at their current digest under `model`. With
   * it, sessions that background indexing had to leave (queue full, gave up) are caught up in the
   * background once nothing else is queued; without it, at their next recall. The store sets it.
   */
  missingNotes?: (sessionId: string, model: string, limit: number) => Promise<RecallNote[]>;
  /** Bounds of the in-memory copies the exact scan reads (session-vectors.ts). */
  sessionVectors?: SessionVectorOptions;
  /**
   * Commits background indexing's vector writes (one atomic batch). The store passes its group
   * commit (db/write-queue.ts), so under load the vectors share the notes' commits instead of
   * paying a commit (and on the embedded driver, a blocked event loop) of their own.
   * `client.batch(statements, 'write')` by default.
   */
  write?: (statements: InStatement[]) => Promise<ResultSet[]>;
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
  /** Applies the recall migrations for this adapter (idempotent; every method awaits it). */
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

export function createRecallIndex(options: RecallIndexOptions): RecallIndex {
  const { client, adapter } = options;
  const dims = adapter.dimensions;
  const model = adapter.id;
  // The exact scan runs over in-memory copies of the session's vectors (session-vectors.ts).
  const copies = createSessionVectors(options.sessionVectors);
  const now = options.now ?? (() => new Date());
  // Not measured: how many recalls of a session stay on record for review, against the table's size.
  const eventsPerSession = options.eventsPerSession ?? 200;
  const write = options.write ?? ((statements: InStatement[]) => client.batch(statements, 'write'));
  const queue = createIndexQueue({
    ...options.queue,
    index: indexQueued,
    onBackgroundError: options.onBackgroundError,
    refill: options.missingNotes && ((sessionId, limit) => options.missingNotes!(sessionId, model, limit)),
  });

  let ready: Promise<void> | undefined;

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
    ready ??= applyRecallSchema(client, { dimensions: dims }, now).then(
      () => undefined,
      (err: unknown) => {
        ready = undefined;
        throw err;
      },
    );
    return ready;
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
    const onConflict = `ON CONFLICT (session_id, name) DO UPDATE SET
              digest = excluded.digest, model = excluded.model,
              embedding = excluded.embedding, indexed_at = excluded.indexed_at`;
    if (options.onlyLiveNotes) {
      return {
        sql: `INSERT INTO ${NOTE_VECTORS_TABLE} (session_id, name, digest, model, embedding, indexed_at)
              SELECT ?, ?, ?, ?, vector32(?), ?
              WHERE EXISTS (SELECT 1 FROM notes WHERE session_id = ? AND name = ? AND digest = ?)
              ${onConflict}`,
        args: [
          sessionId,
          note.name,
          note.digest,
          model,
          vectorBlob(vector),
          at,
          sessionId,
          note.name,
          note.digest,
        ],
      };
    }
    return {
      sql: `INSERT INTO ${NOTE_VECTORS_TABLE} (session_id, name, digest, model, embedding, indexed_at)
            VALUES (?, ?, ?, ?, vector32(?), ?)
            ${onConflict}`,
      args: [sessionId, note.name, note.digest, model, vectorBlob(vector), at],
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

  /**
   * Background indexing: the notes of several sessions, embedded in one call and written in one
   * batch. Queued notes were just added or replaced, so their digests are new: no read of the
   * stored rows first (an upsert of an unchanged vector is harmless, and rare).
   */
  async function indexQueued(batch: ReadonlyMap<string, RecallNote[]>): Promise<void> {
    await init();
    const parts = [...batch].map(([sessionId, notes]) => ({
      sessionId,
      notes: [...dedupe(notes).values()],
      epoch: enter(sessionId),
    }));
    try {
      const vectors = await embed(parts.flatMap((p) => p.notes.map(renderNote)));
      const at = now().toISOString();
      const statements: InStatement[] = [];
      let k = 0;
      for (const p of parts) {
        // Checked right before the write is issued: deleteSession/rebuild bump the epoch first.
        const current = epochOf(p.sessionId) === p.epoch;
        for (const n of p.notes) {
          const vector = vectors[k++]!;
          if (current) statements.push(upsert(p.sessionId, n, vector, at));
        }
      }
      if (statements.length > 0) await write(statements);
    } finally {
      for (const p of parts) leave(p.sessionId);
    }
  }

  async function remove(sessionId: string, names: string[]): Promise<void> {
    checkSession(sessionId);
    queue.drop(sessionId, names);
    copies.drop(sessionId);
    if (names.length === 0) return;
    await init();
    await client.execute({
      sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
      args: [sessionId, JSON.stringify(names)],
    });
  }

  async function search(sessionId: string, text: string, opts: RecallSearchOptions): Promise<RecallHit[]> {
    checkSession(sessionId);
    const limit = searchLimit(text, opts);
    const current = opts.currentDigests;
    if (current.size === 0 || text.trim() === '') return [];
    await init();
    const [query] = await embed([text]);
    if (query === undefined || isZero(query)) return [];
    return copies.nearest(client, { sessionId, model, query, limit, current });
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
      copies.drop(sessionId);
      queue.settle(sessionId, list);
      const at = now().toISOString();
      await client.batch(
        [
          { sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?`, args: [sessionId] },
          ...list.map((n, i) => upsert(sessionId, n, vectors[i]!, at)),
        ],
        'write',
      );
      queue.caughtUp(sessionId);
      return { indexed: list.length, discarded: false };
    } finally {
      leave(sessionId);
    }
  }

  async function deleteSession(sessionId: string): Promise<{ vectors: number; events: number }> {
    copies.drop(sessionId);
    checkSession(sessionId);
    bump(sessionId);
    queue.cancel(sessionId);
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
      queue.settle(sessionId, notes);
    }
    queue.caughtUp(sessionId);
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
      pending: queue.pending(sessionId),
      needsCatchUp: queue.needsCatchUp(sessionId),
    };
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
    indexLater: queue.add,
    catchUp,
    status,
    pending: queue.pending,
    drain: queue.drain,
    close() {
      copies.clear();
      queue.close();
    },
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
