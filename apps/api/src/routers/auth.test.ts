/**
 * Demo sign-in does not pile up rows or run unbounded (issue 24, point 10): each login deletes
 * the expired tokens, and logins are rate-limited per client address with a clear
 * TOO_MANY_REQUESTS that says when to retry. The clock is injected; nothing waits.
 */
import { createClient } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { USER_TOKEN_TTL_MS } from '../data/users.ts';
import { LOGIN_RATE_LIMIT } from './auth.ts';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** A clock the test moves by hand. */
function clock(start = Date.parse('2026-12-03T12:00:00Z')) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

async function tokenRows(server: TestServer, now: Date): Promise<{ all: number; expired: number }> {
  const db = createClient({ url: server.appUrl });
  try {
    const rs = await db.execute({
      sql: 'SELECT count(*) AS n, coalesce(sum(expires_at <= ?), 0) AS expired FROM user_tokens',
      args: [now.toISOString()],
    });
    return { all: Number(rs.rows[0]!.n), expired: Number(rs.rows[0]!.expired) };
  } finally {
    db.close();
  }
}

describe('auth.login', () => {
  it('deletes the expired tokens when someone signs in', async () => {
    const c = clock();
    s = await startTestServer({}, { now: c.now });
    const first = await s.login('user-ada');
    await s.login('user-grace');
    expect(await tokenRows(s, c.now())).toEqual({ all: 2, expired: 0 });
    c.advance(USER_TOKEN_TTL_MS + 1_000);
    expect(await tokenRows(s, c.now())).toEqual({ all: 2, expired: 2 });
    const fresh = await s.login('user-ada');
    expect(await tokenRows(s, c.now())).toEqual({ all: 1, expired: 0 });
    expect(await s.client(first).auth.me.query()).toBeNull();
    expect(await s.client(fresh).auth.me.query()).toEqual({ id: 'user-ada', name: 'Ada Lovelace' });
  });

  it('is rate-limited per client address, says when to retry, and refills with time', async () => {
    const c = clock();
    s = await startTestServer({}, { now: c.now });
    for (let i = 0; i < LOGIN_RATE_LIMIT.burst; i++) await s.login('user-ada');
    const before = await tokenRows(s, c.now());
    const refused = await s.call('mutation', 'auth.login', { userId: 'user-ada' });
    expect(refused.status).toBe(429);
    expect(refused.error?.data).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      reason: 'busy',
      retryAfterSeconds: LOGIN_RATE_LIMIT.refillSeconds,
    });
    expect(refused.error?.message).toBe(
      `Too many sign-ins from this address; try again in ${LOGIN_RATE_LIMIT.refillSeconds} seconds.`,
    );
    expect(await tokenRows(s, c.now())).toEqual(before);
    c.advance(LOGIN_RATE_LIMIT.refillSeconds * 1000);
    expect((await s.call('mutation', 'auth.login', { userId: 'user-ada' })).status).toBe(200);
    expect((await s.call('mutation', 'auth.login', { userId: 'user-ada' })).status).toBe(429);
    // Other calls are not limited by it.
    expect((await s.call('query', 'health')).status).toBe(200);
  });
});
