/**
 * A fresh database of the library alone for one test: a file in a temp folder, or, with
 * TEST_DATABASES=sqld, a libSQL server of its own. `connect()` opens another client on it (another
 * API process, as far as the database can tell); `close()` closes every client and removes the
 * folder or stops the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { openDatabase } from '@oh/memory';
import { startSqld } from '@oh/memory/testing';
import { addOwner, openLibraryDatabase } from '../alone.ts';

export interface TestDatabase {
  url: string;
  /** The database's path on disk, when it is a file. */
  path: string | null;
  /** Migrated, sized for the adapter, with the owners asked for. */
  db: Client;
  /** Another client on the same database. */
  connect(): Promise<Client>;
  close(): Promise<void>;
}

export async function openTestDatabase(
  adapter: EmbeddingAdapter,
  options: { owners?: ReadonlyArray<{ id: string; name: string; email?: string }>; now?: () => Date } = {},
): Promise<TestDatabase> {
  const closers: Array<() => unknown> = [];
  let url: string;
  let path: string | null = null;
  if (process.env.TEST_DATABASES === 'sqld') {
    const server = await startSqld();
    closers.push(() => server.stop());
    url = server.url;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-library-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    path = join(dir, 'library.db');
    url = `file:${path}`;
  }
  const closeAll = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  let db: Awaited<ReturnType<typeof openLibraryDatabase>>;
  try {
    db = await openLibraryDatabase(url, adapter, options.now ? { now: options.now } : {});
    closers.push(() => db.close());
    const now = options.now?.() ?? new Date();
    for (const owner of options.owners ?? []) await addOwner(db, owner, now);
  } catch (error) {
    // A migration that fails leaves no caller to close the server or the folder: a failing run
    // on libSQL servers left its sqld processes running after the run.
    await closeAll();
    throw error;
  }
  return {
    url,
    path,
    db,
    async connect() {
      const client = await openDatabase({ url });
      closers.push(() => client.close());
      return client;
    },
    close: closeAll,
  };
}
