/**
 * Indexes added documents in the background (SPEC §6b): chunks, embeds them through the same
 * adapter as recall, a batch at a time, and writes each batch with its progress, so the library
 * can show "indexing… 40%". The state lives on the document row, so indexing resumes after a
 * restart (chunks already stored for the same content are not embedded again), and another API
 * process sharing the database may pick the same document up: every write is idempotent.
 */
import type { Client } from '@libsql/client';
import { isLockError } from '@oh/memory';
import { EmbeddingError } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { chunkDocument, contentDigest, embeddingText } from './chunks.ts';
import { createPassLoop } from './pass-loop.ts';
import {
  markFailed,
  markReady,
  nextDocumentToIndex,
  storedChunks,
  writeChunks,
  writeKeywords,
} from './index-store.ts';
import type { DocumentToIndex } from './index-store.ts';

/** What the indexer logs through (a pino logger, or anything with these two methods). */
export interface IndexerLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
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

export function createIndexer(options: { db: Client; adapter: EmbeddingAdapter; log: IndexerLog }): Indexer {
  const { db, adapter, log } = options;
  let stopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  /** A lock is no failure of the document: it stays queued, and a later pass takes it again. */
  function retryLater(): void {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      kick();
    }, LOCKED_RETRY_MS);
    retryTimer.unref();
  }

  async function pass(): Promise<void> {
    // A document that failed in this pass is not retried in it (it waits for documents.reindex).
    const failedNow = new Set<string>();
    for (;;) {
      if (stopped) return;
      const doc = await nextDocumentToIndex(db, failedNow);
      if (!doc) return;
      try {
        await indexOne(doc);
      } catch (err) {
        failedNow.add(doc.id);
        if (isLockError(err)) {
          log.warn({ err, documentId: doc.id }, 'indexing a document waits for a database lock');
          retryLater();
          continue;
        }
        // The embedding service failing is expected now and then; anything else is a bug to see.
        if (err instanceof EmbeddingError)
          log.warn({ err, documentId: doc.id }, 'indexing a document failed');
        else log.error({ err, documentId: doc.id }, 'indexing a document failed unexpectedly');
        await markFailed(db, doc.id, failureReason(err)).catch((e: unknown) =>
          log.error({ err: e }, 'recording an indexing failure failed'),
        );
      }
    }
  }

  /** Chunks, embeds and writes one document, then marks it ready (unless stopped meanwhile). */
  async function indexOne(doc: DocumentToIndex): Promise<void> {
    const chunks = chunkDocument(doc);
    const key = { id: doc.id, ownerId: doc.ownerId, digest: contentDigest(doc), model: adapter.id };
    const have = await storedChunks(db, doc.id, key.digest, key.model);
    const keywordsOnly = chunks.filter((c) => have.vectors.has(c.chunk) && !have.keywords.has(c.chunk));
    for (let i = 0; i < keywordsOnly.length; i += KEYWORD_BATCH) {
      if (stopped) return;
      await writeKeywords(db, key, keywordsOnly.slice(i, i + KEYWORD_BATCH));
    }
    const todo = chunks.filter((c) => !have.vectors.has(c.chunk));
    let done = chunks.length - todo.length;
    for (let i = 0; i < todo.length; i += EMBED_BATCH) {
      if (stopped) return;
      const batch = todo.slice(i, i + EMBED_BATCH);
      const vectors = await adapter.embed(batch.map((c) => embeddingText(doc.title, c)));
      if (vectors.length !== batch.length)
        throw new Error(
          `the embedding adapter returned ${vectors.length} vectors for ${batch.length} passages`,
        );
      done += batch.length;
      await writeChunks(
        db,
        key,
        batch.map((chunk, n) => ({ chunk, vector: vectors[n]! })),
        { done, total: chunks.length },
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
      clearTimeout(retryTimer);
      await passes.running;
    },
  };
}

/** What the library shows for a failure: plain words, no stack, no secrets. */
function failureReason(err: unknown): string {
  if (err instanceof EmbeddingError) return `The embedding service failed (${err.message}). Try again later.`;
  return 'Indexing failed unexpectedly; the server log has the details. Try again.';
}
