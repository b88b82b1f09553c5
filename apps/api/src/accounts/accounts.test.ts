/**
 * Real accounts over HTTP (SPEC §6c, issue 26): sign-up, sign-in and sign-out through the API's
 * procedures, on a real server and real database files, as a browser does it (cookie and
 * same-origin header).
 */
import { createClient } from '@libsql/client';
import { parseSetCookie } from 'cookie';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { DEFAULT_AUTH_LIMITS } from './limits.ts';

const PASSWORD = 'correct horse battery';

/** A browser of one person: keeps the session cookie, sends what a same-origin page sends. */
function browser(s: TestServer) {
  let cookie = '';
  async function send(
    kind: 'query' | 'mutation',
    path: string,
    input?: unknown,
    headers: Record<string, string> = {},
  ) {
    const url =
      kind === 'query'
        ? `${s.url}/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`
        : `${s.url}/trpc/${path}`;
    const res = await fetch(url, {
      method: kind === 'query' ? 'GET' : 'POST',
      headers: {
        'sec-fetch-site': 'same-origin',
        ...(kind === 'mutation' ? { 'content-type': 'application/json' } : {}),
        ...(cookie ? { cookie } : {}),
        ...headers,
      },
      ...(kind === 'mutation' && input !== undefined ? { body: JSON.stringify(input) } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const c = parseSetCookie(line);
      if (c.name === 'sponge_session') cookie = c.value && c.maxAge !== 0 ? `sponge_session=${c.value}` : '';
    }
    const body = (await res.json()) as Json;
    return { status: res.status, data: body.result?.data, error: body.error, headers: res.headers };
  }
  return {
    send,
    get cookie() {
      return cookie;
    },
    set cookie(value: string) {
      cookie = value;
    },
    me: async () => (await send('query', 'auth.me')).data,
  };
}

async function appRows(s: TestServer, sql: string, args: unknown[] = []) {
  const db = createClient({ url: s.appUrl });
  try {
    return (await db.execute({ sql, args: args as never })).rows;
  } finally {
    db.close();
  }
}

describe('accounts with DEMO off and sign-up open', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ DEMO: '0', SIGNUP: 'open' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('sign up, me, sign out (a replayed cookie stops working), sign in again', async () => {
    const b = browser(s);
    const up = await b.send('mutation', 'auth.signUp', {
      name: 'Marie Tharp',
      email: ' Marie@Example.org ',
      password: PASSWORD,
    });
    expect(up.status).toBe(200);
    expect(up.data.user).toMatchObject({ name: 'Marie Tharp', email: 'marie@example.org' });
    expect(JSON.stringify(up.data)).not.toMatch(/ut_/); // the token stays in the HttpOnly cookie
    expect(await b.me()).toEqual({ id: up.data.user.id, name: 'Marie Tharp', email: 'marie@example.org' });

    const replay = b.cookie;
    const out = await b.send('mutation', 'auth.logout');
    expect(out.status).toBe(200);
    expect(await b.me()).toBeNull();
    b.cookie = replay;
    expect(await b.me()).toBeNull();

    const wrong = await b.send('mutation', 'auth.signIn', {
      email: 'marie@example.org',
      password: 'not the password',
    });
    expect([wrong.status, wrong.error.data.reason, wrong.error.message]).toEqual([
      401,
      'unauthenticated',
      'Wrong email or password.',
    ]);
    const back = await b.send('mutation', 'auth.signIn', { email: 'MARIE@example.org', password: PASSWORD });
    expect(back.status).toBe(200);
    expect((await b.me()).id).toBe(up.data.user.id);
  });

  it("a disabled account's cookie stops working on the next call, its session row kept", async () => {
    const b = browser(s);
    await b.send('mutation', 'auth.signUp', {
      name: 'Soon Off',
      email: 'soon-off@example.org',
      password: PASSWORD,
    });
    expect(await b.me()).toMatchObject({ email: 'soon-off@example.org' });
    // Only the flag (the users command also deletes the sessions): the per-call check must refuse.
    await appRows(
      s,
      `UPDATE users SET disabled_at = '2026-01-01T00:00:00.000Z' WHERE email = 'soon-off@example.org'`,
    );
    expect(await b.me()).toBeNull();
    expect((await b.send('mutation', 'documents.add', { title: 'x', text: 'y' })).status).toBe(401);
  });

  it('keeps only a scrypt hash of the password, never the password', async () => {
    const b = browser(s);
    await b.send('mutation', 'auth.signUp', {
      name: 'Hash Check',
      email: 'hash@example.org',
      password: PASSWORD,
    });
    const rows = await appRows(
      s,
      `SELECT a.password FROM auth_accounts a JOIN users u ON u.id = a.user_id WHERE u.email = ?`,
      ['hash@example.org'],
    );
    const stored = String(rows[0]?.password);
    expect(stored).not.toContain(PASSWORD);
    expect(stored).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/); // salt:scrypt key, as better-auth writes it
  });

  it('a second sign-up with the same email is email_taken; bad input changes nothing', async () => {
    const b = browser(s);
    await b.send('mutation', 'auth.signUp', {
      name: 'First',
      email: 'twice@example.org',
      password: PASSWORD,
    });
    const again = await browser(s).send('mutation', 'auth.signUp', {
      name: 'Second',
      email: 'twice@example.org',
      password: PASSWORD,
    });
    expect([again.status, again.error.data.reason]).toEqual([409, 'email_taken']);
    const short = await browser(s).send('mutation', 'auth.signUp', {
      name: 'Short',
      email: 'short@example.org',
      password: 'short',
    });
    expect([short.status, short.error.data.reason]).toEqual([400, 'invalid_input']);
    expect(short.error.message).toMatch(/at least 10 characters/);
    const notAnEmail = await browser(s).send('mutation', 'auth.signUp', {
      name: 'X',
      email: 'nope',
      password: PASSWORD,
    });
    expect(notAnEmail.status).toBe(400);
    const users = await appRows(
      s,
      `SELECT count(*) AS n FROM users WHERE email IN ('short@example.org', 'nope')`,
    );
    expect(Number(users[0]!.n)).toBe(0);
  });

  it('demo sign-in is off: no demo owners listed, auth.login refused, options say so', async () => {
    const b = browser(s);
    expect((await b.send('query', 'auth.demoUsers')).data).toEqual([]);
    const login = await b.send('mutation', 'auth.login', { userId: 'user-ada' });
    expect([login.status, login.error.data.reason]).toEqual([403, 'forbidden']);
    expect((await b.send('query', 'auth.options')).data).toEqual({
      signUp: 'open',
      demo: false,
      passwordRules: { minLength: 10, maxLength: 128 },
    });
  });

  it('a cookie sign-in from another site is refused before any password is checked', async () => {
    const b = browser(s);
    const r = await b.send(
      'mutation',
      'auth.signIn',
      { email: 'marie@example.org', password: PASSWORD },
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
    );
    expect([r.status, r.error.data.reason]).toEqual([403, 'forbidden']);
    expect(b.cookie).toBe('');
  });

  it('the cookie is Secure behind TLS (X-Forwarded-Proto: https)', async () => {
    const b = browser(s);
    await b.send('mutation', 'auth.signUp', { name: 'Tls', email: 'tls@example.org', password: PASSWORD });
    const r = await browser(s).send(
      'mutation',
      'auth.signIn',
      { email: 'tls@example.org', password: PASSWORD },
      { 'x-forwarded-proto': 'https' },
    );
    const c = parseSetCookie(r.headers.getSetCookie().find((l) => l.startsWith('sponge_session=')) ?? '');
    expect(c).toMatchObject({ httpOnly: true, sameSite: 'lax', secure: true, path: '/' });
  });
});

describe('failed sign-ins', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  // Past the account's limit attempts wait their turn rather than being refused, one at a time
  // (limits.test.ts, with the waits recorded instead of spent).

  it('are limited per client address across accounts', async () => {
    s = await startTestServer({ DEMO: '0', SIGNUP: 'open' });
    const b = browser(s);
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_AUTH_LIMITS.failuresPerAddress + 1; i++) {
      statuses.push(
        (
          await b.send('mutation', 'auth.signIn', {
            email: `person${i}@example.org`,
            password: 'a wrong one',
          })
        ).status,
      );
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((x) => x === 401)).toBe(true);
  });

  it('a success starts the account count again', async () => {
    s = await startTestServer({ DEMO: '0', SIGNUP: 'open' });
    const b = browser(s);
    await b.send('mutation', 'auth.signUp', { name: 'R', email: 'reset@example.org', password: PASSWORD });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < DEFAULT_AUTH_LIMITS.failuresPerAccount - 1; i++) {
        expect(
          (
            await b.send('mutation', 'auth.signIn', {
              email: 'reset@example.org',
              password: 'typo typo typo',
            })
          ).status,
        ).toBe(401);
      }
      expect(
        (await b.send('mutation', 'auth.signIn', { email: 'reset@example.org', password: PASSWORD })).status,
      ).toBe(200);
    }
  });

  it('an unknown email and a wrong password get the same answer after the same work', async () => {
    // Limits out of the way: this measures the answers, many of them.
    s = await startTestServer(
      { DEMO: '0', SIGNUP: 'open' },
      {
        authLimits: {
          failuresPerAccount: 1_000,
          failuresPerAddress: 1_000,
          signUpsPerAddress: 1_000,
          windowSeconds: 900,
        },
      },
    );
    await browser(s).send('mutation', 'auth.signUp', {
      name: 'Known',
      email: 'known@example.org',
      password: PASSWORD,
    });
    const attempt = async (email: string) => {
      const t0 = performance.now();
      const r = await browser(s!).send('mutation', 'auth.signIn', { email, password: 'wrong password here' });
      return { ms: performance.now() - t0, status: r.status, error: r.error };
    };
    await attempt('warmup@example.org');
    const known: number[] = [];
    const unknown: number[] = [];
    let first: { known?: unknown; unknown?: unknown } = {};
    // Alternated, so both sides see the same machine noise.
    for (let i = 0; i < 12; i++) {
      const k = await attempt('known@example.org');
      const u = await attempt(`unknown${i}@example.org`);
      known.push(k.ms);
      unknown.push(u.ms);
      first = { known: first.known ?? k, unknown: first.unknown ?? u };
      expect(u.status).toBe(k.status);
      expect(u.error).toEqual(k.error);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown) / median(known);
    console.log(
      `sign-in timing: unknown email ${median(unknown).toFixed(1)} ms, wrong password ${median(known).toFixed(1)} ms (medians of 12, ratio ${ratio.toFixed(2)})`,
    );
    // Both hash once with scrypt (tens of ms); a skipped hash would be ~1 ms, a ratio near 0.02.
    expect(
      ratio,
      `unknown ${median(unknown).toFixed(1)} ms vs known ${median(known).toFixed(1)} ms`,
    ).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});

describe('sign-up closed, disabled accounts, shares by email', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ DEMO: '1', SIGNUP: 'closed' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('SIGNUP=closed: the sign-up procedure refuses and nothing is created', async () => {
    const b = browser(s);
    expect((await b.send('query', 'auth.options')).data.signUp).toBe('closed');
    const r = await b.send('mutation', 'auth.signUp', {
      name: 'Nope',
      email: 'closed@example.org',
      password: PASSWORD,
    });
    expect([r.status, r.error.data.reason]).toEqual([403, 'forbidden']);
    expect(r.error.message).toMatch(/Sign-up is closed/);
    expect(await appRows(s, `SELECT id FROM users WHERE email = 'closed@example.org'`)).toHaveLength(0);
  });

  it('sharing by email answers the same whether or not an account has the address', async () => {
    const ada = await s.login('user-ada');
    const c = s.client(ada);
    const doc = await c.documents.add.mutate({ title: 'Shared by email', text: 'Reef survey notes.' });
    const known = await c.documents.share.mutate({ documentId: doc.id, email: 'user-grace@demo.invalid' });
    const unknown = await c.documents.share.mutate({ documentId: doc.id, email: 'someone@example.org' });
    expect(unknown.sharedWith).toEqual([
      { email: 'someone@example.org' },
      { email: 'user-grace@demo.invalid' },
    ]);
    expect(known.sharedWith).toEqual([{ email: 'user-grace@demo.invalid' }]);
    // Both wait (sharing.test.ts): Grace reads it once Ada confirms her account.
    const grace = s.client(await s.login('user-grace'));
    expect((await errorOf(grace.documents.get.query({ documentId: doc.id }))).code).toBe('NOT_FOUND');
    await c.documents.confirmShare.mutate({ documentId: doc.id, email: 'user-grace@demo.invalid' });
    expect((await grace.documents.get.query({ documentId: doc.id })).access).toBe('shared');
  });
});
