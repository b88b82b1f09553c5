/**
 * Cross-site requests with the session cookie (SPEC §6c): every cookie-authenticated POST —
 * tRPC mutations, the multipart upload, sign-out — must come from the app's own origin, else
 * 403 `forbidden` and nothing changes. Bearer tokens are not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';

let s: TestServer;
let ada: string;
/** Ada's session cookie (signed), as her browser sends it. */
let adaCookie: string;
/** A page on another port of the same host: same site, so a Lax cookie still goes with it. */
let foreign: string;

beforeAll(async () => {
  [s, ada] = await startSignedIn('user-ada');
  adaCookie = (await s.loginCookie('user-ada')).cookie;
  const url = new URL(s.url);
  foreign = `${url.protocol}//${url.hostname}:${Number(url.port) === 65_535 ? 1 : Number(url.port) + 1}`;
});
afterAll(() => s?.close());

const ADA = { id: 'user-ada', name: 'Ada Lovelace', email: 'user-ada@demo.invalid' };

type Credential = { cookie: string } | { bearer: string };

async function post(
  path: string,
  body: Json,
  credential: Credential,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Json }> {
  const form = body instanceof FormData;
  const res = await fetch(`${s.url}/trpc/${path}`, {
    method: 'POST',
    headers: {
      ...(form ? {} : { 'content-type': 'application/json' }),
      ...('cookie' in credential
        ? { cookie: `sponge_session=${credential.cookie}` }
        : { authorization: `Bearer ${credential.bearer}` }),
      ...headers,
    },
    body: form ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const upload = (more = '') => {
  const f = new FormData();
  f.append('file', new Blob([`Kelp forests recover when otters return. ${more}`]), 'kelp.txt');
  return f;
};

/** What a cross-site POST could change: Ada's API keys, documents and sign-in. */
async function state(token: string) {
  return {
    keys: await s.client(ada).auth.apiKeys.query(),
    documents: (await s.client(ada).documents.list.query()).map((d) => d.id),
    me: await s.client(token).auth.me.query(),
  };
}

const refusals: Array<[string, Record<string, string>]> = [
  ['a foreign Origin (another port on this host)', { origin: '' }],
  ['no Origin and no Sec-Fetch-Site', {}],
  ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
  ['Origin: null', { origin: 'null' }],
];

describe('a POST with the session cookie', () => {
  it.each(refusals)(
    'from %s: mutation, upload and sign-out answer 403 forbidden, nothing changes',
    async (_label, given) => {
      const { token, cookie } = await s.loginCookie('user-ada');
      const headers = given.origin === '' ? { origin: foreign } : given;
      const before = await state(token);
      const cases: Array<[string, Json]> = [
        ['auth.createApiKey', { label: 'cross-site' }],
        ['documents.add', { title: 'Cross-site', text: 'Planted by another page.' }],
        ['documents.upload', upload()],
        ['auth.logout', null],
      ];
      for (const [path, body] of cases) {
        const r = await post(path, body, { cookie }, headers);
        expect([path, r.status, r.json.error?.data?.code, r.json.error?.data?.reason]).toEqual([
          path,
          403,
          'FORBIDDEN',
          'forbidden',
        ]);
        expect(r.json.error.message).toMatch(/own pages/);
      }
      expect(await state(token)).toEqual(before);
      expect(before.me).toEqual(ADA);
    },
  );

  it('from the same origin (Origin or Sec-Fetch-Site) goes through: the browser path', async () => {
    const { token, cookie } = await s.loginCookie('user-ada');
    const byOrigin = await post('auth.createApiKey', { label: 'same origin' }, { cookie }, { origin: s.url });
    expect(byOrigin.status).toBe(200);
    const byFetchSite = await post(
      'documents.upload',
      upload(),
      { cookie },
      { 'sec-fetch-site': 'same-origin', origin: foreign },
    );
    expect(byFetchSite.status).toBe(200);
    const out = await post('auth.logout', null, { cookie }, { origin: s.url });
    expect(out.status).toBe(200);
    expect(await s.client(token).auth.me.query()).toBeNull();
  });

  it('a query with the cookie needs no Origin (it changes nothing and another origin cannot read it)', async () => {
    const res = await fetch(`${s.url}/trpc/auth.me`, { headers: { cookie: `sponge_session=${adaCookie}` } });
    expect(((await res.json()) as Json).result.data).toEqual(ADA);
  });
});

describe('a POST with a bearer token', () => {
  it('works from anywhere, with any Origin or none, even with a cookie beside it', async () => {
    const token = await s.login('user-ada');
    const variants: Array<Record<string, string>> = [
      { origin: foreign },
      {},
      { cookie: `sponge_session=${adaCookie}`, origin: foreign },
    ];
    for (const [i, headers] of variants.entries()) {
      const key = await post('auth.createApiKey', { label: 'script' }, { bearer: token }, headers);
      expect(key.status).toBe(200);
      // A text of its own each time: the same file twice is a duplicate (SPEC §6d).
      const doc = await post('documents.upload', upload(`Variant ${i}.`), { bearer: token }, headers);
      expect(doc.status).toBe(200);
    }
    expect((await post('auth.logout', null, { bearer: token }, { origin: foreign })).status).toBe(200);
    expect(await s.client(token).auth.me.query()).toBeNull();
  });
});

describe('behind a proxy (PUBLIC_URL)', () => {
  it('takes an Origin equal to PUBLIC_URL, refuses others, and sends HSTS for https', async () => {
    const p = await startTestServer({ PUBLIC_URL: 'https://sponge.example' });
    try {
      const { cookie } = await p.loginCookie('user-ada');
      const call = (origin: string) =>
        fetch(`${p.url}/trpc/auth.createApiKey`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: `sponge_session=${cookie}`, origin },
          body: JSON.stringify({ label: 'proxied' }),
        });
      const ok = await call('https://sponge.example');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('strict-transport-security')).toBe('max-age=31536000');
      expect((await call('https://evil.example')).status).toBe(403);
      expect((await call('http://sponge.example')).status).toBe(403);
    } finally {
      await p.close();
    }
  });
});
