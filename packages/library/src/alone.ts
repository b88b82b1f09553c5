/**
 * The library in a database of its own, for tools that measure or maintain it without the app (the
 * bench) and for the library's own tests: `LIBRARY_ALONE`'s tables, with the few columns of the
 * app's `users` the library reads, under a namespace of their own. The app opens its own database
 * and takes the library's migrations into its list instead (migrations.ts).
 */
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { applyMigrations, openDatabase } from '@oh/memory';
import { LIBRARY_ALONE } from './migrations.ts';
import { prepareDocumentIndex } from './search/index-store.ts';

/**
 * A database holding the library alone, migrated, with a chunk table sized for `adapter`, on the
 * store's connection settings (WAL, busy timeout, foreign keys).
 *
 * @example
 * const db = await openLibraryDatabase('file:./library.db', createLocalEmbeddingAdapter());
 * await addOwner(db, { id: 'owner', name: 'Owner' });
 * const library = createLibrary({ db, adapter, log: console });
 */
export async function openLibraryDatabase(
  url: string,
  adapter: EmbeddingAdapter,
  options: { authToken?: string; now?: () => Date } = {},
): Promise<Client> {
  const db = await openDatabase({ url, ...(options.authToken ? { authToken: options.authToken } : {}) });
  try {
    await applyMigrations(db, LIBRARY_ALONE.namespace, LIBRARY_ALONE.migrations, options.now);
    await prepareDocumentIndex(db, adapter, LIBRARY_ALONE, options.now);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** An owner of documents in a database of the library alone (in an app's, its accounts are). */
export async function addOwner(
  db: Client,
  owner: { id: string; name: string; email?: string },
  now: Date = new Date(),
): Promise<void> {
  await db.execute({
    sql: 'INSERT INTO users (id, name, email, created_at) VALUES (?, ?, ?, ?)',
    args: [owner.id, owner.name, owner.email ?? null, now.toISOString()],
  });
}
