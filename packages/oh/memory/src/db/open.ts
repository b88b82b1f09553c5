/**
 * Opening a libSQL database the way the store needs it: an embedded file (the default) with
 * durable, secure settings, or a remote libSQL server (sqld / Turso) over HTTP(S)/WS.
 */
import { createClient } from '@libsql/client';
import type { Client, Config } from '@libsql/client';
import { isLockError } from './locks.ts';
import { ShortcutClient } from './thread/shortcut-client.ts';
import { WorkerClient } from './thread/worker-client.ts';
import { LocalClient } from './local-client.ts';

/**
 * How long a writer waits for another process's write lock before giving up. Not measured as a
 * value: longer lets a call outwait a longer hold (the `lock` figure holds the lock 3 s, and the
 * agent's write waits it out) before it fails, at the price of the caller waiting that long.
 */
export const BUSY_TIMEOUT_MS = 10_000;

/** SQLite's `synchronous` for an embedded file. */
export type Synchronous = 'FULL' | 'NORMAL';

export interface OpenDatabaseOptions {
  /** `file:/path/x.db`, `:memory:`, `libsql://…`, `http(s)://…`, `ws(s)://…`. */
  url: string;
  authToken?: string | undefined;
  /**
   * FULL (the default): an acknowledged change survives a power loss (the WAL is synced on every
   * commit). NORMAL syncs only at checkpoints: a power loss can drop the last commits, never
   * corrupt the file. Only for embedded files; a server owns its own storage settings.
   */
  synchronous?: Synchronous | undefined;
  /**
   * Where an embedded file's SQLite calls run: 'main' (the default), or 'worker', a database
   * thread of its own (db/thread/), so commits under load never block the caller's event loop,
   * paired with a second connection on the event loop for calls that find the thread idle
   * (ShortcutClient). The API's memory database uses 'worker'; single-purpose processes and
   * tests keep 'main'.
   */
  thread?: 'main' | 'worker' | undefined;
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
const EMBEDDED_PRAGMAS = [
  // Readers never block the writer and vice versa; cross-process writers serialise on the lock.
  'PRAGMA journal_mode = WAL',
  // FULL (not NORMAL) in WAL mode: an acknowledged remember survives power loss. The
  // `synchronous` option replaces this line.
  'PRAGMA synchronous = FULL',
  `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`,
  'PRAGMA foreign_keys = ON',
  // Forgotten and purged content is overwritten with zeros, not left in free pages.
  'PRAGMA secure_delete = ON',
  // 64 MiB page cache (default 2 MiB): a 10k-note session's recall vectors are ~18 MB, and
  // re-reading them from disk on every recall measured ~3.5x slower (recall.bench.ts), when
  // recall still scanned them in SQL. Since recall scans copies in memory (issue 19) it reads them
  // only to fill the copies: not measured again, and not in bench/README.md's notebook.
  'PRAGMA cache_size = -65536',
] as const;

/**
 * Opens a libSQL client.
 *
 * An embedded file gets a `LocalClient`: ONE connection (a PRAGMA such as `secure_delete` or
 * `synchronous` binds only the connection it ran on) that keeps its prepared statements, since
 * recompiling the store's trigger programs on every call was most of its own cost. The store's
 * write path is one `batch()` per call (no interactive transactions), so one connection costs
 * nothing in correctness; cross-process concurrency is SQLite's lock and `busy_timeout`.
 *
 * Remote URLs get none of the file pragmas: the server owns its storage settings.
 *
 * @example
 * const client = await openDatabase({ url: 'file:./data/memory.db' });
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Client> {
  if (!isEmbeddedUrl(options.url)) {
    const config: Config = { url: options.url };
    if (options.authToken !== undefined) config.authToken = options.authToken;
    return createClient(config);
  }
  const synchronous = options.synchronous ?? 'FULL';
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL')
    throw new RangeError(`synchronous must be FULL or NORMAL, not ${String(synchronous)}`);
  const pragmas = EMBEDDED_PRAGMAS.map((p) =>
    p.startsWith('PRAGMA synchronous') ? `PRAGMA synchronous = ${synchronous}` : p,
  );
  if (options.thread !== 'worker')
    return withPragmas(new LocalClient(options.url, { timeoutMs: BUSY_TIMEOUT_MS }), pragmas);
  // Neither connection waits in SQLite's busy handler: the thread waits for a lock by itself, for
  // BUSY_TIMEOUT_MS, telling the event loop it does (worker.ts), and the event loop's connection
  // never waits (ShortcutClient).
  const noWait = pragmas.map((p) => (p.startsWith('PRAGMA busy_timeout') ? 'PRAGMA busy_timeout = 0' : p));
  const thread = await withPragmas(
    await WorkerClient.open(options.url, { timeoutMs: BUSY_TIMEOUT_MS }),
    noWait,
  );
  // An in-memory database exists once per connection: it cannot have a second one.
  if (options.url.includes(':memory:')) return thread;
  try {
    const near = await withPragmas(new LocalClient(options.url, { timeoutMs: 0 }), noWait);
    return new ShortcutClient(thread, near);
  } catch (error) {
    thread.close();
    throw error;
  }
}

async function withPragmas<C extends Client>(client: C, pragmas: readonly string[]): Promise<C> {
  try {
    for (const pragma of pragmas) await client.execute(pragma);
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

/**
 * Moves the WAL into the main file and truncates it, so deleted content does not linger in the
 * `-wal` file. Returns true when the WAL was truncated (always for a remote database, which has no
 * file here). Another connection's lock or a reader of an older snapshot holds it up: it is tried
 * again for up to BUSY_TIMEOUT_MS, then left to the next checkpoint (false; the data is already
 * deleted, only old frames remain). Any other error is thrown: forgetting on disk depends on this.
 *
 * On a database thread (ShortcutClient) the checkpoint runs on the thread, and each try returns
 * at once (no busy timeout there), so the event loop never waits for it.
 */
export async function checkpointWal(client: Client, url: string): Promise<boolean> {
  if (!isEmbeddedUrl(url) || url.includes(':memory:')) return true;
  const giveUpAt = performance.now() + BUSY_TIMEOUT_MS;
  for (let tries = 0; ; tries++) {
    try {
      // One row: busy (1 when the checkpoint could not finish), WAL frames, frames checkpointed.
      const rs = await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
      if (Number(rs.rows[0]?.[0]) === 0) return true;
    } catch (error) {
      if (!isLockError(error)) throw error;
    }
    if (performance.now() >= giveUpAt) return false;
    // 1, 2, 4 … ms, at most 50 between tries: not measured; a lock is usually held for milliseconds.
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 ** tries)));
  }
}
