/**
 * Issue 24, point 11: the event loop never waits for another process's lock. A real second
 * process (testing/lock-holder.mjs) holds `BEGIN IMMEDIATE` on the file until this test tells it
 * to let go; if a call waited on the event loop, the test could never say so, and the call would
 * fail with SQLITE_BUSY once the 10 s busy timeout ran out. Here the write waits on the database
 * thread, reads keep being answered meanwhile, and the write lands after the release.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { LocalClient } from './local-client.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointWal, openDatabase } from './open.ts';
import { ShortcutClient } from './thread/shortcut-client.ts';
import { holdLock as holdLockIn } from '../testing/hold-lock.ts';
import type { LockHolder } from '../testing/hold-lock.ts';

let dir: string;
const cleanups: Array<() => void> = [];
beforeEach(() => {
  dir = mkdtempSync(join(os.tmpdir(), 'sponge-lock-wait-'));
});
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  rmSync(dir, { recursive: true, force: true });
});

/** The lock holder, ended with the test. */
async function holdLock(path: string): Promise<LockHolder> {
  const holder = await holdLockIn(path);
  cleanups.push(() => holder.kill());
  return holder;
}

async function openShortcut(path: string): Promise<ShortcutClient> {
  const client = await openDatabase({ url: `file:${path}`, thread: 'worker' });
  cleanups.push(() => client.close());
  expect(client).toBeInstanceOf(ShortcutClient);
  await client.batch(['CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)'], 'write');
  return client as ShortcutClient;
}

const count = async (client: { execute: ShortcutClient['execute'] }) =>
  Number((await client.execute('SELECT count(*) AS c FROM t')).rows[0]!.c);

describe('another process holds the write lock', () => {
  it('a write waits on the database thread, reads are answered meanwhile, and the write lands after the release', async () => {
    const path = join(dir, 'locked.db');
    const client = await openShortcut(path);
    const holder = await holdLock(path);

    // The thread was idle, so the write starts on the event loop's connection, finds the lock and
    // is handed to the thread.
    const write = client.batch([{ sql: 'INSERT INTO t (s) VALUES (?)', args: ['after the lock'] }], 'write');
    // Reads while it waits: answered on the event loop's connection (WAL readers take no lock),
    // not queued behind the wait.
    expect(await count(client)).toBe(0);
    expect(await count(client)).toBe(0);
    expect(client.stats).toMatchObject({ handedOver: 1 });
    expect(client.stats.near).toBe(4); // the write's first try and the two reads (and the setup)

    // Another write arriving now queues on the thread, behind the first: order is kept.
    const second = client.execute({ sql: 'INSERT INTO t (s) VALUES (?)', args: ['second'] });
    expect(client.stats.thread).toBe(1);

    await holder.release();
    await write;
    await second;
    const rows = await client.execute('SELECT s FROM t ORDER BY id');
    expect(rows.rows.map((r) => r.s)).toEqual(['after the lock', 'second']);
  }, 30_000);

  it('a checkpoint waits for the lock on the thread, and reports whether it truncated the WAL', async () => {
    const path = join(dir, 'checkpoint.db');
    const client = await openShortcut(path);
    await client.execute({ sql: 'INSERT INTO t (s) VALUES (?)', args: ['x'] });
    const holder = await holdLock(path);

    const checkpoint = checkpointWal(client, `file:${path}`);
    // The event loop keeps answering while the checkpoint waits.
    expect(await count(client)).toBe(1);
    await holder.release();
    expect(await checkpoint).toBe(true);
  }, 30_000);
});

describe("a call that failed on another process's lock", () => {
  it('leaves no stale snapshot behind: later reads see what others commit', async () => {
    const path = join(dir, 'stale.db');
    const url = `file:${path}`;
    const client = new LocalClient(url, { timeoutMs: 0 });
    const other = new LocalClient(url);
    cleanups.push(
      () => client.close(),
      () => other.close(),
    );
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute('PRAGMA busy_timeout = 0');
    await client.batch(['CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)'], 'write');

    const holder = await holdLock(path);
    const insert = { sql: 'INSERT INTO t (s) VALUES (?)', args: ['refused'] };
    await expect(client.execute(insert)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    await expect(client.batch([insert], 'write')).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    await expect(client.batch(['SELECT 1', insert], 'deferred')).rejects.toMatchObject({
      code: 'SQLITE_BUSY',
    });
    expect(await count(client)).toBe(0);
    await holder.release();

    await other.execute({ sql: 'INSERT INTO t (s) VALUES (?)', args: ['committed elsewhere'] });
    expect(await count(client)).toBe(1);
    // And the connection writes again.
    await client.execute({ sql: 'INSERT INTO t (s) VALUES (?)', args: ['mine'] });
    expect(await count(other)).toBe(2);
  }, 30_000);
});

describe('checkpointWal', () => {
  it('throws what is not a lock (forgetting on disk depends on the checkpoint)', async () => {
    const client = new LocalClient(`file:${join(dir, 'closed.db')}`);
    client.close();
    await expect(checkpointWal(client, `file:${join(dir, 'closed.db')}`)).rejects.toMatchObject({
      code: 'CLIENT_CLOSED',
    });
  });
});
