/**
 * An embedded database on its own thread.
 *
 * The local libSQL driver is synchronous: in the main thread, every statement and every commit's
 * WAL sync (synchronous=FULL) blocks the event loop, so under 50 concurrent agents the API spent
 * a fifth of its time waiting on SQLite instead of serving HTTP (bench/, bench/README.md "Latest full run").
 * This client sends each call to a worker thread that owns the one connection (a LocalClient,
 * statements cached) and answers in order. Results and errors come back in exactly the shapes the
 * in-thread client gives (wire.ts), and `batchGroup` keeps group commit working across the hop.
 *
 * Opt in through `openDatabase({ thread: 'worker' })`; the API does for its memory database
 * (MEMORY_DB_THREAD=worker, its default). The hop buys throughput under many concurrent agents
 * (the event loop keeps serving HTTP while a commit syncs) but costs two thread wake-ups per
 * call (0.06–0.07 ms for a hot `SELECT 1`; 0.2–0.27 ms for a lone remember behind an HTTP server,
 * where both threads sleep between calls), so openDatabase pairs it with a second connection for
 * calls that find the thread idle (ShortcutClient).
 */
import { Worker } from 'node:worker_threads';
import { LibsqlError } from '@libsql/client';
import type { Client, InArgs, InStatement, ResultSet, TransactionMode } from '@libsql/client';
import { BatchOnlyClient, migrateWithForeignKeysOff } from '../local-client.ts';
import type { GroupOutcome } from '../local-client.ts';
import { fromWireError, fromWireResult } from './wire.ts';
import type { Reply, Request, WireOutcome, WireResultSet } from './wire.ts';

type Pending = {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The thread said this call found another connection's lock and is waiting for it. */
  waiting?: true;
};
type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * The thread's module. Built (`dist/`), this file is JavaScript and the thread runs the compiled
 * worker; run from source by tsx or a test runner, the thread starts through entry.mjs, which
 * registers tsx there (loader hooks do not reach threads everywhere).
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./entry.mjs', import.meta.url)
  : new URL('./worker.js', import.meta.url);

export class WorkerClient extends BatchOnlyClient implements Client {
  closed = false;
  readonly protocol = 'file';
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #stopped: Error | null = null;
  /** Calls waiting for another connection's lock on the thread (see worker.ts). */
  #waiting = 0;

  private constructor(worker: Worker) {
    super();
    this.#worker = worker;
    worker.on('message', (reply: Reply) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      if ('waiting' in reply) {
        p.waiting = true;
        this.#waiting++;
        return;
      }
      if (p.waiting) this.#waiting--;
      this.#pending.delete(reply.id);
      // Only keep the process alive while a call is waiting for its answer.
      if (this.#pending.size === 0) this.#worker.unref();
      if (reply.ok) p.resolve(reply.value);
      else p.reject(fromWireError(reply.error));
    });
    const stop = (error: Error) => {
      this.#stopped ??= error;
      for (const p of this.#pending.values()) p.reject(this.#stopped);
      this.#pending.clear();
      this.#waiting = 0;
    };
    worker.on('error', (error: Error) =>
      stop(new LibsqlError(`the database thread failed: ${error.message}`, 'CLIENT_CLOSED')),
    );
    worker.on('exit', () => stop(new LibsqlError('The client is closed', 'CLIENT_CLOSED')));
  }

  /** Starts the thread and opens the database there; rejects with the open error. */
  static open(url: string, options: { timeoutMs?: number } = {}): Promise<WorkerClient> {
    const worker = new Worker(WORKER_URL, {
      workerData: { url, timeoutMs: options.timeoutMs ?? 0 },
    });
    return new Promise((resolve, reject) => {
      const onReady = (reply: Reply) => {
        if (reply.id !== 0 || 'waiting' in reply) return;
        worker.off('message', onReady);
        worker.off('error', onError);
        if (reply.ok) {
          const client = new WorkerClient(worker);
          worker.unref();
          resolve(client);
        } else {
          void worker.terminate();
          reject(fromWireError(reply.error));
        }
      };
      const onError = (error: Error) => {
        worker.off('message', onReady);
        reject(new LibsqlError(`the database thread did not start: ${error.message}`, 'CLIENT_CLOSED'));
      };
      worker.on('message', onReady);
      worker.once('error', onError);
    });
  }

  /** true when every call sent to the thread has been answered (ShortcutClient's test). */
  get idle(): boolean {
    return this.#pending.size === 0;
  }

  /** true while a call on the thread waits for another connection's lock (ShortcutClient's test). */
  get waitingOnLock(): boolean {
    return this.#waiting > 0;
  }

  #call<T>(body: Body): Promise<T> {
    if (this.closed || this.#stopped)
      return Promise.reject(new LibsqlError('The client is closed', 'CLIENT_CLOSED'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.#worker.postMessage({ ...body, id });
      } catch (error) {
        // Arguments that cannot be cloned (a function, a symbol): the caller's mistake, said as such.
        this.#pending.delete(id);
        if (this.#pending.size === 0) this.#worker.unref();
        reject(
          new TypeError(`a statement argument cannot be sent to the database: ${(error as Error).message}`),
        );
      }
    });
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt = typeof stmtOrSql === 'string' ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    return fromWireResult(await this.#call<WireResultSet>({ op: 'execute', stmt }));
  }

  async batch(
    stmts: Array<InStatement | [string, InArgs?]>,
    mode: TransactionMode = 'deferred',
  ): Promise<ResultSet[]> {
    const normal = stmts.map((s) => (Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : s));
    return (await this.#call<WireResultSet[]>({ op: 'batch', stmts: normal, mode })).map(fromWireResult);
  }

  /** See LocalClient.batchGroup: one transaction and one commit for several all-or-nothing batches. */
  async batchGroup(batches: InStatement[][]): Promise<GroupOutcome[]> {
    const outcomes = await this.#call<WireOutcome[]>({ op: 'batchGroup', batches });
    return outcomes.map((o) =>
      o.ok
        ? { ok: true, results: o.results.map(fromWireResult) }
        : { ok: false, error: fromWireError(o.error) },
    );
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return migrateWithForeignKeysOff(this, stmts);
  }

  /** Closes the connection on its thread (after the calls already sent), then the thread ends. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.#stopped) return;
    const id = this.#nextId++;
    this.#pending.set(id, { resolve: () => {}, reject: () => {} });
    this.#worker.ref();
    this.#worker.postMessage({ op: 'close', id } satisfies Request);
  }
}
