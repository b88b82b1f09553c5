/**
 * The application database and the embedding adapter, opened with the API's settings in one
 * place, for the API and its commands alike.
 */
import type { Client } from '@libsql/client';
import { openDatabase } from '@oh/memory';
import { createCloudEmbeddingAdapter, createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingsConfig } from './config.ts';

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
