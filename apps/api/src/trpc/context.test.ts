/**
 * The session cookie written with `cookie`'s serializer: the exact attributes the browser is
 * given, and what signing out leaves (http/credential.test.ts reads it).
 */
import { parseSetCookie } from 'cookie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_TTL_SECONDS } from '../accounts/accounts.ts';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';

describe('the Set-Cookie header', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  const post = (path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${s.url}/trpc/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('login: HttpOnly, SameSite=Lax, Path=/, the token lifetime, Secure only over TLS', async () => {
    const plain = await post('auth.login', {}, { userId: 'user-ada' });
    const token = ((await plain.json()) as Json).result.data.userToken as string;
    const cookie = parseSetCookie(plain.headers.get('set-cookie') ?? '');
    expect(cookie).toEqual({
      name: 'sponge_session',
      // The token and the library's signature of it: a cookie nobody signed is no session.
      value: expect.stringMatching(/^ut_[A-Za-z0-9_-]{43}\./) as string,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      maxAge: SESSION_TTL_SECONDS,
    });
    expect(decodeURIComponent(cookie.value!).startsWith(`${token}.`)).toBe(true);

    const tls = await post('auth.login', { 'x-forwarded-proto': 'https' }, { userId: 'user-ada' });
    expect(parseSetCookie(tls.headers.get('set-cookie') ?? '')).toMatchObject({
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
    });
  });

  it('logout clears the cookie with the same attributes', async () => {
    const token = await s.login('user-grace');
    const signedIn = await post('auth.login', {}, { userId: 'user-grace' });
    const cookie = parseSetCookie(signedIn.headers.get('set-cookie') ?? '');
    const res = await post('auth.logout', {
      cookie: `sponge_session=${cookie.value}`,
      'x-forwarded-proto': 'https',
      // As the browser sends it from the app's own page: a cookie POST needs it (SPEC §6c).
      'sec-fetch-site': 'same-origin',
    });
    expect(parseSetCookie(res.headers.get('set-cookie') ?? '')).toEqual({
      name: 'sponge_session',
      value: '',
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      maxAge: 0,
    });
    // The cookie alone signed the browser in; its session is revoked now, cookie and token alike.
    const token2 = decodeURIComponent(cookie.value!).split('.')[0]!;
    expect(await s.client(token2).auth.me.query()).toBeNull();
    const replay = await fetch(`${s.url}/trpc/auth.me`, {
      headers: { cookie: `sponge_session=${cookie.value}` },
    });
    expect(((await replay.json()) as Json).result.data).toBeNull();
    // Another session of the same person is untouched.
    expect(await s.client(token).auth.me.query()).not.toBeNull();
  });
});
