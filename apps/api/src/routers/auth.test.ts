/**
 * Demo sign-in does not pile up rows or run unbounded (issue 24, point 10): each login deletes
 * the expired sessions, and logins are rate-limited per client address with a clear
 * TOO_MANY_REQUESTS that says when to retry. The clock is injected; nothing waits.
 */
import { createClient } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { SESSION_TTL_SECONDS } from '../accounts/accounts.ts';
import { LOGIN_RATE_LIMIT } from '../accounts/limits.ts';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/**
 * A clock the test moves by hand. It starts at the real time: better-auth stamps a session's
 * expiry with the real clock, the API judges it (and deletes expired ones) by this one.
 */
function clock(start = Date.now()) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

async function tokenRows(server: TestServer, now: Date): Promise<{ all: number; expired: number }> {
  const db = createClient({ url: server.appUrl });
  try {
    const rs = await db.execute({
      sql: 'SELECT count(*) AS n, coalesce(sum(expires_at <= ?), 0) AS expired FROM auth_sessions',
      args: [now.toISOString()],
    });
    return { all: Number(rs.rows[0]!.n), expired: Number(rs.rows[0]!.expired) };
  } finally {
    db.close();
  }
}

describe('auth.login', () => {
  it('deletes the expired sessions when someone signs in', async () => {
    const c = clock();
    s = await startTestServer({}, { now: c.now });
    const first = await s.login('user-ada');
    await s.login('user-grace');
    expect(await tokenRows(s, c.now())).toEqual({ all: 2, expired: 0 });
    c.advance(SESSION_TTL_SECONDS * 1000 + 60_000);
    expect(await tokenRows(s, c.now())).toEqual({ all: 2, expired: 2 });
    const fresh = await s.login('user-ada');
    expect(await tokenRows(s, c.now())).toEqual({ all: 1, expired: 0 });
    expect(await s.client(first).auth.me.query()).toBeNull();
    expect(await s.client(fresh).auth.me.query()).toEqual({
      id: 'user-ada',
      name: 'Ada Lovelace',
      email: 'user-ada@demo.invalid',
    });
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
