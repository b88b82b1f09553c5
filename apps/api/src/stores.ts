/**
 * Opening the stores of @oh/memory and Sponge's reviewed knowledge, in one place, so the rest of
 * the API depends only on their interfaces.
 */
import type { Client } from '@libsql/client';
import { applyMigrations, createMemoryStore, openDatabase, openPurger } from '@oh/memory';
import { createCloudEmbeddingAdapter, createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { MemoryStore, MemoryStoreOptions, Migration, Purger, PurgerOptions } from '@oh/memory';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingsConfig } from './config.ts';
import { createReviewedKnowledge } from '@sponge/reviewed';
import type { ReviewedKnowledge } from '@sponge/reviewed';

export function openMemoryStore(options: MemoryStoreOptions): Promise<MemoryStore> {
  return createMemoryStore(options);
}

/**
 * Reviewed knowledge shares the application database's client: it lives in that database. It
 * needs no single connection: it takes no interactive transactions and keeps no per-connection
 * state, and each change is one atomic batch.
 */
export function openReviewedKnowledge(client: Client, now: () => Date): Promise<ReviewedKnowledge> {
  return createReviewedKnowledge({ client, now });
}

/** The purge worker's only handle on the memory database. */
export function openPurgeWorker(options: PurgerOptions): Promise<Purger> {
  return openPurger(options);
}

/**
 * A libSQL client with the store's connection settings (WAL, busy timeout, foreign keys). The API
 * opens an embedded file with `thread: 'worker'`, as it does the memory database: a write that
 * finds another process's lock (a second API process, `verify --repair`) waits on the database
 * thread, never on the event loop, so every other request goes on meanwhile (issue 24, point 11).
 */
export function openAppDatabase(options: {
  url: string;
  authToken?: string | undefined;
  thread?: 'worker' | 'main';
}): Promise<Client> {
  return openDatabase(options);
}

export async function migrate(
  client: Client,
  namespace: string,
  migrations: readonly Migration[],
): Promise<void> {
  await applyMigrations(client, namespace, migrations);
}

/**
 * The embedding adapter the configuration names. The cloud adapter checks its options again and
 * throws an EmbeddingError (code `config`) for anything config.ts let through, so a bad value
 * still fails at start.
 */
export function openEmbeddings(config: EmbeddingsConfig): EmbeddingAdapter {
  return config.kind === 'cloud'
    ? createCloudEmbeddingAdapter(config.options)
    : createLocalEmbeddingAdapter(config.options);
}
