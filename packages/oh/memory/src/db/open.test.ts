import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_TIMEOUT_MS, isEmbeddedUrl, openDatabase } from './open.ts';
import { MemoryError } from '../errors.ts';
import { applyMigrations } from './migrations.ts';
import type { Migration } from './migrations.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});
function tempUrl(name = 'x.db'): string {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-db-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `file:${join(dir, name)}`;
}
async function open(url: string): Promise<Client> {
  const client = await openDatabase({ url });
  cleanups.push(() => client.close());
  return client;
}
const pragma = async (client: Client, name: string) =>
  Object.values((await client.execute(`PRAGMA ${name}`)).rows[0] ?? {})[0];

describe('openDatabase', () => {
  it('keeps WAL, synchronous=FULL, busy_timeout, foreign_keys and secure_delete in force after many calls', async () => {
    const client = await open(tempUrl());
    // Many calls, concurrent ones included: with a pooled client these could land on fresh
    // connections without the per-connection pragmas. With concurrency 1 they cannot.
    await client.execute('CREATE TABLE t (x INTEGER)');
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => client.execute({ sql: 'INSERT INTO t VALUES (?)', args: [i] })),
    );
    await Promise.all(
      Array.from({ length: 30 }, () => client.batch(['SELECT count(*) FROM t', 'SELECT 1'], 'read')),
    );
    const seen = await Promise.all(
      Array.from({ length: 20 }, async () => ({
        journal: await pragma(client, 'journal_mode'),
        synchronous: await pragma(client, 'synchronous'),
        busy: await pragma(client, 'busy_timeout'),
        fk: await pragma(client, 'foreign_keys'),
        secure: await pragma(client, 'secure_delete'),
      })),
    );
    for (const s of seen)
      expect(s).toEqual({ journal: 'wal', synchronous: 2, busy: BUSY_TIMEOUT_MS, fk: 1, secure: 1 });
  });

  it('does not touch a remote URL at open (no file pragmas, no network until used)', async () => {
    expect(isEmbeddedUrl('libsql://db.example.turso.io')).toBe(false);
    expect(isEmbeddedUrl('https://db.example')).toBe(false);
    expect(isEmbeddedUrl('file:/x.db')).toBe(true);
    expect(isEmbeddedUrl(':memory:')).toBe(true);
    const client = await open('http://127.0.0.1:9');
    expect(client.protocol).toBe('http');
  });
});

describe('applyMigrations', () => {
  const migrations = [
    ['CREATE TABLE a (id INTEGER PRIMARY KEY)', 'INSERT INTO a (id) VALUES (1)'],
    { name: '002_b', statements: ['CREATE TABLE b (id INTEGER PRIMARY KEY)'] },
  ];

  it('applies in order, records each, and is idempotent', async () => {
    const client = await open(tempUrl());
    expect((await applyMigrations(client, 'test', migrations)).applied).toEqual([1, 2]);
    expect((await applyMigrations(client, 'test', migrations)).applied).toEqual([]);
    const rs = await client.execute(
      "SELECT namespace, id, name FROM _migrations WHERE namespace = 'test' ORDER BY id",
    );
    expect(rs.rows.map((r) => [r.namespace, r.id, r.name])).toEqual([
      ['test', 1, null],
      ['test', 2, '002_b'],
    ]);
    expect((await client.execute('SELECT count(*) AS n FROM a')).rows[0]?.n).toBe(1);
    // A later migration appended to the list is applied on the next open.
    expect(
      (await applyMigrations(client, 'test', [...migrations, ['CREATE TABLE c (id INTEGER)']])).applied,
    ).toEqual([3]);
  });

  it('keeps namespaces apart', async () => {
    const client = await open(tempUrl());
    await applyMigrations(client, 'one', [['CREATE TABLE one_t (x)']]);
    expect((await applyMigrations(client, 'two', [['CREATE TABLE two_t (x)']])).applied).toEqual([1]);
  });

  it('a failing migration leaves nothing behind and names itself', async () => {
    const client = await open(tempUrl());
    const bad = [['CREATE TABLE ok (x)', 'THIS IS NOT SQL']];
    await expect(applyMigrations(client, 'bad', bad)).rejects.toThrow(/migration bad #1/);
    await expect(applyMigrations(client, 'bad', bad)).rejects.toBeInstanceOf(MemoryError);
    expect(
      (await client.execute("SELECT count(*) AS n FROM sqlite_master WHERE name = 'ok'")).rows[0]?.n,
    ).toBe(0);
    expect(
      (await client.execute("SELECT count(*) AS n FROM _migrations WHERE namespace = 'bad'")).rows[0]?.n,
    ).toBe(0);
  });

  it('two connections migrating at once apply each migration exactly once', async () => {
    const url = tempUrl();
    const clients = await Promise.all([open(url), open(url), open(url)]);
    const results = await Promise.all(clients.map((c) => applyMigrations(c, 'race', migrations)));
    expect(results.flatMap((r) => r.applied).sort()).toEqual([1, 2]);
    expect((await clients[0].execute('SELECT count(*) AS n FROM a')).rows[0]?.n).toBe(1);
  });
});

describe('derived migrations', () => {
  // A vector table sized by a setting, an optional index on it, and an ordinary migration after both.
  const list: Migration[] = [
    ['CREATE TABLE notes (id INTEGER PRIMARY KEY)'],
    {
      name: '002_vectors',
      derive: ({ dimensions }) =>
        typeof dimensions === 'number'
          ? {
              shape: `F32_BLOB(${dimensions})`,
              statements: [`CREATE TABLE vectors (id INTEGER PRIMARY KEY, v F32_BLOB(${dimensions}))`],
            }
          : undefined,
      drop: ['DROP TABLE IF EXISTS vectors'],
    },
    {
      name: '003_vectors_ann',
      derive: ({ ann }) =>
        ann === true
          ? {
              shape: 'cosine',
              statements: ["CREATE INDEX vectors_ann ON vectors (libsql_vector_idx(v, 'metric=cosine'))"],
            }
          : undefined,
      drop: ['DROP INDEX IF EXISTS vectors_ann'],
    },
    { name: '004_after', statements: ['CREATE TABLE after_all (x)'] },
  ];
  const records = async (client: Client) =>
    (await client.execute("SELECT id, name FROM _migrations WHERE namespace = 'd' ORDER BY id")).rows.map(
      (r) => [r.id, r.name],
    );
  const columnType = async (client: Client) =>
    (await client.execute("SELECT type FROM pragma_table_info('vectors') WHERE name = 'v'")).rows[0]?.type;
  const hasIndex = async (client: Client) =>
    (await client.execute("SELECT count(*) AS n FROM sqlite_master WHERE name = 'vectors_ann'")).rows[0]
      ?.n === 1;

  it('are recorded with their shape, idempotent, and skipped when the settings do not say', async () => {
    const client = await open(tempUrl());
    // Without settings: the derived ones wait, the ordinary one after them still applies.
    expect((await applyMigrations(client, 'd', list)).applied).toEqual([1, 4]);
    expect(await records(client)).toEqual([
      [1, null],
      [4, '004_after'],
    ]);
    expect(
      (await applyMigrations(client, 'd', list, undefined, { dimensions: 8, ann: true })).applied,
    ).toEqual([2, 3]);
    expect(
      (await applyMigrations(client, 'd', list, undefined, { dimensions: 8, ann: true })).applied,
    ).toEqual([]);
    // A process that does not ask for the index leaves it as it is.
    expect((await applyMigrations(client, 'd', list, undefined, { dimensions: 8 })).applied).toEqual([]);
    expect(await records(client)).toEqual([
      [1, null],
      [2, '002_vectors (F32_BLOB(8))'],
      [3, '003_vectors_ann (cosine)'],
      [4, '004_after'],
    ]);
    expect(await columnType(client)).toBe('F32_BLOB(8)');
    expect(await hasIndex(client)).toBe(true);
  });

  it('rebuild when the shape changes, and forget the derived records after them', async () => {
    const client = await open(tempUrl());
    await applyMigrations(client, 'd', list, undefined, { dimensions: 8, ann: true });
    await client.execute("INSERT INTO vectors (id, v) VALUES (1, vector32('[1,2,3,4,5,6,7,8]'))");
    await client.execute('INSERT INTO notes (id) VALUES (1)');

    expect((await applyMigrations(client, 'd', list, undefined, { dimensions: 4 })).applied).toEqual([2]);
    expect(await columnType(client)).toBe('F32_BLOB(4)');
    expect((await client.execute('SELECT count(*) AS n FROM vectors')).rows[0]?.n).toBe(0);
    expect((await client.execute('SELECT count(*) AS n FROM notes')).rows[0]?.n).toBe(1); // ordinary data stays
    // The index went with the old table, and so did its record: the next open that wants it builds it.
    expect(await hasIndex(client)).toBe(false);
    expect(await records(client)).toEqual([
      [1, null],
      [2, '002_vectors (F32_BLOB(4))'],
      [4, '004_after'],
    ]);
    expect(
      (await applyMigrations(client, 'd', list, undefined, { dimensions: 4, ann: true })).applied,
    ).toEqual([3]);
    expect(await hasIndex(client)).toBe(true);
  });

  it('drop tables found with no record (made before they were recorded) and build them afresh', async () => {
    const client = await open(tempUrl());
    await client.execute('CREATE TABLE vectors (id INTEGER PRIMARY KEY, v F32_BLOB(8))');
    await client.execute("INSERT INTO vectors (id, v) VALUES (1, vector32('[1,2,3,4,5,6,7,8]'))");
    expect((await applyMigrations(client, 'd', list, undefined, { dimensions: 8 })).applied).toEqual([
      1, 2, 4,
    ]);
    expect(await columnType(client)).toBe('F32_BLOB(8)');
    expect((await client.execute('SELECT count(*) AS n FROM vectors')).rows[0]?.n).toBe(0);
  });

  it('several connections rebuilding at once rebuild once', async () => {
    const url = tempUrl();
    const first = await open(url);
    await applyMigrations(first, 'd', list, undefined, { dimensions: 8 });
    const clients = await Promise.all([open(url), open(url), open(url)]);
    const results = await Promise.all(
      clients.map((c) => applyMigrations(c, 'd', list, undefined, { dimensions: 16 })),
    );
    expect(results.flatMap((r) => r.applied)).toEqual([2]);
    expect(await columnType(first)).toBe('F32_BLOB(16)');
    expect(await records(first)).toEqual([
      [1, null],
      [2, '002_vectors (F32_BLOB(16))'],
      [4, '004_after'],
    ]);
  });

  it('a failing rebuild leaves the old tables and record in place', async () => {
    const client = await open(tempUrl());
    await applyMigrations(client, 'd', list, undefined, { dimensions: 8 });
    const broken: Migration[] = [...list];
    broken[1] = {
      name: '002_vectors',
      derive: () => ({ shape: 'broken', statements: ['NOT SQL'] }),
      drop: ['DROP TABLE IF EXISTS vectors'],
    };
    await expect(applyMigrations(client, 'd', broken)).rejects.toThrow(
      /migration d #2 \(002_vectors \(broken\)\) failed/,
    );
    expect(await columnType(client)).toBe('F32_BLOB(8)');
    expect(await records(client)).toContainEqual([2, '002_vectors (F32_BLOB(8))']);
  });
});
