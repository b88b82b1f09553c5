/**
 * The session cookie, read with `cookie`'s parser and written with its serializer: which
 * credential a request carries, and the exact attributes the browser is given.
 */
import { parseSetCookie } from 'cookie';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCredential } from './context.ts';
import { USER_TOKEN_TTL_MS } from './data/users.ts';
import { startTestServer } from './testing/harness.ts';
import type { Json, TestServer } from './testing/harness.ts';

describe('readCredential', () => {
  it('takes the bearer header over the cookie, and refuses a malformed one', () => {
    expect(readCredential({ authorization: 'Bearer ut_a', cookie: 'sponge_session=ut_b' })).toEqual({
      token: 'ut_a',
      from: 'bearer',
    });
    expect(readCredential({ authorization: 'bearer  ut_a ' })).toEqual({ token: 'ut_a', from: 'bearer' });
    expect(readCredential({ authorization: 'Basic abc', cookie: 'sponge_session=ut_b' })).toBe('malformed');
    expect(readCredential({})).toBeUndefined();
  });

  it('finds the session cookie among others, as sent, skipping a cleared one', () => {
    expect(readCredential({ cookie: 'theme=dark; sponge_session=ut_x-y_z; other=1' })).toEqual({
      token: 'ut_x-y_z',
      from: 'cookie',
    });
    expect(readCredential({ cookie: ' sponge_session = ut_x ;' })).toEqual({ token: 'ut_x', from: 'cookie' });
    expect(readCredential({ cookie: 'sponge_session=; sponge_session=ut_later' })).toEqual({
      token: 'ut_later',
      from: 'cookie',
    });
    expect(readCredential({ cookie: 'sponge_session=ut_first; sponge_session=ut_second' })).toEqual({
      token: 'ut_first',
      from: 'cookie',
    });
    // Not decoded: a percent-escape is no base64url token, and resolving it fails as invalid.
    expect(readCredential({ cookie: 'sponge_session=ut_%41' })).toEqual({ token: 'ut_%41', from: 'cookie' });
    for (const cookie of ['', 'sponge_session=', 'sponge_session', 'x_sponge_session=ut_a', 'theme=dark'])
      expect(readCredential({ cookie }), cookie).toBeUndefined();
  });
});

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
    expect(parseSetCookie(plain.headers.get('set-cookie') ?? '')).toEqual({
      name: 'sponge_session',
      value: token,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      maxAge: USER_TOKEN_TTL_MS / 1000,
    });

    const tls = await post('auth.login', { 'x-forwarded-proto': 'https' }, { userId: 'user-ada' });
    expect(parseSetCookie(tls.headers.get('set-cookie') ?? '')).toMatchObject({
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
    });
  });

  it('logout clears the cookie with the same attributes', async () => {
    const token = await s.login('user-grace');
    const res = await post('auth.logout', {
      cookie: `sponge_session=${token}`,
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
    // The cookie alone signed the browser in; the token is revoked now.
    expect(await s.client(token).auth.me.query()).toBeNull();
  });
});
