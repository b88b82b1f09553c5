/**
 * Indexes added documents in the background (SPEC §6b): chunks, embeds them through the same
 * adapter as recall, a batch at a time, and writes each batch with its progress, so the library
 * can show "indexing… 40%". The state lives on the document row, so indexing resumes after a
 * restart (chunks already stored for the same content are not embedded again).
 *
 * Every API process on the database runs one: a document is indexed by the one that took its
 * lease (index-store.ts claimDocumentToIndex, work-lease.ts), not embedded by each. One that finds
 * every waiting document taken looks again when the first lease would lapse, and takes over a
 * document whose process died, embedding only the chunks it had not stored.
 */
import type { Client } from '@libsql/client';
import { isLockError } from '@oh/memory';
import { EmbeddingError } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { chunkDocument, contentDigest, embeddingText } from './chunks.ts';
import { createPassLoop } from '../pass-loop.ts';
import {
  claimDocumentToIndex,
  markFailed,
  markReady,
  storedChunks,
  writeChunks,
  writeKeywords,
} from './index-store.ts';
import type { ChunkKey, DocumentToIndex } from './index-store.ts';
import { indexedRows, mergeKeywordsStep } from './keyword-index.ts';
import { LeaseLost, keepLease, newHolder, releaseLease, takenOver, untilLapse } from '../work-lease.ts';
import type { Lease } from '../work-lease.ts';

/** What the indexer logs through (a pino logger, or anything with these two methods). */
export interface IndexerLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
  /** Each page OCR answered (what a pino logger at `debug` shows; tests count them). */
  debug?(details: object, message: string): void;
}

/**
 * Chunks per embedding request and per write: small enough that progress moves visibly. Not
 * compared with other sizes; with it the `library` figure indexed 2,519 chunks/s where the adapter
 * alone embedded 2,775 (bench/README.md, notebook, "The library figure").
 */
export const EMBED_BATCH = 64;

/** Chunks per write when only their keywords are missing (no embedding): not measured. */
const KEYWORD_BATCH = 256;

/**
 * The keyword index is merged into one b-tree (keyword-index.ts mergeKeywordsStep) once the
 * indexer has written this many chunks since the last merge, and at least a tenth of the index:
 * each write adds a b-tree and FTS5's automerge leaves several, which every look-up searches (a
 * million chunks indexed a batch at a time held 10: finding which terms 100 chunks hold took
 * 18–26 ms a search, 2.6–2.8 merged, measured). A merge rewrites the whole index (5.6 s at a
 * million chunks), so a tenth keeps its cost to a share of the indexing. The numbers are not tuned.
 */
const MERGE_KEYWORDS_AFTER = 10_000;

/**
 * After another process's lock stopped a document, the next pass starts this much later. Not
 * measured: sooner finds the lock still held more often, later leaves the document waiting.
 */
export const LOCKED_RETRY_MS = 1_000;

export interface Indexer {
  /** Starts a pass if none is running (after an add, a reindex, or at start). */
  kick(): void;
  /** Resolves when nothing is waiting (tests and the bench). */
  idle(): Promise<void>;
  /** Stops after the current batch; resolves when the pass has ended. */
  stop(): Promise<void>;
}

export function createIndexer(options: {
  db: Client;
  adapter: EmbeddingAdapter;
  log: IndexerLog;
  /** The clock leases are judged by (tests move it). */
  now?: () => Date;
  /** See MERGE_KEYWORDS_AFTER (tests merge at once, or never). */
  mergeKeywordsAfter?: number;
}): Indexer {
  const { db, adapter, log } = options;
  const now = options.now ?? (() => new Date());
  const mergeAfter = options.mergeKeywordsAfter ?? MERGE_KEYWORDS_AFTER;
  const holder = newHolder();
  let stopped = false;
  /** Chunks this indexer wrote to the keyword index since it last merged it. */
  let unmerged = 0;

  /** Merges the keyword index a step at a time once enough was written (MERGE_KEYWORDS_AFTER). */
  async function mergeKeywords(): Promise<void> {
    if (unmerged < mergeAfter || unmerged < (await indexedRows(db)) / 10) return;
    try {
      for (let first = true; !stopped; first = false) {
        if (!(await mergeKeywordsStep(db, first))) {
          unmerged = 0;
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (err) {
      // Search stays right unmerged, only slower: the next idle pass tries again.
      log.warn({ err }, 'merging the keyword index failed');
    }
  }

  async function pass(): Promise<void> {
    // A document that failed in this pass is not retried in it (it waits for documents.reindex).
    const failedNow = new Set<string>();
    for (;;) {
      if (stopped) return;
      let doc: DocumentToIndex | null;
      try {
        doc = await claimDocumentToIndex(db, holder, now(), failedNow);
      } catch (err) {
        if (!isLockError(err)) throw err;
        log.warn({ err }, 'indexing a document waits for a database lock');
        passes.kickAfter(LOCKED_RETRY_MS);
        return;
      }
      if (!doc) {
        await mergeKeywords();
        const wait = await untilLapse(db, 'index', holder, now());
        if (wait !== null) passes.kickAfter(wait);
        return;
      }
      const lease: Lease = { work: 'index', documentId: doc.id, holder };
      const lost = new AbortController();
      const beat = keepLease({
        db,
        lease,
        now,
        onLost: () => lost.abort(new LeaseLost(lease)),
        onError: (err) =>
          log.warn({ err, documentId: lease.documentId }, 'renewing an indexing lease failed'),
      });
      try {
        await indexOne(doc, lease, lost.signal);
      } catch (err) {
        if (err instanceof LeaseLost) {
          // This process stalled past its lease and another took the document over (or it was removed).
          if (await takenOver(db, lease).catch(() => false))
            log.warn({ documentId: doc.id }, 'indexing a document went to another API process');
          continue;
        }
        failedNow.add(doc.id);
        // A lock is no failure of the document: it stays queued, and a later pass takes it again.
        if (isLockError(err)) {
          log.warn({ err, documentId: doc.id }, 'indexing a document waits for a database lock');
          passes.kickAfter(LOCKED_RETRY_MS);
          continue;
        }
        // The embedding service failing is expected now and then; anything else is a bug to see.
        if (err instanceof EmbeddingError)
          log.warn({ err, documentId: doc.id }, 'indexing a document failed');
        else log.error({ err, documentId: doc.id }, 'indexing a document failed unexpectedly');
        await markFailed(db, lease, failureReason(err)).catch((e: unknown) =>
          log.error({ err: e }, 'recording an indexing failure failed'),
        );
      } finally {
        beat.stop();
        // Given up as it stops or waits for a lock: another process (or this one, restarted)
        // resumes it at once. Marked ready or failed, it was given up with that.
        await releaseLease(db, lease).catch((err: unknown) =>
          log.warn({ err, documentId: lease.documentId }, 'giving up an indexing lease failed'),
        );
      }
    }
  }

  /**
   * Chunks, embeds and writes one document, then marks it ready (unless stopped meanwhile).
   * Throws LeaseLost when the document went to another process, or was removed.
   */
  async function indexOne(doc: DocumentToIndex, lease: Lease, lost: AbortSignal): Promise<void> {
    const chunks = chunkDocument(doc);
    const key: ChunkKey = {
      id: doc.id,
      ownerId: doc.ownerId,
      digest: contentDigest(doc),
      model: adapter.id,
      holder,
    };
    const check = (held: boolean) => {
      if (!held || lost.aborted) throw new LeaseLost(lease);
    };
    const have = await storedChunks(db, doc.id, key.digest, key.model);
    const keywordsOnly = chunks.filter((c) => have.vectors.has(c.chunk) && !have.keywords.has(c.chunk));
    for (let i = 0; i < keywordsOnly.length; i += KEYWORD_BATCH) {
      if (stopped) return;
      check(await writeKeywords(db, key, keywordsOnly.slice(i, i + KEYWORD_BATCH), now()));
      unmerged += Math.min(KEYWORD_BATCH, keywordsOnly.length - i);
    }
    const todo = chunks.filter((c) => !have.vectors.has(c.chunk));
    let done = chunks.length - todo.length;
    for (let i = 0; i < todo.length; i += EMBED_BATCH) {
      if (stopped) return;
      check(true);
      const batch = todo.slice(i, i + EMBED_BATCH);
      const vectors = await adapter.embed(batch.map((c) => embeddingText(doc.title, c)));
      if (vectors.length !== batch.length)
        throw new Error(
          `the embedding adapter returned ${vectors.length} vectors for ${batch.length} passages`,
        );
      done += batch.length;
      unmerged += batch.length;
      check(
        await writeChunks(
          db,
          key,
          batch.map((chunk, n) => ({ chunk, vector: vectors[n]! })),
          { done, total: chunks.length },
          now(),
        ),
      );
    }
    if (stopped) return;
    await markReady(db, key, chunks.length);
  }

  const passes = createPassLoop({
    pass,
    stopped: () => stopped,
    // The database itself failed; the next kick (or restart) resumes where this stopped.
    onError: (err) => log.error({ err }, 'the indexer stopped'),
  });
  const kick = () => passes.kick();

  return {
    kick,
    idle: () => passes.idle(),
    async stop() {
      stopped = true;
      passes.cancel();
      await passes.running;
    },
  };
}

/** What the library shows for a failure: plain words, no stack, no secrets. */
function failureReason(err: unknown): string {
  if (err instanceof EmbeddingError) return `The embedding service failed (${err.message}). Try again later.`;
  return 'Indexing failed unexpectedly; the server log has the details. Try again.';
}
