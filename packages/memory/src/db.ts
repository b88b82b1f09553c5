/**
 * Opening a libSQL database the way the store needs it: an embedded file (the default) with
 * durable, secure settings, or a remote libSQL server (sqld / Turso) over HTTP(S)/WS.
 */
import { createClient } from '@libsql/client';
import type { Client, Config } from '@libsql/client';

/** How long a writer waits for another process's write lock before giving up. */
export const BUSY_TIMEOUT_MS = 10_000;

export interface OpenDatabaseOptions {
  /** `file:/path/x.db`, `:memory:`, `libsql://…`, `http(s)://…`, `ws(s)://…`. */
  url: string;
  authToken?: string | undefined;
}

/** true for databases this process opens as a local file (or in memory), false for a server. */
export function isEmbeddedUrl(url: string): boolean {
  return url === ':memory:' || url.startsWith('file:');
}

/**
 * The per-connection settings of an embedded file. They are checked by tests after many calls
 * because @libsql/client's local driver pools connections and a pragma only binds the connection
 * it ran on (see `openDatabase`).
 */
export const EMBEDDED_PRAGMAS = [
  // Readers never block the writer and vice versa; cross-process writers serialise on the lock.
  'PRAGMA journal_mode = WAL',
  // FULL (not NORMAL) in WAL mode: an acknowledged remember survives power loss.
  'PRAGMA synchronous = FULL',
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  'PRAGMA foreign_keys = ON',
  // Forgotten and purged content is overwritten with zeros, not left in free pages.
  'PRAGMA secure_delete = ON',
  // 64 MiB page cache (default 2 MiB): a 10k-note session's recall vectors are ~18 MB, and
  // re-reading them from disk on every recall measured ~3.5x slower (recall.bench.ts).
  'PRAGMA cache_size = -65536',
] as const;

/**
 * Opens a libSQL client.
 *
 * For embedded files the client is limited to ONE connection (`concurrency: 1`): the local driver
 * opens pooled connections lazily, and a PRAGMA such as `secure_delete` or `synchronous` set once
 * would silently not apply to a connection opened later. The store's write path is one
 * `batch()` per call (no interactive transactions), so a single connection costs nothing in
 * correctness; cross-process concurrency is handled by SQLite's lock and `busy_timeout`.
 *
 * Remote URLs get none of the file pragmas: the server owns its storage settings.
 *
 * @example
 * const client = await openDatabase({ url: 'file:./data/memory.db' });
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Client> {
  const embedded = isEmbeddedUrl(options.url);
  const config: Config = { url: options.url };
  if (options.authToken !== undefined) config.authToken = options.authToken;
  if (embedded) {
    config.concurrency = 1;
    config.timeout = BUSY_TIMEOUT_MS;
  }
  const client = createClient(config);
  if (embedded) {
    try {
      for (const pragma of EMBEDDED_PRAGMAS) await client.execute(pragma);
    } catch (error) {
      client.close();
      throw error;
    }
  }
  return client;
}

/**
 * Moves the WAL into the main file and truncates it, so deleted content does not linger in the
 * `-wal` file. Best effort: a reader in another process can make it partial; the next
 * checkpoint finishes the job. A no-op for remote databases.
 */
export async function checkpointWal(client: Client, url: string): Promise<void> {
  if (!isEmbeddedUrl(url) || url.includes(':memory:')) return;
  try {
    await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
  } catch {
    // A busy checkpoint is not an error for the caller: the data is already deleted.
  }
}
