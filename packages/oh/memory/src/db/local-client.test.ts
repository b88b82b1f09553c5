import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { createClient, LibsqlBatchError, LibsqlError } from '@libsql/client';
import type { Client, InStatement } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './open.ts';
import { ShortcutClient } from './thread/shortcut-client.ts';
import { WorkerClient } from './thread/worker-client.ts';
import { LocalClient, readRow, STATEMENT_CACHE_SIZE } from './local-client.ts';

let dir: string;
const open: Client[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(os.tmpdir(), 'sponge-local-client-'));
});
afterEach(() => {
  for (const c of open.splice(0)) c.close();
  rmSync(dir, { recursive: true, force: true });
});

function pair(): { local: LocalClient; stock: Client } {
  const local = new LocalClient(`file:${join(dir, 'local.db')}`);
  const stock = createClient({ url: `file:${join(dir, 'stock.db')}`, concurrency: 1 });
  open.push(local, stock);
  return { local, stock };
}

const CLIENTS: Array<[string, (path: string) => Promise<Client>]> = [
  ['LocalClient', async (path) => new LocalClient(`file:${path}`)],
  ['WorkerClient (database thread)', (path) => WorkerClient.open(`file:${path}`)],
  [
    'ShortcutClient (database thread, idle calls on the event loop)',
    async (path) =>
      new ShortcutClient(await WorkerClient.open(`file:${path}`), new LocalClient(`file:${path}`)),
  ],
];

const SETUP: InStatement[] = [
  'CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, f REAL, b BLOB, n INTEGER UNIQUE)',
  `CREATE TRIGGER t_guard BEFORE INSERT ON t WHEN NEW.s = 'forbidden' BEGIN SELECT RAISE(ABORT, 'sponge:integrity:no'); END`,
];

/** What a caller can observe of a result set (rows as plain objects and as index access). */
function observe(rs: {
  columns: string[];
  rows: ArrayLike<unknown>[];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
}) {
  return {
    columns: rs.columns,
    rows: rs.rows.map((r) => ({ ...r, byIndex: Array.from({ length: r.length }, (_, i) => r[i]) })),
    rowsAffected: rs.rowsAffected,
    lastInsertRowid: rs.lastInsertRowid,
  };
}

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    const v = await p;
    return Array.isArray(v) ? { ok: v.map((x) => observe(x)) } : { ok: observe(v as never) };
  } catch (e) {
    const err = e as LibsqlError & { index?: number };
    return {
      error: err.constructor.name,
      code: err.code,
      extendedCode: err.extendedCode,
      index: err.index,
      message: err.message,
    };
  }
}

describe.each(CLIENTS)('%s', (_, openClient) => {
  it('answers every statement exactly as the stock @libsql/client local driver does', async () => {
    const local = await openClient(join(dir, 'local.db'));
    const stock = createClient({ url: `file:${join(dir, 'stock.db')}`, concurrency: 1 });
    open.push(local, stock);
    const script: Array<(c: Client) => Promise<unknown>> = [
      (c) => c.batch(SETUP, 'write'),
      (c) =>
        c.execute({
          sql: 'INSERT INTO t (s, f, b, n) VALUES (?, ?, ?, ?)',
          args: ['a', 1.5, new Uint8Array([1, 2, 3]), 7],
        }),
      (c) =>
        c.execute({
          sql: 'INSERT INTO t (s, f, b, n) VALUES (:s, @f, $b, :n)',
          args: { s: 'é🙂', f: -0.25, b: null, n: 9007199254740991n },
        }),
      (c) => c.execute('SELECT id, s, f, b, n, s AS s FROM t ORDER BY id'),
      (c) => c.execute({ sql: 'SELECT n FROM t WHERE n > ?', args: [true] }),
      (c) => c.execute('SELECT 9223372036854775807 AS big'),
      (c) => c.execute({ sql: 'INSERT INTO t (s) VALUES (?)', args: ['forbidden'] }),
      (c) => c.execute({ sql: 'INSERT INTO t (n) VALUES (?)', args: [7] }),
      (c) => c.execute('SELEC nonsense'),
      (c) =>
        c.batch(
          [
            { sql: 'INSERT INTO t (s) VALUES (?)', args: ['kept?'] },
            { sql: 'INSERT INTO t (n) VALUES (7)', args: [] },
          ],
          'write',
        ),
      (c) => c.execute('SELECT count(*) AS c FROM t'),
      (c) => c.batch(['SELECT 1 AS one', ['SELECT ? AS two', [2]]], 'read'),
      (c) => c.execute({ sql: 'SELECT ?', args: [Number.NaN] }),
    ];
    for (const [i, step] of script.entries()) {
      expect(await outcome(step(local)), `step ${i}`).toEqual(await outcome(step(stock)));
    }
  });

  it('commits a group of batches once, each all-or-nothing', async () => {
    const client = (await openClient(join(dir, 'group.db'))) as LocalClient | WorkerClient | ShortcutClient;
    open.push(client);
    await client.batch(SETUP, 'write');
    const outcomes = await client.batchGroup([
      [{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['a', 1] }],
      [
        { sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['b', 2] },
        { sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['forbidden', 3] },
      ],
      [{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['c', 1] }],
      [{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['d', 4] }],
    ]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, false, true]);
    const failed = outcomes[1] as { ok: false; error: LibsqlBatchError };
    expect(failed.error).toBeInstanceOf(LibsqlBatchError);
    expect(failed.error).toMatchObject({ statementIndex: 1, code: 'SQLITE_CONSTRAINT' });
    expect(failed.error.message).toMatch(/sponge:integrity:no/);
    expect((await client.execute('SELECT s FROM t ORDER BY n')).rows.map((r) => r.s)).toEqual(['a', 'd']);
  });

  it('migrates with foreign keys off, then on again; refuses what it does not offer', async () => {
    const client = await openClient(join(dir, 'migrate.db'));
    open.push(client);
    await client.execute('PRAGMA foreign_keys = ON');
    await client.migrate([
      'CREATE TABLE p (id INTEGER PRIMARY KEY)',
      'CREATE TABLE c (p INTEGER REFERENCES p (id))',
    ]);
    expect((await client.execute('PRAGMA foreign_keys')).rows[0]![0]).toBe(1);
    await expect(client.transaction()).rejects.toMatchObject({ code: 'TRANSACTION_NOT_SUPPORTED' });
    await expect(client.sync()).rejects.toMatchObject({ code: 'SYNC_NOT_SUPPORTED' });
    await expect(client.executeMultiple('CREATE TABLE x (a); DROP TABLE p')).rejects.toMatchObject({
      code: 'EXECUTE_MULTIPLE_NOT_SUPPORTED',
    });
    expect(
      (await client.execute("SELECT count(*) AS n FROM sqlite_master WHERE name IN ('p', 'x')")).rows[0]!.n,
    ).toBe(1);
    expect(() => client.reconnect()).toThrow(/not supported/);
  });

  it('reads the first row by column name as execute gives it (readRow), or nothing; never writes', async () => {
    const client = await openClient(join(dir, 'read-row.db'));
    open.push(client);
    await client.batch(SETUP, 'write');
    await client.batch(
      [
        {
          sql: 'INSERT INTO t (s, f, b, n) VALUES (?, ?, ?, ?)',
          args: ['one', 1.5, new Uint8Array([1, 2]), 2 ** 53 - 1],
        },
        { sql: 'INSERT INTO t (s, f, b, n) VALUES (?, ?, ?, ?)', args: ['two', null, null, null] },
      ],
      'write',
    );
    // A repeated name keeps its first column, as in a Row; `__proto__` is a column like any other.
    const sql = 'SELECT id, s, f, b, n, NULL AS missing, s AS id, 7 AS "__proto__" FROM t ORDER BY id';
    const plain = (row: object | undefined) =>
      row && Object.entries(row).map(([k, v]) => [k, v instanceof ArrayBuffer ? [...new Uint8Array(v)] : v]);
    const row = await readRow(client, sql);
    expect(plain(row)).toEqual(plain({ ...(await client.execute(sql)).rows[0] }));
    expect(plain(row)).toEqual([
      ['id', 1],
      ['s', 'one'],
      ['f', 1.5],
      ['b', [1, 2]],
      ['n', 2 ** 53 - 1],
      ['missing', null],
      ['__proto__', 7],
    ]);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(await readRow(client, { sql: 'SELECT id FROM t WHERE s = ?', args: ['none'] })).toBeUndefined();
    await expect(readRow(client, "INSERT INTO t (s) VALUES ('three')")).rejects.toThrow(RangeError);
    expect((await client.execute('SELECT count(*) AS c FROM t')).rows[0]!.c).toBe(2);
  });

  it('refuses calls once closed', async () => {
    const client = await openClient(join(dir, 'closed.db'));
    await client.execute('SELECT 1');
    client.close();
    expect(client.closed).toBe(true);
    await expect(client.execute('SELECT 1')).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    await expect(client.batch(['SELECT 1'], 'read')).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });
});

describe('LocalClient', () => {
  it('rolls a failed batch back entirely and stays usable', async () => {
    const { local } = pair();
    await local.batch(SETUP, 'write');
    const failed = local.batch(
      [
        { sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['one', 1] },
        { sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['forbidden', 2] },
      ],
      'write',
    );
    await expect(failed).rejects.toBeInstanceOf(LibsqlBatchError);
    await expect(failed).rejects.toMatchObject({ statementIndex: 1, code: 'SQLITE_CONSTRAINT' });
    expect((await local.execute('SELECT count(*) AS c FROM t')).rows[0]!.c).toBe(0);
    await local.batch([{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['two', 2] }], 'write');
    expect((await local.execute('SELECT count(*) AS c FROM t')).rows[0]!.c).toBe(1);
  });

  it('prepares a statement once and re-runs it, within a bounded cache', async () => {
    const { local } = pair();
    await local.batch(SETUP, 'write');
    const before = local.preparedStatements;
    for (let i = 0; i < 50; i++)
      await local.execute({ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: [`x${i}`, i] });
    expect(local.preparedStatements).toBe(before + 1);
    for (let i = 0; i < STATEMENT_CACHE_SIZE + 20; i++) await local.execute(`SELECT ${i} AS v`);
    expect(local.preparedStatements).toBe(STATEMENT_CACHE_SIZE);
    // A statement prepared before a schema change still runs against the new schema.
    await local.execute('ALTER TABLE t ADD COLUMN extra TEXT');
    const rs = await local.execute('SELECT * FROM t LIMIT 1');
    expect(rs.columns).toContain('extra');
  });

  it('keeps the column list of a statement that names its columns, handing out copies', async () => {
    const { local, stock } = pair();
    for (const c of [local, stock]) {
      await c.batch(SETUP, 'write');
      await c.execute({ sql: 'INSERT INTO t (s, f, n) VALUES (?, ?, ?)', args: ['one', 1.5, 1] });
    }
    const sql = 'SELECT s AS label, f, n + 1 AS next FROM t';
    const first = await local.execute(sql);
    first.columns.push('changed by the caller');
    first.columnTypes.pop();
    const again = await local.execute(sql);
    expect(observe(again)).toEqual(observe(await stock.execute(sql)));
    expect(again.columnTypes).toEqual((await stock.execute(sql)).columnTypes);
    expect(again.rows[0]!.label).toBe('one');
  });

  it('answers a point read with one native call, its statement prepared once (readRow)', async () => {
    const { local } = pair();
    await local.batch(SETUP, 'write');
    await local.execute({ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['one', 1] });
    const Database = createRequire(import.meta.url)('libsql') as new (path: string) => {
      prepare(sql: string): object;
    };
    const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as {
      all: () => unknown;
      get: () => unknown;
    };
    const read = { sql: 'SELECT s, n FROM t WHERE n = ?', args: [1] };
    await readRow(local, read);
    const prepared = local.preparedStatements;
    const all = vi.spyOn(statement, 'all');
    const get = vi.spyOn(statement, 'get');
    try {
      for (let i = 0; i < 10; i++) expect(await readRow(local, read)).toEqual({ s: 'one', n: 1 });
      // libsql's `all` iterates in two native calls (rows, then a buffer of 100) and each row
      // became a Row; `get` is one call that resets the statement after its row.
      expect([get.mock.calls.length, all.mock.calls.length]).toEqual([10, 0]);
      expect(local.preparedStatements).toBe(prepared);
    } finally {
      all.mockRestore();
      get.mockRestore();
    }
  });

  it('leaves no read open after a point read: the next read sees what another connection committed', async () => {
    const { local } = pair();
    const other = new LocalClient(`file:${join(dir, 'local.db')}`);
    open.push(other);
    // As the store opens its files (openDatabase): in WAL mode a reader blocks no writer, it keeps a snapshot.
    await local.execute('PRAGMA journal_mode = WAL');
    await local.batch(SETUP, 'write');
    // More rows than libsql fetches at a time (100): a read stopped after its first row would
    // still be in its statement, holding its snapshot, unless the statement is reset.
    await local.execute(
      `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300)
       INSERT INTO t (s) SELECT 'r' || i FROM c`,
    );
    const first = 'SELECT s FROM t ORDER BY id';
    expect(await readRow(local, first)).toEqual({ s: 'r1' });
    await other.execute("UPDATE t SET s = 'changed' WHERE id = 1");
    expect((await local.execute('SELECT s FROM t WHERE id = 1')).rows[0]!.s).toBe('changed');
    expect(await readRow(local, first)).toEqual({ s: 'changed' });
    // …nor hold the WAL: a reader's snapshot would keep a TRUNCATE checkpoint from finishing.
    await readRow(local, first);
    expect((await other.execute('PRAGMA wal_checkpoint(TRUNCATE)')).rows[0]![0]).toBe(0);
  });

  it('refuses interactive transactions (the store never uses them)', async () => {
    const { local } = pair();
    await expect(local.transaction()).rejects.toBeInstanceOf(LibsqlError);
  });
});

describe('openDatabase synchronous', () => {
  it('is FULL by default and NORMAL when asked, on the connection that runs every statement', async () => {
    const full = await openDatabase({ url: `file:${join(dir, 'full.db')}` });
    const normal = await openDatabase({ url: `file:${join(dir, 'normal.db')}`, synchronous: 'NORMAL' });
    open.push(full, normal);
    expect(full).toBeInstanceOf(LocalClient);
    // PRAGMA synchronous: 1 = NORMAL, 2 = FULL.
    for (let i = 0; i < 3; i++) {
      expect((await full.execute('PRAGMA synchronous')).rows[0]![0]).toBe(2);
      expect((await normal.execute('PRAGMA synchronous')).rows[0]![0]).toBe(1);
    }
    await expect(
      openDatabase({ url: `file:${join(dir, 'x.db')}`, synchronous: 'OFF' as never }),
    ).rejects.toThrow(/FULL or NORMAL/);
  });
});

describe('ShortcutClient', () => {
  async function openShortcut(name: string): Promise<ShortcutClient> {
    const client = await openDatabase({ url: `file:${join(dir, name)}`, thread: 'worker' });
    open.push(client);
    expect(client).toBeInstanceOf(ShortcutClient);
    return client as ShortcutClient;
  }

  it('runs a call that finds the thread idle on the event loop, and overlapping calls on the thread', async () => {
    const client = await openShortcut('shortcut.db');
    await client.batch(SETUP, 'write');
    for (let i = 0; i < 5; i++)
      await client.execute({ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: [`a${i}`, i] });
    expect(client.stats).toEqual({ near: 6, thread: 0, handedOver: 0 });

    // A group goes to the thread; what arrives while it is there follows it, in order.
    const group = client.batchGroup([[{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['g', 100] }]]);
    const seen = client.execute('SELECT count(*) AS c FROM t');
    const late = client.batch([{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['late', 101] }], 'write');
    expect(client.stats).toEqual({ near: 6, thread: 3, handedOver: 0 });
    expect((await group)[0]!.ok).toBe(true);
    expect((await seen).rows[0]!.c).toBe(6);
    await late;

    // Each connection sees what the other committed.
    expect((await client.execute('SELECT count(*) AS c FROM t')).rows[0]!.c).toBe(7);
    expect(client.stats.near).toBe(7);
    const refused = client.batch(
      [{ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['dup', 101] }],
      'write',
    );
    await expect(refused).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT' });
  });

  it('gives both connections the same settings, neither waiting in SQLite (openDatabase)', async () => {
    const client = await openShortcut('settings.db');
    const settings = async () =>
      Promise.all(
        ['synchronous', 'busy_timeout', 'foreign_keys', 'secure_delete', 'cache_size', 'journal_mode'].map(
          async (p) => (await client.execute(`PRAGMA ${p}`)).rows[0]![0],
        ),
      );
    // busy_timeout 0 on both: the thread waits for locks itself, the event loop never (lock-wait.test.ts).
    const expected = [2, 0, 1, 1, -65536, 'wal'];
    expect(await settings()).toEqual(expected);
    expect(client.stats.thread).toBe(0);
    // While a group is on the thread, the same questions are answered by the thread's connection.
    const group = client.batchGroup([['SELECT 1']]);
    const onThread = settings();
    expect(client.stats.thread).toBe(7);
    await group;
    expect(await onThread).toEqual(expected);
  });

  it('reads a point read on the event loop when the thread is idle, on the thread behind a group', async () => {
    const client = await openShortcut('read-row.db');
    await client.batch(SETUP, 'write');
    await client.execute({ sql: 'INSERT INTO t (s, n) VALUES (?, ?)', args: ['one', 1] });
    const read = { sql: 'SELECT s FROM t WHERE n = ?', args: [1] };
    expect(await readRow(client, read)).toEqual({ s: 'one' });
    expect(client.stats).toEqual({ near: 3, thread: 0, handedOver: 0 });
    const group = client.batchGroup([[{ sql: 'UPDATE t SET s = ? WHERE n = ?', args: ['two', 1] }]]);
    const behind = readRow(client, read);
    expect(client.stats).toEqual({ near: 3, thread: 2, handedOver: 0 });
    await group;
    expect(await behind).toEqual({ s: 'two' });
  });

  it('is not used for an in-memory database (a second connection would be another database)', async () => {
    const client = await openDatabase({ url: ':memory:', thread: 'worker' });
    open.push(client);
    expect(client).toBeInstanceOf(WorkerClient);
  });
});
