/**
 * The database thread, with a shortcut for calls that find it idle.
 *
 * Handing a call to the thread costs two thread wake-ups: measured 0.12–0.14 ms to the thread and
 * 0.07–0.14 ms back for a lone remember behind an HTTP server (bench/, README "Benchmarks"),
 * more than a third of a commit. A call that arrives while the thread has nothing in hand runs
 * right here on the event loop instead, on a second connection to the same file, and pays
 * neither. Once calls overlap, the thread takes them, and group commit (write-queue.ts) gathers
 * them there; so a lone agent gets the event loop's latency and fifty get the thread's throughput.
 *
 * Order and isolation: a call runs here only when every call sent to the thread has been answered,
 * and the embedded driver runs a call start to end without yielding, so the two connections never
 * hold a transaction at the same time within this process. Other processes (a second API, the
 * purge worker) meet either connection through SQLite's lock and busy timeout, as before.
 * A group of calls (`batchGroup`) always goes to the thread: groups form only under load.
 */
import type { Client, InArgs, InStatement, ResultSet, TransactionMode } from '@libsql/client';
import { notOffered } from '../local-client.ts';
import type { GroupOutcome, LocalClient } from '../local-client.ts';
import type { WorkerClient } from './worker-client.ts';

export class ShortcutClient implements Client {
  readonly protocol = 'file';
  /** How many calls took the shortcut and how many the thread (for tests and the bench). */
  readonly stats = { near: 0, thread: 0 };
  readonly #thread: WorkerClient;
  readonly #near: LocalClient;

  /** Both connections must already carry the same per-connection settings (openDatabase). */
  constructor(thread: WorkerClient, near: LocalClient) {
    this.#thread = thread;
    this.#near = near;
  }

  get closed(): boolean {
    return this.#thread.closed;
  }

  #pick(): Client {
    if (this.#thread.idle && !this.#near.closed) {
      this.stats.near++;
      return this.#near;
    }
    this.stats.thread++;
    return this.#thread;
  }

  execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const client = this.#pick();
    return typeof stmtOrSql === 'string' ? client.execute(stmtOrSql, args) : client.execute(stmtOrSql);
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return this.#pick().batch(stmts, mode);
  }

  batchGroup(batches: InStatement[][]): Promise<GroupOutcome[]> {
    this.stats.thread++;
    return this.#thread.batchGroup(batches);
  }

  /** Schema changes run on one connection (the pragma and the batch must meet); the other sees them. */
  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#thread.migrate(stmts);
  }

  async executeMultiple(_sql: string): Promise<never> {
    throw notOffered.executeMultiple();
  }

  async transaction(): Promise<never> {
    throw notOffered.transaction();
  }

  async sync(): Promise<never> {
    throw notOffered.sync();
  }

  reconnect(): void {
    throw notOffered.reconnect();
  }

  close(): void {
    this.#near.close();
    this.#thread.close();
  }
}
