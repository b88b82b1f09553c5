/**
 * Sign-in and sign-up limits (SPEC §6c, issue 37 point 5): the right password is never locked out
 * (past the account's limit every attempt waits its turn, right or wrong, and only a right one
 * gets in), the client's address comes from X-Forwarded-For only through TRUSTED_PROXIES, IPv6
 * clients are counted by /64, and the counts live in the application database, so every API on
 * the same databases counts the same failures.
 *
 * The waits go through a recorder that resolves at once: the tests see which wait each attempt
 * was given without spending it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { DEFAULT_AUTH_LIMITS } from './limits.ts';
import type { AuthLimits } from './limits.ts';

const PASSWORD = 'correct horse battery';

interface Answer {
  status: number;
  data: Json;
  error: Json;
  headers: Headers;
}

/** One POST to an auth procedure, as the app's own page sends it. */
async function send(
  s: TestServer,
  path: string,
  input: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${s.url}/trpc/${path}`, {
    method: 'POST',
    headers: { 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as Json;
  return { status: res.status, data: body.result?.data, error: body.error, headers: res.headers };
}

const signIn = (s: TestServer, email: string, password: string, headers: Record<string, string> = {}) =>
  send(s, 'auth.signIn', { email, password }, headers);

/** The waits the sign-in limiter asked for, in milliseconds; each resolves at once. */
function waitRecorder() {
  const waits: number[] = [];
  return {
    waits,
    authWait: (ms: number) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

const servers: TestServer[] = [];
async function server(
  env: Record<string, string> = {},
  overrides: Parameters<typeof startTestServer>[1] = {},
): Promise<TestServer> {
  const s = await startTestServer({ DEMO: '0', SIGNUP: 'open', ...env }, overrides);
  servers.push(s);
  return s;
}
afterEach(async () => {
  // The later ones first: they use the first one's databases.
  for (const s of servers.splice(0).reverse()) await s.close();
});

describe('past the account limit', () => {
  it('lets the right password in after a short wait, never a refusal; a wrong one waits as long', async () => {
    const recorder = waitRecorder();
    const s = await server({}, { authWait: recorder.authWait });
    await send(s, 'auth.signUp', { name: 'Owner', email: 'owner@example.org', password: PASSWORD });
    for (let i = 0; i < DEFAULT_AUTH_LIMITS.failuresPerAccount; i++)
      expect((await signIn(s, 'owner@example.org', `typo ${i}`)).status).toBe(401);
    // Within the limit nobody waits.
    expect(recorder.waits).toEqual([]);

    // Past it a wrong password waits its turn, then is told so.
    const wrong = await signIn(s, 'owner@example.org', 'another typo');
    expect([wrong.status, wrong.error.data.reason]).toEqual([401, 'unauthenticated']);
    expect(wrong.error.message).toMatch(/wait/);
    expect(recorder.waits).toEqual([DEFAULT_AUTH_LIMITS.slowDownSeconds * 1000]);

    // The right password waits as a wrong one does (its answer comes no sooner), then gets in.
    const right = await signIn(s, 'owner@example.org', PASSWORD);
    expect(right.status, JSON.stringify(right.error)).toBe(200);
    expect(recorder.waits).toHaveLength(2);
    expect(recorder.waits[1]).toBeGreaterThanOrEqual(DEFAULT_AUTH_LIMITS.slowDownSeconds * 1000);
    expect(recorder.waits[1]).toBeLessThanOrEqual(DEFAULT_AUTH_LIMITS.slowDownMaxSeconds * 1000);

    // Signed in: the count starts again, and the next typo waits for nothing.
    expect((await signIn(s, 'owner@example.org', 'typo again')).status).toBe(401);
    expect(recorder.waits).toHaveLength(2);
  });

  it('an unknown email is slowed down exactly like a known one', async () => {
    const recorder = waitRecorder();
    const s = await server({}, { authWait: recorder.authWait });
    await send(s, 'auth.signUp', { name: 'Known', email: 'known@example.org', password: PASSWORD });
    const answers: Record<string, Json[]> = {};
    for (const email of ['known@example.org', 'nobody@example.org']) {
      answers[email] = [];
      for (let i = 0; i <= DEFAULT_AUTH_LIMITS.failuresPerAccount; i++) {
        const r = await signIn(s, email, `guess ${i}`);
        answers[email].push([r.status, r.error.message]);
      }
    }
    expect(answers['nobody@example.org']).toEqual(answers['known@example.org']);
    expect(recorder.waits).toHaveLength(2);
  });

  it('checks attempts sent at once one at a time, each after a longer wait, and refuses past the queue', async () => {
    const recorder = waitRecorder();
    const s = await server({}, { authWait: recorder.authWait });
    await send(s, 'auth.signUp', { name: 'P', email: 'parallel@example.org', password: PASSWORD });
    for (let i = 0; i < DEFAULT_AUTH_LIMITS.failuresPerAccount; i++)
      await signIn(s, 'parallel@example.org', `typo ${i}`);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => signIn(s, 'parallel@example.org', `guess ${i}`)),
    );
    // Each checked attempt had its own turn: no two waits alike, each turn after the one before.
    const waits = [...recorder.waits].sort((a, b) => a - b);
    expect(new Set(waits).size).toBe(waits.length);
    for (let i = 1; i < waits.length; i++) expect(waits[i]! - waits[i - 1]!).toBeGreaterThanOrEqual(1000);
    // None waits longer than the queue and one turn allow.
    expect(waits.at(-1)).toBeLessThanOrEqual(
      (DEFAULT_AUTH_LIMITS.queueSeconds + DEFAULT_AUTH_LIMITS.slowDownMaxSeconds) * 1000,
    );
    // Those past the queue are refused at once, told when to retry; the others were checked.
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(waits.length);
    for (const r of refused) {
      expect(r.error.data.reason).toBe('rate_limited');
      expect(r.headers.get('retry-after')).toBe(String(r.error.data.retryAfterSeconds));
    }
  });
});

describe('client addresses', () => {
  /** Few failures per address, many per account: these tests are about addresses. */
  const limits: AuthLimits = { ...DEFAULT_AUTH_LIMITS, failuresPerAddress: 3, failuresPerAccount: 1_000 };

  /** `n` failed sign-ins (each on another email), with these headers. */
  async function fail(s: TestServer, n: number, headers: Record<string, string>, tag: string) {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++)
      statuses.push((await signIn(s, `${tag}${i}@example.org`, 'wrong', headers)).status);
    return statuses;
  }

  it('behind a proxy in TRUSTED_PROXIES, each client is counted by its own address', async () => {
    const s = await server({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' }, { authLimits: limits });
    // The client is the rightmost address that is not a trusted proxy; what it wrote further
    // left is its own business.
    const a = { 'x-forwarded-for': '198.51.100.1, 203.0.113.7, 10.1.2.3' };
    expect(await fail(s, 4, a, 'a')).toEqual([401, 401, 401, 429]);
    expect(await fail(s, 1, { 'x-forwarded-for': '198.51.100.99, 203.0.113.7' }, 'a2')).toEqual([429]);
    // Another client behind the same proxy is not locked out by the first.
    expect(await fail(s, 1, { 'x-forwarded-for': '203.0.113.8' }, 'b')).toEqual([401]);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    // The test's requests come from 127.0.0.1, which is not in the list.
    const s = await server({ TRUSTED_PROXIES: '192.0.2.10' }, { authLimits: limits });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await signIn(s, `spoof${i}@example.org`, 'wrong', { 'x-forwarded-for': `203.0.113.${i}` })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it('counts IPv6 clients by /64', async () => {
    const s = await server({ TRUSTED_PROXIES: '127.0.0.1' }, { authLimits: limits });
    const inOne64 = ['2001:db8:1:2::1', '2001:db8:1:2:aaaa::9', '2001:db8:1:2:ffff:ffff:ffff:fffe'];
    const statuses: number[] = [];
    for (const [i, address] of inOne64.entries())
      statuses.push((await signIn(s, `v6-${i}@example.org`, 'wrong', { 'x-forwarded-for': address })).status);
    expect(statuses).toEqual([401, 401, 401]);
    expect(await fail(s, 1, { 'x-forwarded-for': '2001:DB8:1:2:0:0:0:77' }, 'same64')).toEqual([429]);
    expect(await fail(s, 1, { 'x-forwarded-for': '2001:db8:1:3::1' }, 'next64')).toEqual([401]);
  });
});

describe('two APIs on the same databases', () => {
  it('count the same failures: what one counted, the other slows down', async () => {
    const recorder = waitRecorder();
    const a = await server({}, { authWait: recorder.authWait });
    const b = await server({}, { sameDataAs: a, authWait: recorder.authWait });
    await send(a, 'auth.signUp', { name: 'Shared', email: 'shared@example.org', password: PASSWORD });
    for (let i = 0; i < DEFAULT_AUTH_LIMITS.failuresPerAccount; i++)
      expect((await signIn(i % 2 === 0 ? a : b, 'shared@example.org', `typo ${i}`)).status).toBe(401);
    expect(recorder.waits).toEqual([]);
    // Past the limit on either, counted on both.
    expect((await signIn(b, 'shared@example.org', 'one more')).status).toBe(401);
    expect(recorder.waits).toHaveLength(1);
    expect((await signIn(a, 'shared@example.org', PASSWORD)).status).toBe(200);
    expect(recorder.waits).toHaveLength(2);
  });

  it('share the per-address limit and the sign-up limit', async () => {
    const limits: AuthLimits = { ...DEFAULT_AUTH_LIMITS, failuresPerAddress: 2, signUpsPerAddress: 2 };
    const a = await server({}, { authLimits: limits });
    const b = await server({}, { sameDataAs: a, authLimits: limits });
    expect((await signIn(a, 'x1@example.org', 'wrong')).status).toBe(401);
    expect((await signIn(b, 'x2@example.org', 'wrong')).status).toBe(401);
    expect((await signIn(a, 'x3@example.org', 'wrong')).status).toBe(429);
    const up = (s: TestServer, n: number) =>
      send(s, 'auth.signUp', { name: `U${n}`, email: `u${n}@example.org`, password: PASSWORD });
    expect((await up(a, 1)).status).toBe(200);
    expect((await up(b, 2)).status).toBe(200);
    const third = await up(a, 3);
    expect([third.status, third.error.data.reason]).toEqual([429, 'rate_limited']);
  });
});
