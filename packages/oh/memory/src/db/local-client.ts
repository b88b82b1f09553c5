/**
 * The embedded-file client: @libsql/client's local driver, plus a prepared-statement cache.
 *
 * Why not `createClient({ url: 'file:…' })` itself: its local driver calls `prepare(sql)` for
 * every statement it runs and keeps nothing. SQLite compiles every trigger a statement can fire
 * into that statement's program, so preparing the remember batch's `note_changes` insert (and
 * the trigger tree behind it) measured ~170 µs, the log insert ~64 µs, against ~14 µs for a
 * plain one-row insert — most of the store's own cost per call (bench/, bench/README.md "Latest full run").
 * This client keeps the prepared statements of one connection in an LRU and re-runs them.
 *
 * Everything else follows @libsql/client 0.18's `sqlite3.js` on purpose (same `libsql` native
 * driver, same argument conversion, same rows, same LibsqlError / LibsqlBatchError codes, the
 * same "BEGIN IMMEDIATE … COMMIT" batches, rolled back on any error), so the store's error
 * mapping and every caller see exactly what the stock client gives. It holds ONE connection:
 * the store's PRAGMAs bind per connection (see db.ts), and the write path is one batch per call.
 * It keeps what the store calls (execute, batch, batchGroup, close; `readRow` for point reads) and
 * `migrate()`, which the database thread's client shares (migrateWithForeignKeysOff). Interactive
 * transactions (a remote server would hold a stream for them) and `executeMultiple()` (unchecked
 * SQL scripts; the store's migrations are batches) are not offered: they refuse, as `sync()` and
 * `reconnect()` do.
 */
import { createRequire } from 'node:module';
import { LibsqlBatchError, LibsqlError } from '@libsql/client';
import type {
  Client,
  InArgs,
  InStatement,
  InValue,
  ResultSet,
  Row,
  TransactionMode,
  Value,
} from '@libsql/client';
import { expandConfig, isInMemoryConfig } from '@libsql/core/config';
import { ResultSetImpl, transactionModeToBegin } from '@libsql/core/util';
import { isReadOnlySql, takesWriteLock } from './locks.ts';

// libsql is CommonJS with `module.exports = Database`.
const Database = createRequire(import.meta.url)('libsql') as LibsqlDatabaseConstructor;

interface LibsqlStatement {
  raw(on?: boolean): LibsqlStatement;
  safeIntegers(on?: boolean): LibsqlStatement;
  columns(): Array<{ name: string; type: string | null }>;
  all(args: unknown): unknown[][];
  /** The first row (raw mode: its values), the statement reset after it; undefined when none. */
  get(args: unknown): unknown[] | undefined;
  run(args: unknown): { changes: number; lastInsertRowid: number | bigint };
}
interface LibsqlDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): LibsqlStatement;
  exec(sql: string): void;
  close(): void;
}
interface LibsqlDatabaseConstructor {
  new (path: string, options?: { timeout?: number }): LibsqlDatabase;
  SqliteError: new (...args: never[]) => Error & { code: string; rawCode?: number };
}

/**
 * Distinct SQL texts kept prepared. The store issues a few dozen; dynamic IN-lists rotate through.
 * Why statements are kept at all is measured (bench/README.md, notebook, "What the performance work
 * changed": compiling the change insert with its triggers took ~170 µs); the size is not: more
 * holds more compiled programs in memory, fewer recompiles the rotating IN-lists sooner.
 */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * What the store's clients (this one, WorkerClient, ShortcutClient) leave out of @libsql/client's
 * Client, each refusing it in the same words: interactive transactions, executeMultiple(), sync()
 * and reconnect().
 */
export abstract class BatchOnlyClient {
  async transaction(): Promise<never> {
    throw new LibsqlError(
      'interactive transactions are not used by this store; use batch()',
      'TRANSACTION_NOT_SUPPORTED',
    );
  }

  // The parameter stays for callers typed against Client; refused before any round trip.
  async executeMultiple(_sql: string): Promise<never> {
    throw new LibsqlError(
      'executeMultiple() is not used by this store; use batch()',
      'EXECUTE_MULTIPLE_NOT_SUPPORTED',
    );
  }

  async sync(): Promise<never> {
    throw new LibsqlError(
      'sync() is for embedded replicas; this is a plain local file',
      'SYNC_NOT_SUPPORTED',
    );
  }

  reconnect(): void {
    throw new LibsqlError('reconnect() is not supported by the embedded client', 'RECONNECT_NOT_SUPPORTED');
  }
}

/** `migrate` as @libsql/client's local driver does it: one batch with foreign keys off. */
export async function migrateWithForeignKeysOff(
  client: Pick<Client, 'execute' | 'batch'>,
  stmts: InStatement[],
): Promise<ResultSet[]> {
  await client.execute('PRAGMA foreign_keys=off');
  try {
    return await client.batch(stmts, 'deferred');
  } finally {
    await client.execute('PRAGMA foreign_keys=on');
  }
}

export type GroupOutcome = { ok: true; results: ResultSet[] } | { ok: false; error: unknown };

interface Cached {
  stmt: LibsqlStatement;
  /** false: the statement returns no rows (raw() threw). */
  returnsData: boolean;
  /**
   * The result's column names and declared types, kept when the SQL names its columns itself
   * (no `*`): then a schema change cannot alter the names (a declared type could change only if
   * a column were dropped and added again, which no migration here does), and reading them from
   * the driver was a quarter of a cold point query (0.03 ms of the API's run lookup). With a `*`
   * they are re-read on every run, since a column added later belongs in the answer.
   */
  columns?: { names: string[]; types: string[] };
}

export class LocalClient extends BatchOnlyClient implements Client {
  closed = false;
  readonly protocol = 'file';
  readonly #db: LibsqlDatabase;
  readonly #cache = new Map<string, Cached>();

  constructor(url: string, options: { timeoutMs?: number } = {}) {
    super();
    const config = expandConfig({ url }, true);
    if (config.scheme !== 'file')
      throw new LibsqlError(
        `LocalClient opens file: URLs only, not ${config.scheme}:`,
        'URL_SCHEME_NOT_SUPPORTED',
      );
    const path = isInMemoryConfig(config) ? `${config.scheme}:${config.path}` : config.path;
    try {
      this.#db = new Database(path, options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {});
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    this.#checkOpen();
    const stmt = typeof stmtOrSql === 'string' ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    if (!takesWriteLock(stmt.sql) || this.#db.inTransaction) return this.#run(stmt);
    // A write on its own takes the lock in a BEGIN of its own (see #begin), with the same result.
    this.#begin('write');
    try {
      const result = this.#run(stmt);
      this.#run('COMMIT');
      return result;
    } finally {
      this.#rollbackIfOpen();
    }
  }

  async batch(
    stmts: Array<InStatement | [string, InArgs?]>,
    mode: TransactionMode = 'deferred',
  ): Promise<ResultSet[]> {
    this.#checkOpen();
    // A deferred batch that writes would take the lock half-way, in a cached statement (#begin).
    const writes = mode === 'deferred' && !stmts.every((s) => isReadOnlySql(sqlOf(s)));
    this.#begin(writes ? 'write' : mode);
    try {
      const results = this.#runAll(stmts);
      this.#run('COMMIT');
      return results;
    } finally {
      this.#rollbackIfOpen();
    }
  }

  /**
   * Group commit: several independent write batches in ONE transaction, so one commit (one WAL
   * sync) serves them all. Each batch still applies all-or-nothing on its own: it runs inside a
   * SAVEPOINT that is rolled back if any of its statements fails, and later batches see exactly
   * what the earlier ones in the group left, as if each had committed alone, in order.
   *
   * Returns one outcome per batch. Throws (nothing committed) when the group as a whole fails:
   * the lock could not be taken, an error ended the whole transaction, or the commit failed;
   * the caller then runs the batches one by one.
   */
  async batchGroup(batches: InStatement[][]): Promise<GroupOutcome[]> {
    this.#checkOpen();
    this.#begin('write');
    try {
      const outcomes: GroupOutcome[] = [];
      for (const stmts of batches) {
        this.#run('SAVEPOINT sponge_call');
        try {
          const results = this.#runAll(stmts);
          this.#run('RELEASE sponge_call');
          outcomes.push({ ok: true, results });
        } catch (error) {
          // An I/O or busy error can end the transaction itself: then nothing of the group stands.
          if (!this.#db.inTransaction) throw error;
          this.#run('ROLLBACK TO sponge_call');
          this.#run('RELEASE sponge_call');
          outcomes.push({ ok: false, error });
        }
      }
      this.#run('COMMIT');
      return outcomes;
    } finally {
      this.#rollbackIfOpen();
    }
  }

  /** The statements of one batch, in an open transaction; a failure says which statement. */
  #runAll(stmts: Array<InStatement | [string, InArgs?]>): ResultSet[] {
    const results: ResultSet[] = [];
    for (let i = 0; i < stmts.length; i++) {
      if (!this.#db.inTransaction)
        throw new LibsqlBatchError('The transaction has been rolled back', i, 'TRANSACTION_CLOSED');
      const s = stmts[i]!;
      try {
        results.push(this.#run(Array.isArray(s) ? { sql: s[0], args: s[1] ?? [] } : s));
      } catch (e) {
        if (e instanceof LibsqlError && !(e instanceof LibsqlBatchError)) {
          throw new LibsqlBatchError(
            e.message,
            i,
            e.code,
            e.extendedCode,
            e.rawCode,
            e.cause instanceof Error ? e.cause : undefined,
          );
        }
        throw e;
      }
    }
    return results;
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return migrateWithForeignKeysOff(this, stmts);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#cache.clear();
    try {
      if (this.#db.open) this.#db.close();
    } catch {
      // nothing useful to do while tearing down
    }
  }

  /** How many statements are prepared (for tests). */
  get preparedStatements(): number {
    return this.#cache.size;
  }

  #prepare(sql: string): Cached {
    const hit = this.#cache.get(sql);
    if (hit) {
      // LRU: move to the back.
      this.#cache.delete(sql);
      this.#cache.set(sql, hit);
      return hit;
    }
    const stmt = this.#db.prepare(sql);
    stmt.safeIntegers(true);
    let returnsData = true;
    try {
      stmt.raw(true);
    } catch {
      // raw() throws when the statement returns no rows
      returnsData = false;
    }
    const entry = { stmt, returnsData };
    this.#cache.set(sql, entry);
    if (this.#cache.size > STATEMENT_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    return entry;
  }

  /**
   * The first row of a read as a plain object of its columns by name (the first column of a name
   * wins, as in a Row), or undefined when there is none. One native call (`get`, which resets the
   * statement after the row, so no read transaction stays open) and no Row: for a point read on
   * every request, where iterating and building the Row (each index a non-enumerable property)
   * cost more than SQLite's own work (bench/README.md, issue 42). Values convert as `execute`'s.
   */
  async readRow(stmt: InStatement): Promise<PlainRow | undefined> {
    this.#checkOpen();
    const { sql, args } = typeof stmt === 'string' ? { sql: stmt, args: [] as InArgs } : stmt;
    if (!isReadOnlySql(sql)) throw new RangeError('readRow only reads (SELECT or VALUES)');
    try {
      const bound = bindArgs(args ?? []);
      const cached = this.#prepare(sql);
      const values = cached.stmt.get(bound);
      return values === undefined ? undefined : plainRow(values, this.#columns(cached, sql).names);
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  #columns(cached: Cached, sql: string): { names: string[]; types: string[] } {
    const columns = cached.columns ?? columnsOf(cached.stmt);
    if (!cached.columns && !sql.includes('*')) cached.columns = columns;
    return columns;
  }

  #run(stmt: InStatement): ResultSet {
    const { sql, args } =
      typeof stmt === 'string' ? { sql: stmt, args: [] as InArgs } : { sql: stmt.sql, args: stmt.args ?? [] };
    try {
      const bound = bindArgs(args);
      const cached = this.#prepare(sql);
      const { stmt: prepared, returnsData } = cached;
      if (returnsData) {
        const columns = this.#columns(cached, sql);
        const rows = prepared.all(bound).map((r) => rowFromSql(r, columns.names));
        // Copies: a caller may change its result set, never the cache.
        return new ResultSetImpl([...columns.names], [...columns.types], rows, 0, undefined);
      }
      const info = prepared.run(bound);
      return new ResultSetImpl([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  /**
   * Starts a transaction; the write lock is taken here, and only here. Not through a cached
   * statement: a prepared statement that fails on another connection's lock is not reset by the
   * driver, and until it is, every later read of this connection sees the database as it was
   * then, whatever other connections commit (measured with libsql 0.5: a read after such a
   * failure kept returning the old row count). `exec` prepares, runs and finalizes.
   */
  #begin(mode: TransactionMode): void {
    try {
      this.#db.exec(transactionModeToBegin(mode));
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  #rollbackIfOpen(): void {
    if (!this.#db.open || !this.#db.inTransaction) return;
    try {
      this.#db.prepare('ROLLBACK').run([]);
    } catch {
      // The connection is unusable; later calls will say so.
    }
  }

  #checkOpen(): void {
    if (this.closed) throw new LibsqlError('The client is closed', 'CLIENT_CLOSED');
  }
}

const sqlOf = (s: InStatement | [string, InArgs?]): string =>
  typeof s === 'string' ? s : Array.isArray(s) ? s[0] : s.sql;

function columnsOf(stmt: LibsqlStatement): { names: string[]; types: string[] } {
  const cols = stmt.columns();
  return { names: cols.map((c) => c.name), types: cols.map((c) => c.type ?? '') };
}

function bindArgs(args: InArgs): unknown {
  if (Array.isArray(args)) return args.map(valueToSql);
  const named: Record<string, unknown> = {};
  for (const name in args) {
    const key = name[0] === '@' || name[0] === '$' || name[0] === ':' ? name.substring(1) : name;
    named[key] = valueToSql(args[name]);
  }
  return named;
}

const MIN_I64 = -9223372036854775808n;
const MAX_I64 = 9223372036854775807n;

function valueToSql(value: InValue | undefined): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new RangeError('Only finite numbers (not Infinity or NaN) can be passed as arguments');
    return value;
  }
  if (typeof value === 'bigint') {
    if (value < MIN_I64 || value > MAX_I64)
      throw new RangeError(
        'bigint is too large to be represented as a 64-bit integer and passed as argument',
      );
    return value;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError('undefined cannot be passed as argument to the database');
  return value;
}

/** A row read by {@link readRow}: its columns by name. */
export type PlainRow = Record<string, Value>;

/**
 * The first row of a read, by column name: through the client's own `readRow` when it has one
 * (the embedded clients), from `execute` otherwise (a server, the database thread).
 */
export async function readRow(client: Client, stmt: InStatement): Promise<PlainRow | undefined> {
  if (!isReadOnlySql(sqlOf(stmt))) throw new RangeError('readRow only reads (SELECT or VALUES)');
  if ('readRow' in client && typeof client.readRow === 'function')
    return (client as { readRow(s: InStatement): Promise<PlainRow | undefined> }).readRow(stmt);
  const row = (await client.execute(stmt)).rows[0];
  // A Row's names are its own enumerable properties, its indexes and length are not.
  return row === undefined ? undefined : { ...row };
}

function plainRow(values: unknown[], columns: string[]): PlainRow {
  const row: PlainRow = {};
  for (let i = 0; i < values.length; ++i) {
    const column = columns[i]!;
    if (Object.hasOwn(row, column)) continue;
    const value = valueFromSql(values[i]) as Value;
    // Assigning `__proto__` would set the prototype, not a column.
    if (column === '__proto__')
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
    else row[column] = value;
  }
  return row;
}

function rowFromSql(sqlRow: unknown[], columns: string[]): Row {
  return shapeRow(sqlRow.map(valueFromSql), columns);
}

/**
 * A row as @libsql/client gives it: values by index (not enumerable), by column name (the first
 * column of a name wins), and a non-enumerable `length`.
 */
export function shapeRow(values: unknown[], columns: string[]): Row {
  const row = {} as Row;
  Object.defineProperty(row, 'length', { value: values.length });
  for (let i = 0; i < values.length; ++i) {
    const value = values[i];
    Object.defineProperty(row, i, { value });
    const column = columns[i]!;
    if (!Object.hasOwn(row, column)) {
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
    }
  }
  return row;
}

function valueFromSql(value: unknown): unknown {
  if (typeof value === 'bigint') {
    if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new RangeError('Received integer which cannot be safely represented as a JavaScript number');
    }
    return Number(value);
  }
  if (value instanceof Buffer) {
    const blob: Buffer = value;
    // As the stock client: the blob's own ArrayBuffer (copied only if the driver handed out a view into a larger one).
    return blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength
      ? blob.buffer
      : blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength);
  }
  return value;
}

const SQLITE_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  12: 'SQLITE_NOTFOUND',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  16: 'SQLITE_EMPTY',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  22: 'SQLITE_NOLFS',
  23: 'SQLITE_AUTH',
  24: 'SQLITE_FORMAT',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
  27: 'SQLITE_NOTICE',
  28: 'SQLITE_WARNING',
};

function mapSqliteError(e: unknown): unknown {
  if (e instanceof Database.SqliteError) {
    const base =
      e.rawCode === undefined
        ? 'SQLITE_UNKNOWN'
        : (SQLITE_CODES[e.rawCode & 0xff] ?? `SQLITE_UNKNOWN_${e.rawCode & 0xff}`);
    return new LibsqlError(e.message, base, e.code, e.rawCode, e);
  }
  return e;
}
