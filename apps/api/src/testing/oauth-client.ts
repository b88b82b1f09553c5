/**
 * An MCP client's side of the OAuth sign-in (mcp/oauth.ts), for tests against a real server:
 * register, go through consent as the owner's browser, exchange the code, refresh, call `/mcp`.
 * Each step throws on an answer a client could not go on from.
 */
import { createHash, randomBytes } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { AUTHORIZE_PATH, CONSENT_PAGE, CONSENT_PATH } from '../mcp/oauth.ts';
import type { Json } from './harness.ts';

const TEST_REDIRECT = 'http://127.0.0.1:33418/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a client as MCP clients do (RFC 7591, no credential): its client_id. */
export async function registerClient(base: string, name: string): Promise<string> {
  const r = await fetch(`${base}/oauth/oauth2/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [TEST_REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const body = (await r.json()) as Json;
  if (r.status >= 300) throw new Error(`register: ${r.status} ${JSON.stringify(body)}`);
  return body.client_id as string;
}

function authorizeUrl(base: string, clientId: string, challenge: string, scope: string): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: TEST_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    scope,
    resource: `${base}/mcp`,
  });
  return `${base}${AUTHORIZE_PATH}?${q.toString()}`;
}

/** A browser's top-level navigation: status and Location, no redirect followed. */
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

/**
 * The owner's browser through the authorization request, consenting when asked: the code, and
 * whether the consent page was shown (it is not once the owner consented to that client).
 */
export async function authorizeAs(
  base: string,
  clientId: string,
  challenge: string,
  cookie: string,
  scope = 'library:read offline_access',
): Promise<{ code: string; asked: boolean }> {
  const first = await browserGet(authorizeUrl(base, clientId, challenge, scope), cookie);
  if (first.status !== 302 || first.location === null) throw new Error(`authorize: ${first.status}`);
  let back = new URL(first.location, base);
  const asked = back.pathname === CONSENT_PAGE;
  if (asked) {
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
    if (r.status !== 200) throw new Error(`consent: ${r.status} ${JSON.stringify(body)}`);
    back = new URL(body.url as string);
  }
  const code = back.searchParams.get('code');
  if (`${back.origin}${back.pathname}` !== TEST_REDIRECT || code === null)
    throw new Error(`authorize ended on ${back.href}`);
  return { code, asked };
}

/** A token endpoint call: its status and JSON body. */
export async function tokenRequest(base: string, params: Record<string, string>) {
  const r = await fetch(`${base}/oauth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: r.status, body: (await r.json()) as Json };
}

/** Registration through to tokens, as an MCP client does it the first time. */
export async function signInClient(
  base: string,
  cookie: string,
  name: string,
): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const clientId = await registerClient(base, name);
  const { verifier, challenge } = pkce();
  const { code } = await authorizeAs(base, clientId, challenge, cookie);
  const { status, body } = await tokenRequest(base, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: TEST_REDIRECT,
    resource: `${base}/mcp`,
  });
  if (status !== 200) throw new Error(`token: ${status} ${JSON.stringify(body)}`);
  return {
    clientId,
    accessToken: body.access_token as string,
    refreshToken: body.refresh_token as string,
  };
}

/** A `ping` to `/mcp` with a bearer token: the HTTP status. */
export async function pingMcp(base: string, token: string): Promise<number> {
  const r = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  await r.arrayBuffer();
  return r.status;
}
