/**
 * `@sponge/api/library`: the owner's library without the HTTP server, for the bench (and any tool
 * that measures or maintains the search index). The API itself wires it in app.ts.
 */
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { APP_MIGRATIONS } from '../data/migrations.ts';
import { migrate, openAppDatabase } from '../stores.ts';
import { prepareDocumentIndex } from './index-store.ts';

export { createLibrary } from './library.ts';
export type { AddedDocument, Library, NewLibraryDocument } from './library.ts';
export type { DocumentHit } from './search.ts';
export { EMBED_BATCH } from './indexer.ts';
export { OwnerVectorIndex } from './vector-index.ts';

/** The application database with its migrations and a chunk table sized for `adapter`. */
export async function openLibraryDatabase(url: string, adapter: EmbeddingAdapter): Promise<Client> {
  const db = await openAppDatabase({ url });
  try {
    await migrate(db, 'app', APP_MIGRATIONS);
    await prepareDocumentIndex(db, adapter);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
