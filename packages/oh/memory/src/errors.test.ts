/**
 * What a failure becomes once it leaves the store: above all, a libSQL server that cannot be
 * reached is `unavailable` (send the call again), never `integrity` (something is wrong with the
 * data). The driver's errors are taken from a real sqld killed with SIGKILL, not written by hand,
 * except for the proxy statuses a local server never gives.
 */
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryError, isUnavailable, isUnreachable, toMemoryError } from './errors.ts';
import { adds, failure, withHarness } from './testing/harness.ts';
import { sqldBinary, startSqld } from './testing/sqld.ts';
import type { Sqld } from './testing/sqld.ts';

/** Whatever the promise was rejected with (fails the test when it resolves). */
async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('toMemoryError', () => {
  it('keeps the reason a trigger raised, with its detail', () => {
    const e = toMemoryError(new Error('SQLite error: sponge:stale_version'));
    expect([e.reason, e.message]).toEqual([
      'stale_version',
      'memory has moved on since basedOn; read it again before writing',
    ]);
    expect(toMemoryError(new Error('sponge:integrity:a broken row')).message).toBe('a broken row');
  });

  it('calls a connection that fails or breaks `unavailable`, and says a retry with the same requestId is safe', () => {
    const refused = new TypeError('fetch failed', {
      cause: withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'),
    });
    const e = toMemoryError(refused, 'remember');
    expect(e).toBeInstanceOf(MemoryError);
    expect(e.reason).toBe('unavailable');
    expect(e.message).toBe(
      'the memory database cannot be reached during remember; try again (a remember sent again with the same requestId is applied at most once)',
    );
    // The address stays in the cause, for the log.
    expect(e.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    expect(e.cause).toBe(refused);
    for (const code of [
      'ECONNRESET',
      'EPIPE',
      'ETIMEDOUT',
      'ENOTFOUND',
      'UND_ERR_SOCKET',
      'HRANA_WEBSOCKET_ERROR',
    ])
      expect(toMemoryError(withCode('x', code)).reason, code).toBe('unavailable');
  });

  it('calls 429, 502, 503 and 504 from a server or its proxy `unavailable`, other HTTP failures `integrity`', () => {
    // @libsql/client: a LibsqlError SERVER_ERROR over hrana's HttpServerError, which has the status.
    const answered = (status: number) =>
      Object.assign(new Error(`SERVER_ERROR: Server returned HTTP status ${status}`), {
        code: 'SERVER_ERROR',
        cause: Object.assign(new Error(`Server returned HTTP status ${status}`), { status }),
      });
    for (const status of [502, 503, 504]) expect(toMemoryError(answered(status)).reason).toBe('unavailable');
    // 429: sqld sheds a request whose connection did not come free in time (seen under the fault suites' load).
    expect(toMemoryError(answered(429), 'remember').message).toBe(
      'the memory database stayed busy during remember; try again',
    );
    // 400 "invalid baton" (a stream the restarted server forgot), 500: the server answered.
    for (const status of [400, 401, 500]) expect(toMemoryError(answered(status)).reason).toBe('integrity');
  });

  it('calls a database that stayed busy `unavailable` too: nothing was written, the same call may be sent again', () => {
    const busy = toMemoryError(withCode('SQLITE_BUSY: database is locked', 'SQLITE_BUSY'), 'remember');
    expect([busy.reason, busy.message]).toEqual([
      'unavailable',
      'the memory database stayed busy during remember; try again',
    ]);
    expect(toMemoryError(withCode('database table is locked', 'SQLITE_LOCKED')).reason).toBe('unavailable');
    expect(isUnavailable(withCode('database is locked', 'SQLITE_BUSY'))).toBe(true);
    expect(isUnreachable(withCode('database is locked', 'SQLITE_BUSY'))).toBe(false);
  });

  it('leaves a closed client and an unknown failure as `integrity`', () => {
    expect(toMemoryError(withCode('The client is closed', 'CLIENT_CLOSED')).reason).toBe('integrity');
    expect(toMemoryError(new TypeError('x is not a function')).reason).toBe('integrity');
    expect(toMemoryError('a string').reason).toBe('integrity');
    expect(isUnreachable(null)).toBe(false);
    expect(isUnavailable(new Error('SQLite error: no such table: t'))).toBe(false);
  });
});

describe.skipIf(sqldBinary() === null)('a libSQL server killed with SIGKILL (sqld)', () => {
  let server: Sqld;
  let client: Client;
  beforeEach(async () => {
    server = await startSqld();
    client = createClient({ url: server.url });
    await client.execute('CREATE TABLE t (x)');
  }, 30_000);
  afterEach(async () => {
    client.close();
    await server.stop();
  });

  it('is `unavailable` while it is down (http: and ws:), and reachable again after a restart on its data', async () => {
    await client.execute('INSERT INTO t VALUES (1)');
    await server.kill();
    const down = await thrown(client.batch(['INSERT INTO t VALUES (2)'], 'write'));
    expect(isUnreachable(down)).toBe(true);
    expect(toMemoryError(down).reason).toBe('unavailable');
    const ws = createClient({ url: server.url.replace(/^http:/, 'ws:') });
    try {
      const overWs = await thrown(ws.execute('SELECT 1'));
      expect((overWs as { code?: unknown }).code).toBe('HRANA_WEBSOCKET_ERROR');
      expect(toMemoryError(overWs).reason).toBe('unavailable');
    } finally {
      ws.close();
    }
    await server.restart();
    // The same client goes on; the row acknowledged before the kill is there, the refused one is not.
    expect((await client.execute('SELECT x FROM t')).rows.map((r) => r.x)).toEqual([1]);
  });

  it('is `unavailable` when it dies in the middle of a request', async () => {
    // Watched from the start: it fails while the kill is still being awaited.
    const broken = thrown(
      client.execute(
        'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000000) SELECT count(*) FROM c',
      ),
    );
    // The statement runs for seconds; the kill lands while the server is on it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.kill();
    expect(await broken).toMatchObject({ cause: { code: 'UND_ERR_SOCKET' } });
    expect(isUnreachable(await broken)).toBe(true);
    expect(toMemoryError(await broken).reason).toBe('unavailable');
  });

  it('a statement the live server refuses is not `unavailable`', async () => {
    const refused = await thrown(client.execute('SELECT * FROM no_such_table'));
    expect(isUnreachable(refused)).toBe(false);
    expect(toMemoryError(refused).reason).toBe('integrity');
  });

  it('the store answers `unavailable` while it is down; the same requestId then applies once', () =>
    withHarness(
      async (h) => {
        const { ctx } = await h.session();
        await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: adds('a', 1) });
        await server.kill();
        const call = { basedOn: 1, requestId: 'r2', changes: adds('b', 2) };
        const down = await failure(h.store.remember(ctx, call));
        expect(down.reason).toBe('unavailable');
        expect(down.message).toMatch(/same requestId/);
        expect((await failure(h.store.notes(ctx.sessionId))).reason).toBe('unavailable');
        await server.restart();
        expect(await h.store.remember(ctx, call)).toMatchObject({ version: 2, replayed: false });
        expect(await h.store.remember(ctx, call)).toMatchObject({ version: 2, replayed: true });
        const log = await h.store.log(ctx.sessionId);
        expect(log.map((e) => e.requestId)).toEqual(['r1', 'r2']);
      },
      {},
      { memoryUrl: server.url },
    ));
});
