/**
 * The database thread, with a shortcut for calls that find it idle.
 *
 * Handing a call to the thread costs two thread wake-ups: measured 0.12–0.14 ms to the thread and
 * 0.07–0.14 ms back for a lone remember behind an HTTP server (bench/, bench/README.md "Latest full run"),
 * more than a third of a commit. A call that arrives while the thread has nothing in hand runs
 * right here on the event loop instead, on a second connection to the same file, and pays
 * neither. Once calls overlap, the thread takes them, and group commit (write-queue.ts) gathers
 * them there; so a lone agent gets the event loop's latency and fifty get the thread's throughput.
 *
 * Locks: a call here must never wait for another process's lock (the purge worker, a second API,
 * `verify --repair`), since waiting on the event loop stalls every request of the process, `health`
 * included. This connection has no busy timeout: a call that finds the lock taken fails at once,
 * having changed nothing, and is handed to the thread, which waits for the lock there (worker.ts).
 * Checkpoints, which wait for other connections by nature, always run on the thread.
 *
 * Order and isolation: a write runs here only when every call sent to the thread has been
 * answered, and the embedded driver runs a call start to end without yielding, so the two
 * connections never hold a transaction at the same time within this process and writes keep their
 * order. Reads are the one exception: while the thread waits for a lock, a read runs here (WAL
 * readers take no lock), so the Memory panel does not queue behind the wait; it sees what was
 * committed, as it would a moment before the write it passes. A group of calls (`batchGroup`)
 * always goes to the thread: groups form only under load.
 */
import type { Client, InArgs, InStatement, ResultSet, TransactionMode } from '@libsql/client';
import { isLockError, isReadOnlySql } from '../locks.ts';
import { BatchOnlyClient, readRow } from '../local-client.ts';
import type { GroupOutcome, LocalClient, PlainRow } from '../local-client.ts';
import type { WorkerClient } from './worker-client.ts';

/** `PRAGMA wal_checkpoint(…)`: waits for other connections, so it runs on the thread. */
const CHECKPOINT = /^\s*PRAGMA\s+(\w+\.)?wal_checkpoint\b/i;

type Statement = InStatement | [string, InArgs?];
const sqlOf = (s: Statement): string => (typeof s === 'string' ? s : Array.isArray(s) ? s[0] : s.sql);

export class ShortcutClient extends BatchOnlyClient implements Client {
  readonly protocol = 'file';
  /**
   * How many calls took the shortcut, how many the thread, and how many of the shortcut's found
   * another connection's lock and were handed to the thread (for tests and the bench).
   */
  readonly stats = { near: 0, thread: 0, handedOver: 0 };
  readonly #thread: WorkerClient;
  readonly #near: LocalClient;
  /** Calls handed to the thread after finding the lock, not answered yet. */
  #handedOver = 0;

  /**
   * Both connections must already carry the same per-connection settings (openDatabase), with
   * no busy timeout: the thread waits for locks itself, and this one never does.
   */
  constructor(thread: WorkerClient, near: LocalClient) {
    super();
    this.#thread = thread;
    this.#near = near;
  }

  get closed(): boolean {
    return this.#thread.closed;
  }

  /** The thread is waiting for another connection's lock (or is about to: a call was handed over). */
  get #threadWaits(): boolean {
    return this.#handedOver > 0 || this.#thread.waitingOnLock;
  }

  /** Runs `call` here when it may, on the thread otherwise; a lock found here sends it to the thread. */
  async #run<T>(readOnly: boolean, call: (client: Client) => Promise<T>): Promise<T> {
    const here = !this.#near.closed && (this.#thread.idle || (readOnly && this.#threadWaits));
    if (!here) {
      this.stats.thread++;
      return call(this.#thread);
    }
    this.stats.near++;
    try {
      return await call(this.#near);
    } catch (error) {
      if (!isLockError(error)) throw error;
    }
    this.stats.handedOver++;
    this.#handedOver++;
    try {
      return await call(this.#thread);
    } finally {
      this.#handedOver--;
    }
  }

  execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt = typeof stmtOrSql === 'string' ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    const sql = sqlOf(stmt);
    if (CHECKPOINT.test(sql)) {
      this.stats.thread++;
      return this.#thread.execute(stmt);
    }
    return this.#run(isReadOnlySql(sql), (client) => client.execute(stmt));
  }

  /** A point read (LocalClient.readRow), here or on the thread as any other read. */
  readRow(stmt: InStatement): Promise<PlainRow | undefined> {
    return this.#run(true, (client) => readRow(client, stmt));
  }

  batch(stmts: Statement[], mode?: TransactionMode): Promise<ResultSet[]> {
    const readOnly = mode === 'read' || stmts.every((s) => isReadOnlySql(sqlOf(s)));
    return this.#run(readOnly, (client) => client.batch(stmts, mode));
  }

  batchGroup(batches: InStatement[][]): Promise<GroupOutcome[]> {
    this.stats.thread++;
    return this.#thread.batchGroup(batches);
  }

  /** Schema changes run on one connection (the pragma and the batch must meet); the other sees them. */
  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#thread.migrate(stmts);
  }

  close(): void {
    this.#near.close();
    this.#thread.close();
  }
}
