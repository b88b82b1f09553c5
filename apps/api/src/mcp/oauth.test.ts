/**
 * OAuth sign-in for MCP clients (mcp/oauth.ts) over real HTTP: a client registers itself, the
 * owner signs in and consents, the code is exchanged with its PKCE verifier, and the token opens
 * `/mcp` only (verifyMcpAccessToken). A wrong verifier, a foreign redirect_uri, another resource,
 * a disabled account and a cross-site consent all fail.
 */
import { createHash, randomBytes } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUsers } from '../bin/users-command.ts';
import { TEST_TOKEN_SECRET, startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import {
  AUTHORIZE_PATH,
  CONNECT_ERROR_PAGE,
  CONSENT_PAGE,
  CONSENT_PATH,
  createMcpOAuth,
  type McpOAuth,
} from './oauth.ts';

let s: TestServer;
let oauth: McpOAuth;
let base: string;
/** One registered client: registration is limited to 5 a minute per address. */
let clientId: string;
const REDIRECT = 'http://127.0.0.1:33418/callback';

beforeAll(async () => {
  // Sign-up open even on libSQL servers, where a deployment's default is closed (config.ts).
  s = await startTestServer({ SIGNUP: 'open' });
  // The server answers the authorization server's routes itself (server.ts); this instance, on
  // the same databases, checks tokens directly.
  oauth = createMcpOAuth(s.app, { publicUrl: null });
  base = s.url;
  clientId = await register();
});

afterAll(async () => {
  await s?.close();
});

const resource = () => `${base}/mcp`;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

async function register(): Promise<string> {
  const r = await fetch(`${base}/oauth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Agent',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = (await r.json()) as Json;
  expect(r.status, JSON.stringify(body)).toBeLessThan(300);
  return body.client_id as string;
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    scope: 'library:read',
    resource: resource(),
    ...extra,
  });
  // An empty value in `extra`: the parameter is left out.
  for (const [name, value] of Object.entries(extra)) if (value === '') q.delete(name);
  return `${base}${AUTHORIZE_PATH}?${q.toString()}`;
}

/**
 * A browser's top-level navigation (node:http: fetch would say `Sec-Fetch-Mode: cors`): the
 * status and Location, no redirect followed, the session cookie sent when given.
 */
function browserGet(url: string, cookie?: string): Promise<{ status: number; location: string | null }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(
      url,
      {
        headers: {
          accept: 'text/html',
          'sec-fetch-mode': 'navigate',
          ...(cookie ? { cookie: `sponge_session=${cookie}` } : {}),
        },
      },
      (res) => {
        res.resume();
        res.once('end', () =>
          resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null }),
        );
      },
    );
    req.once('error', reject);
  });
}

/** Through consent (the first time this client asks), as the owner's browser goes: the code. */
async function authorize(
  clientId: string,
  challenge: string,
  cookie: string,
  extra: Record<string, string> = {},
) {
  const first = await browserGet(authorizeUrl(clientId, challenge, extra), cookie);
  expect(first.status).toBe(302);
  let back = new URL(first.location!, base);
  if (back.pathname === CONSENT_PAGE) {
    const r = await fetch(`${base}${CONSENT_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        origin: base,
        cookie: `sponge_session=${cookie}`,
      },
      body: JSON.stringify({ accept: true, oauth_query: back.search.slice(1) }),
    });
    const body = (await r.json()) as Json;
    expect(r.status, JSON.stringify(body)).toBe(200);
    back = new URL(body.url as string);
  }
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe('st-1');
  return back.searchParams.get('code')!;
}

function withoutEmpty(params: Record<string, string>): URLSearchParams {
  return new URLSearchParams(Object.entries(params).filter(([, value]) => value !== ''));
}

async function exchange(
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) {
  const r = await fetch(`${base}/oauth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: withoutEmpty({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
      resource: resource(),
      ...extra,
    }),
  });
  return { status: r.status, body: (await r.json()) as Json };
}

describe('OAuth for MCP clients', () => {
  it('publishes its metadata with the issuer under the app origin', async () => {
    const r = await fetch(`${base}/.well-known/oauth-authorization-server/oauth`);
    expect(r.status, await r.clone().text()).toBe(200);
    const m = (await r.json()) as Json;
    expect(m.issuer).toBe(oauth.issuer(base));
    expect(m.authorization_endpoint).toBe(`${base}${AUTHORIZE_PATH}`);
    expect(m.token_endpoint).toBe(`${base}/oauth/oauth2/token`);
    expect(m.registration_endpoint).toBe(`${base}/oauth/oauth2/register`);
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
  });

  it('sends a signed-out owner to sign in and back to the same request', async () => {
    const r = await browserGet(authorizeUrl(clientId, pkce().challenge));
    expect(r.status).toBe(302);
    const to = new URL(r.location!, base);
    expect(to.pathname).toBe('/signin');
    const next = new URL(to.searchParams.get('next')!, base);
    expect(next.pathname).toBe(AUTHORIZE_PATH);
    expect(next.searchParams.get('client_id')).toBe(clientId);
    expect(next.searchParams.get('resource')).toBe(resource());
    expect(next.searchParams.has('sig')).toBe(false);
  });

  it('issues a token for /mcp after sign-in, consent and the PKCE verifier', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    const { verifier, challenge } = pkce();
    const code = await authorize(clientId, challenge, cookie);
    const { status, body } = await exchange(clientId, code, verifier);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.access_token).toMatch(/^mat_/);
    const verified = await oauth.verifyMcpAccessToken(body.access_token as string);
    expect(verified?.userId).toBe('user-ada');
    expect(await oauth.verifyMcpAccessToken(body.access_token as string, base)).toEqual(verified);
    // Bound to this origin's /mcp: not another origin's.
    expect(await oauth.verifyMcpAccessToken(body.access_token as string, 'http://elsewhere.test')).toBeNull();
    // The code is spent.
    expect((await exchange(clientId, code, verifier)).status).toBe(400);
    // Nowhere but /mcp: the API's own bearer checks refuse it.
    const me = await s.call('query', 'auth.me', undefined, body.access_token as string);
    expect(me.data ?? null).toBeNull();
  });

  it('opens /mcp for the owner through the SDK client, from the 401 to the tools, and nothing else', async () => {
    // What a client discovers: the 401's pointer, the resource's metadata, its authorization server.
    const refused = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    const pointer = /resource_metadata="([^"]+)"/.exec(refused.headers.get('www-authenticate') ?? '')?.[1];
    const metadata = (await (await fetch(pointer!)).json()) as Json;
    expect(metadata).toMatchObject({
      resource: resource(),
      authorization_servers: [`${base}/oauth`],
      scopes_supported: ['library:read'],
    });
    const server = (await (
      await fetch(`${base}/.well-known/oauth-authorization-server/oauth`)
    ).json()) as Json;
    expect(server.issuer).toBe(`${base}/oauth`);

    const { cookie } = await s.loginCookie('user-ada');
    const { verifier, challenge } = pkce();
    const { body } = await exchange(clientId, await authorize(clientId, challenge, cookie), verifier);
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${body.access_token as string}` } },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(6);
    const listed = await client.callTool({ name: 'list_documents', arguments: {} });
    const documents = (listed.structuredContent as Json).documents as Json[];
    expect(documents.length).toBeGreaterThan(0);
    const mine = (await s.call('query', 'documents.list', undefined, await s.login('user-ada')))
      .data as Json[];
    expect(new Set(documents.map((d) => d.id))).toEqual(
      new Set(mine.filter((d) => d.access === 'owner').map((d) => d.id)),
    );
    await client.close();

    // A token that is not one: 401 invalid_token, like a revoked key.
    const forged = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer mat_${'A'.repeat(43)}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses a wrong verifier', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    const { challenge } = pkce();
    const code = await authorize(clientId, challenge, cookie);
    const { status, body } = await exchange(clientId, code, pkce().verifier);
    expect(status).toBe(400);
    expect(body.access_token).toBeUndefined();
  });

  it('refuses a redirect_uri the client did not register', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    const r = await browserGet(
      authorizeUrl(clientId, pkce().challenge, { redirect_uri: 'https://attacker.example/cb' }),
      cookie,
    );
    const location = r.location ?? '';
    expect(location).not.toContain('attacker.example');
    expect(location).not.toContain('code=');
    // The app's page that says why, never the library's own `/oauth/error`, which nothing answers.
    const refused = new URL(location, base);
    expect(refused.pathname).toBe(CONNECT_ERROR_PAGE);
    expect(refused.searchParams.get('error')).toBe('invalid_redirect');
  });

  it('sends a broken authorization request to the page that explains it, signed in or not', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    for (const who of [cookie, undefined]) {
      const unknown = await browserGet(authorizeUrl('no-such-client', pkce().challenge), who);
      expect(unknown.status).toBe(302);
      const refused = new URL(unknown.location ?? '', base);
      expect(refused.pathname).toBe(CONNECT_ERROR_PAGE);
      expect(refused.searchParams.get('error')).toBe('invalid_client');
    }
  });

  it('refuses another resource at authorization and a token without /mcp', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    const r = await browserGet(
      authorizeUrl(clientId, pkce().challenge, { resource: 'https://other.example/api' }),
      cookie,
    );
    const location = new URL(r.location!, base);
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(location.searchParams.has('code')).toBe(false);

    // Asked without a resource, the token is for no resource: /mcp does not take it.
    const { verifier, challenge } = pkce();
    const code = await authorize(clientId, challenge, cookie, { resource: '' });
    const { status, body } = await exchange(clientId, code, verifier, { resource: '' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(await oauth.verifyMcpAccessToken(body.access_token as string)).toBeNull();
  });

  it('refuses a consent from another site', async () => {
    const { cookie } = await s.loginCookie('user-ada');
    const first = await browserGet(authorizeUrl(clientId, pkce().challenge), cookie);
    const consent = new URL(first.location!, base);
    const r = await fetch(`${base}${CONSENT_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        origin: 'https://attacker.example',
        cookie: `sponge_session=${cookie}`,
      },
      body: JSON.stringify({ accept: true, oauth_query: consent.search.slice(1) }),
    });
    expect(r.status).toBe(403);
  });

  it('refuses the tokens of a disabled account, and disabling deletes them', async () => {
    const email = `oauth-${randomBytes(4).toString('hex')}@example.test`;
    const signUp = await fetch(`${s.url}/trpc/auth.signUp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: s.url },
      body: JSON.stringify({ name: 'Olga', email, password: 'correct horse battery staple' }),
    });
    expect(signUp.status, await signUp.clone().text()).toBe(200);
    const cookie = /sponge_session=([^;]*)/.exec(signUp.headers.get('set-cookie') ?? '')![1]!;
    const { verifier, challenge } = pkce();
    const code = await authorize(clientId, challenge, cookie, { scope: 'library:read offline_access' });
    const { body } = await exchange(clientId, code, verifier);
    const token = body.access_token as string;
    expect(await oauth.verifyMcpAccessToken(token)).not.toBeNull();
    expect(typeof body.refresh_token).toBe('string');

    const disabled = await runUsers(['disable', '--email', email], {
      env: {
        DATA_DIR: s.dir,
        APP_DATABASE_URL: s.appUrl,
        MEMORY_DATABASE_URL: s.memoryUrl,
        TOKEN_SECRET: TEST_TOKEN_SECRET,
        LOG_LEVEL: 'silent',
      },
      cwd: s.dir,
      out: { write: () => true },
      err: { write: () => true },
      readPassword: () => Promise.resolve(''),
    });
    expect(disabled).toBe(0);
    expect(await oauth.verifyMcpAccessToken(token)).toBeNull();
    const left = await s.app.app.execute({
      sql: `SELECT (SELECT COUNT(*) FROM oauth_access_tokens WHERE user_id = u.id) AS a,
                   (SELECT COUNT(*) FROM oauth_refresh_tokens WHERE user_id = u.id) AS r
              FROM users u WHERE u.email = ?`,
      args: [email],
    });
    expect(Number(left.rows[0]!.a) + Number(left.rows[0]!.r)).toBe(0);
    const refreshed = await fetch(`${base}/oauth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: body.refresh_token as string,
        client_id: clientId,
      }),
    });
    expect(refreshed.status).toBe(400);
  });

  it('refuses what is not its token', async () => {
    expect(await oauth.verifyMcpAccessToken('')).toBeNull();
    expect(await oauth.verifyMcpAccessToken(`mat_${randomBytes(32).toString('base64url')}`)).toBeNull();
    expect(await oauth.verifyMcpAccessToken(`ak_${randomBytes(32).toString('base64url')}`)).toBeNull();
  });
});
