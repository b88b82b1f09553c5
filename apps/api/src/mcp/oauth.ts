/**
 * OAuth sign-in for MCP clients (SPEC §7d, issue 29): an OAuth 2.1 authorization server for
 * `/mcp`, built on better-auth's OAuth provider plugin over the accounts' own configuration
 * (accounts/accounts.ts: the same tables, secret and session cookie).
 *
 * What a client does: it reads `/mcp`'s protected-resource metadata, then this server's metadata
 * (`/.well-known/oauth-authorization-server/oauth`, RFC 8414), registers itself (RFC 7591, no
 * credential needed, as MCP clients do), sends the owner's browser to `/oauth/oauth2/authorize`
 * with PKCE (S256 only) and `resource=<origin>/mcp` (RFC 8707), and exchanges the code at
 * `/oauth/oauth2/token`. A signed-out owner signs in first (`/signin?next=` back to the
 * authorization request) and then consents on `/account/connect`, which names the client and
 * what it gets: read-only access to the library, never working memory.
 *
 * The access token (`mat_…`, an hour) is opaque, stored as a SHA-256 hash, bound to the `/mcp`
 * resource, and accepted by `/mcp` alone: `verifyMcpAccessToken`, which the endpoint calls, is its
 * only reader, and the API's other bearer checks know no `mat_` prefix (tokens.ts). A disabled
 * account's tokens are refused, and disabling deletes them (accounts/users-command.ts). A refresh
 * token (`mrt_…`, with `offline_access`) lives 14 days ({@link REFRESH_TOKEN_SECONDS}). The owner
 * sees each client they consented to on Connected agents and revokes it there, which deletes the
 * consent and its tokens; a token opens `/mcp` only while that consent stands
 * (accounts/connected-agents.ts).
 *
 * Only the routes below are answered (`owns`): none of the library's other routes (sign-in,
 * client administration…) is reachable. The issuer is the app's origin with `/oauth`: PUBLIC_URL,
 * else the address and port the server listens on as the request's Host names them (over
 * loopback: localhost, 127.0.0.1 or [::1]); any other Host gets 421. One library instance per
 * origin, each of which knows its own `<origin>/mcp` as its resource.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { oauthProvider } from '@better-auth/oauth-provider';
import { betterAuth } from 'better-auth';
import { accountsOptions } from '../accounts/accounts.ts';
import { clientName, recordUse, useIsStale } from '../accounts/connected-agents.ts';
import { takePoint } from '../http/limit-store.ts';
import type { AppDeps } from '../deps.ts';
import { fromAppDatabaseError } from '../errors.ts';
import { clientAddress, trustedProxies } from '../http/client-address.ts';
import { isLoopbackHost } from '../http/loopback.ts';
import { fromOwnOrigin } from '../http/same-origin.ts';
import { MCP_PATH } from './metadata.ts';

export interface McpOAuth {
  /** True when `path` is one of the authorization server's routes (it then answers it). */
  owns(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** The issuer URL for the protected-resource metadata's `authorization_servers`. */
  issuer(origin: string): string;
  /**
   * The owner and token id of an OAuth access token for `/mcp`, or null. With `origin` (the
   * origin `/mcp` was reached under) the token must be for exactly `<origin>/mcp`; without it,
   * for PUBLIC_URL's `/mcp` when set, else for `/mcp` under any origin.
   */
  verifyMcpAccessToken(token: string, origin?: string): Promise<{ userId: string; tokenId: string } | null>;
}

/** The library's base path: the issuer is `<origin>/oauth`. */
const OAUTH_BASE_PATH = '/oauth';
export const AUTHORIZE_PATH = `${OAUTH_BASE_PATH}/oauth2/authorize`;
export const CONSENT_PATH = `${OAUTH_BASE_PATH}/oauth2/consent`;
export const PUBLIC_CLIENT_PATH = `${OAUTH_BASE_PATH}/oauth2/public-client`;
const TOKEN_PATH = `${OAUTH_BASE_PATH}/oauth2/token`;
const REGISTER_PATH = `${OAUTH_BASE_PATH}/oauth2/register`;
const REVOKE_PATH = `${OAUTH_BASE_PATH}/oauth2/revoke`;
/** RFC 8414 §3: the issuer's path after the well-known name; clients of the older MCP revision look at the root. */
const METADATA_PATHS = [
  `/.well-known/oauth-authorization-server${OAUTH_BASE_PATH}`,
  '/.well-known/oauth-authorization-server',
];
/** The web app's pages the flow passes through (apps/web). */
const SIGN_IN_PAGE = '/signin';
export const CONSENT_PAGE = '/account/connect';
/**
 * Where a browser goes when an authorization request cannot be sent back to its client (unknown
 * client, unregistered redirect_uri…): the app's page that says so, signed in or not. The
 * library's default, `/oauth/error`, is none of the routes answered here.
 */
export const CONNECT_ERROR_PAGE = '/connect/error';

/** The one scope a client gets: reading the library through `/mcp`'s tools. */
export const MCP_SCOPE = 'library:read';
const SCOPES = [MCP_SCOPE, 'offline_access'];

/** Prefixes of the tokens handed out (not stored; only the rest's SHA-256 is). */
export const ACCESS_TOKEN_PREFIX = 'mat_';
const REFRESH_TOKEN_PREFIX = 'mrt_';
const ACCESS_TOKEN_SECONDS = 3600;
/**
 * A refresh token's life, 14 days rather than the library's 30: it is what keeps a client connected
 * after the hour's access token, sign-out and the browser session, held by a program the owner did
 * not make on a machine that is not the server, so a client left unused for two weeks signs in
 * again (the owner is asked only if they revoked it). Each refresh rotates the token and starts a
 * new 14 days: an agent in use keeps working until the owner revokes it on Connected agents
 * (accounts/connected-agents.ts).
 */
const REFRESH_TOKEN_SECONDS = 14 * 24 * 3600;
const TOKEN_BODY = /^[A-Za-z0-9_-]{43}$/;

/** Request bodies here are a few form fields or a registration document. */
const MAX_BODY_BYTES = 64 * 1024;
/** The names a loopback connection may give in `Host` without PUBLIC_URL (with the listening port). */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/**
 * The library's rate limits key on this header, which only this file sets: the client's address
 * (the socket's peer, or past TRUSTED_PROXIES the client their X-Forwarded-For names).
 */
const PEER_HEADER = 'x-sponge-oauth-peer';

/** Tables of migration 016: each model's fields under snake_case names. */
function snakeFields(fields: string[]): Record<string, string> {
  // requirePKCE is require_pkce: a run of capitals is one word.
  return Object.fromEntries(
    fields.map((f) => [
      f,
      f.replace(/([a-z])([A-Z]+)/g, (_, a: string, b: string) => `${a}_${b.toLowerCase()}`),
    ]),
  );
}
const OAUTH_SCHEMA = {
  oauthClient: {
    modelName: 'oauth_clients',
    fields: snakeFields([
      'clientId',
      'clientSecret',
      'clientDiscoveryId',
      'skipConsent',
      'enableEndSession',
      'subjectType',
      'clientCredentialsScopes',
      'userId',
      'createdAt',
      'updatedAt',
      'softwareId',
      'softwareVersion',
      'softwareStatement',
      'redirectUris',
      'postLogoutRedirectUris',
      'backchannelLogoutUri',
      'backchannelLogoutSessionRequired',
      'tokenEndpointAuthMethod',
      'applicationType',
      'jwksUri',
      'grantTypes',
      'responseTypes',
      'requirePKCE',
      'dpopBoundAccessTokens',
      'referenceId',
    ]),
  },
  oauthResource: {
    modelName: 'oauth_resources',
    fields: snakeFields([
      'accessTokenTtl',
      'refreshTokenTtl',
      'signingAlgorithm',
      'signingKeyId',
      'allowedScopes',
      'customClaims',
      'dpopBoundAccessTokensRequired',
      'createdAt',
      'updatedAt',
      'policyVersion',
    ]),
  },
  oauthClientResource: {
    modelName: 'oauth_client_resources',
    fields: snakeFields(['clientId', 'resourceId', 'createdAt']),
  },
  oauthRefreshToken: {
    modelName: 'oauth_refresh_tokens',
    fields: snakeFields([
      'clientId',
      'sessionId',
      'userId',
      'referenceId',
      'authorizationCodeId',
      'requestedUserInfoClaims',
      'expiresAt',
      'createdAt',
      'rotatedAt',
      'rotationReplayResponse',
      'rotationReplayExpiresAt',
      'authTime',
    ]),
  },
  oauthAccessToken: {
    modelName: 'oauth_access_tokens',
    fields: snakeFields([
      'clientId',
      'sessionId',
      'userId',
      'referenceId',
      'authorizationCodeId',
      'requestedUserInfoClaims',
      'refreshId',
      'expiresAt',
      'createdAt',
    ]),
  },
  oauthConsent: {
    modelName: 'oauth_consents',
    fields: snakeFields([
      'clientId',
      'userId',
      'referenceId',
      'requestedUserInfoClaims',
      'createdAt',
      'updatedAt',
    ]),
  },
  oauthClientAssertion: { modelName: 'oauth_client_assertions', fields: snakeFields(['expiresAt']) },
};

/** How tokens, codes and secrets' lookups are stored: hex SHA-256, as the API's own tokens are. */
function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function createAuthorizationServer(deps: AppDeps, origin: string) {
  // openApp resolves it (TOKEN_SECRET or DATA_DIR/token-secret) before anything runs.
  const tokenSecret = deps.config.tokenSecret;
  if (tokenSecret === undefined) throw new Error('OAuth needs the resolved token secret');
  const base = accountsOptions({
    app: deps.app,
    tokenSecret,
    signUp: deps.accounts.signUpMode,
    log: deps.log,
    now: deps.now,
  });
  return betterAuth({
    ...base,
    baseURL: origin,
    basePath: OAUTH_BASE_PATH,
    // The plugin's own per-route limits (registration 5 a minute, token 20…), per client address
    // (IPv6 by /64), counted in the application database like the API's other limits, so every
    // API process and every origin's instance count the same requests, and a restart forgets none.
    rateLimit: {
      enabled: true,
      customStorage: {
        async consume(key: string, rule: { window: number; max: number }) {
          const nowMs = deps.now().getTime();
          const point = await takePoint(deps.app, `oauth:${key}`, nowMs, rule.window * 1000);
          return point.count <= rule.max
            ? { allowed: true, retryAfter: null }
            : { allowed: false, retryAfter: Math.max(1, Math.ceil((point.untilMs - nowMs) / 1000)) };
        },
      },
    },
    advanced: { ...base.advanced, ipAddress: { ipAddressHeaders: [PEER_HEADER] } },
    onAPIError: { errorURL: CONNECT_ERROR_PAGE },
    plugins: [
      oauthProvider({
        loginPage: SIGN_IN_PAGE,
        consentPage: CONSENT_PAGE,
        scopes: SCOPES,
        clientRegistrationDefaultScopes: SCOPES,
        clientRegistrationAllowedScopes: SCOPES,
        grantTypes: ['authorization_code', 'refresh_token'],
        // MCP clients register themselves; a registered client still needs the owner's consent.
        allowDynamicClientRegistration: true,
        allowUnauthenticatedClientRegistration: true,
        // A loopback redirect (an agent on the owner's machine) makes a native client, which may
        // use http there; any other redirect must be https.
        clientRegistrationDefaultApplicationType: 'infer',
        // Opaque tokens, looked up (and so revocable) on every use; no signing keys to keep.
        disableJwtPlugin: true,
        resources: [
          { identifier: `${origin}${MCP_PATH}`, name: 'Sponge library (read-only)', allowedScopes: SCOPES },
        ],
        // `/mcp` is the only resource: every client may ask for it.
        enforcePerClientResources: false,
        accessTokenExpiresIn: ACCESS_TOKEN_SECONDS,
        refreshTokenExpiresIn: REFRESH_TOKEN_SECONDS,
        storeTokens: { hash: (token) => sha256(token) },
        generateOpaqueAccessToken: () => randomBytes(32).toString('base64url'),
        generateRefreshToken: () => randomBytes(32).toString('base64url'),
        prefix: { opaqueAccessToken: ACCESS_TOKEN_PREFIX, refreshToken: REFRESH_TOKEN_PREFIX },
        schema: OAUTH_SCHEMA,
      }),
    ],
  });
}
type AuthorizationServer = ReturnType<typeof createAuthorizationServer>;

/** The body of a request, up to MAX_BODY_BYTES (null past it). */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.once('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function answerJson(res: ServerResponse, status: number, body: unknown, cache = 'no-store'): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': cache });
  res.end(JSON.stringify(body));
}

/** Names of the signed query's own parameters, which the authorization request never had. */
const SIGNED_QUERY_PARAMS = ['sig', 'exp', 'ba_iat', 'ba_pl', 'ba_param'];

/**
 * The library sends a signed-out owner to the sign-in page with its signed query; the app's page
 * takes `next` instead: back to the same authorization request, which then finds the session.
 * `prompt=login` is dropped there, as the library itself does after a sign-in.
 */
function signInLocation(location: string): string {
  const url = new URL(location, 'http://sponge.invalid');
  const params = url.searchParams;
  for (const name of SIGNED_QUERY_PARAMS) params.delete(name);
  const prompts = (params.get('prompt') ?? '').split(' ').filter((p) => p !== '' && p !== 'login');
  if (prompts.length > 0) params.set('prompt', prompts.join(' '));
  else params.delete('prompt');
  return `${SIGN_IN_PAGE}?next=${encodeURIComponent(`${AUTHORIZE_PATH}?${params.toString()}`)}`;
}

function timeOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  return Number.NaN;
}

function listOf(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** `<origin>/mcp` exactly, for some http(s) origin. */
function isMcpResource(resource: string): boolean {
  try {
    const url = new URL(resource);
    return (url.protocol === 'http:' || url.protocol === 'https:') && `${url.origin}${MCP_PATH}` === resource;
  } catch {
    return false;
  }
}

/** The address a connection reached, as it goes in a URL (an IPv4 client of a `::` socket as IPv4). */
function localHost(req: IncomingMessage): string {
  const address = (req.socket.localAddress ?? '').replace(/^::ffff:(?=\d+\.)/i, '');
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The origins a request may name without PUBLIC_URL: the port the connection reached (the one the
 * server listens on), under the address it reached, or, over loopback, under a loopback name. A
 * `Host` is the client's to write, so anything else (another port, `127.0.0.2`, `x.localhost`)
 * would be a made-up origin; these are few (three, plus the machine's other addresses), so the
 * authorization servers kept for them stay few whatever is sent.
 */
function listeningOrigins(req: IncomingMessage): string[] {
  const port = req.socket.localPort;
  const here = localHost(req);
  const names = isLoopbackHost(here) ? LOOPBACK_NAMES : [here];
  return names.map((name) => new URL(`http://${name}:${port}`).origin);
}

/**
 * The origin the authorization server answers `req` under: PUBLIC_URL when set, else the
 * request's `Host` if it names one of {@link listeningOrigins} (over plain HTTP, which is what
 * this server speaks; behind a TLS proxy PUBLIC_URL says the origin). Null for any other.
 */
function originFor(req: IncomingMessage, publicUrl: string | null): string | null {
  if (publicUrl !== null) return publicUrl;
  const host = req.headers.host;
  // A name or address and a port, nothing else (no `a@localhost:3000`, no `localhost:3000/x`).
  if (host === undefined || !/^[a-z0-9.:[\]-]+$/i.test(host)) return null;
  let origin: string;
  try {
    origin = new URL(`http://${host}`).origin;
  } catch {
    return null;
  }
  return listeningOrigins(req).includes(origin) ? origin : null;
}

export function createMcpOAuth(deps: AppDeps, options: { publicUrl: string | null }): McpOAuth {
  // One per origin of originFor: PUBLIC_URL alone, or the few the server listens under.
  const servers = new Map<string, AuthorizationServer>();
  const proxies = trustedProxies(deps.config.trustedProxies);
  const serverFor = (origin: string): AuthorizationServer => {
    let server = servers.get(origin);
    if (!server) servers.set(origin, (server = createAuthorizationServer(deps, origin)));
    return server;
  };
  const owned = new Set([
    AUTHORIZE_PATH,
    CONSENT_PATH,
    PUBLIC_CLIENT_PATH,
    TOKEN_PATH,
    REGISTER_PATH,
    REVOKE_PATH,
    ...METADATA_PATHS,
  ]);
  /** The routes that act for the signed-in owner: the only ones the session cookie is passed to. */
  const withSession = new Set([AUTHORIZE_PATH, CONSENT_PATH, PUBLIC_CLIENT_PATH]);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    const origin = originFor(req, options.publicUrl);
    if (origin === null) {
      req.resume();
      return answerJson(res, 421, {
        error: 'invalid_request',
        error_description:
          `This server answers OAuth at ${listeningOrigins(req).join(', ')} only (the address and ` +
          'port it listens on): set PUBLIC_URL to reach it under another name or port.',
      });
    }
    const server = serverFor(origin);
    if (METADATA_PATHS.includes(path)) {
      req.resume();
      if (method !== 'GET' && method !== 'HEAD') return answerJson(res, 405, { error: 'invalid_request' });
      const metadata = await server.api.getOAuthServerConfig();
      return answerJson(res, 200, metadata, 'public, max-age=3600');
    }
    // Consent acts for the owner's session: the app's own pages only, as every cookie POST (§6c).
    if (method === 'POST' && path === CONSENT_PATH && !fromOwnOrigin(req, options.publicUrl)) {
      req.resume();
      return answerJson(res, 403, {
        error: 'access_denied',
        error_description: 'Cross-site request refused.',
      });
    }
    const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
    if (body === null)
      return answerJson(res, 413, { error: 'invalid_request', error_description: 'Body too large.' });

    const headers = new Headers();
    for (const name of [
      'accept',
      'content-type',
      'authorization',
      'dpop',
      'user-agent',
      'sec-fetch-mode',
      'sec-fetch-site',
      'sec-fetch-dest',
    ]) {
      const value = req.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    if (withSession.has(path) && typeof req.headers.cookie === 'string')
      headers.set('cookie', req.headers.cookie);
    const client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], proxies);
    if (client !== null) headers.set(PEER_HEADER, client);
    const request = new Request(`${origin}${req.url ?? '/'}`, {
      method,
      headers,
      ...(body !== undefined && body.length > 0 ? { body: new Uint8Array(body) } : {}),
    });

    let response: Response;
    try {
      response = await server.handler(request);
    } catch (err) {
      // The application database cannot serve (a limit, a client, a token): try again later.
      if (fromAppDatabaseError(err) !== err) {
        deps.log.warn({ err, path }, 'oauth request failed: the application database cannot serve');
        res.setHeader('Retry-After', '5');
        return answerJson(res, 503, {
          error: 'temporarily_unavailable',
          error_description:
            'The database cannot be reached or is too busy right now. Try again in a moment.',
        });
      }
      deps.log.error({ err, path }, 'oauth request failed');
      return answerJson(res, 500, { error: 'server_error' });
    }
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') out[name] = value;
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) out['set-cookie'] = cookies;
    const location = response.headers.get('location');
    if (location !== null && (location === SIGN_IN_PAGE || location.startsWith(`${SIGN_IN_PAGE}?`))) {
      out.location = signInLocation(location);
    }
    let text = await response.text();
    // The library's JSON answer of a redirect (a fetch from a page) goes to sign-in the same way.
    if (response.headers.get('content-type')?.includes('application/json')) {
      try {
        const parsed = JSON.parse(text) as { redirect?: unknown; url?: unknown };
        if (
          parsed.redirect === true &&
          typeof parsed.url === 'string' &&
          parsed.url.startsWith(`${SIGN_IN_PAGE}?`)
        ) {
          text = JSON.stringify({ ...parsed, url: signInLocation(parsed.url) });
          delete out['content-length'];
        }
      } catch {
        // Not JSON after all: passed on as it is.
      }
    }
    if (path === PUBLIC_CLIENT_PATH && response.status === 200) {
      text = await describeClient(text);
      delete out['content-length'];
    }
    res.writeHead(response.status, out);
    res.end(method === 'HEAD' ? undefined : text);
  }

  /**
   * The consent page's facts about a client (SPEC §6c): its name as one line, and whether it
   * registered itself — through the open registration route, which records no account that made
   * it. Such a client's name and redirect URI are its own claims; nobody checked who is behind it.
   */
  async function describeClient(text: string): Promise<string> {
    let client: { client_id?: unknown; client_name?: unknown };
    try {
      client = JSON.parse(text) as typeof client;
    } catch {
      return text;
    }
    const rs = await deps.app.execute({
      sql: 'SELECT user_id, reference_id FROM oauth_clients WHERE client_id = ?',
      args: [String(client.client_id)],
    });
    const row = rs.rows[0];
    const selfRegistered = !row || (row.user_id === null && row.reference_id === null);
    return JSON.stringify({
      ...client,
      client_name: clientName(client.client_name),
      self_registered: selfRegistered,
    });
  }

  async function verifyMcpAccessToken(
    token: string,
    origin?: string,
  ): Promise<{ userId: string; tokenId: string } | null> {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    const raw = token.slice(ACCESS_TOKEN_PREFIX.length);
    if (!TOKEN_BODY.test(raw)) return null;
    const rs = await deps.app.execute({
      // Only while the owner's consent to the client stands: revoking it on Connected agents
      // (accounts/connected-agents.ts) ends every token of the client, one minted in a race included.
      sql: `SELECT t.id, t.user_id, t.expires_at, t.resources, t.scopes,
                   co.id AS consent_id, co.last_used_at
              FROM oauth_access_tokens t
              JOIN users u ON u.id = t.user_id
              JOIN oauth_clients c ON c.client_id = t.client_id
              JOIN oauth_consents co ON co.client_id = t.client_id AND co.user_id = t.user_id
             WHERE t.token = ? AND t.revoked IS NULL AND u.disabled_at IS NULL
               AND COALESCE(c.disabled, 0) = 0`,
      args: [sha256(raw)],
    });
    const row = rs.rows[0];
    if (!row) return null;
    // The library stamps tokens with the real time, not the API's (tests') clock.
    if (!(timeOf(row.expires_at) > Date.now())) return null;
    if (!listOf(row.scopes).includes(MCP_SCOPE)) return null;
    const resources = listOf(row.resources);
    const expected =
      origin !== undefined
        ? `${origin}${MCP_PATH}`
        : options.publicUrl !== null
          ? `${options.publicUrl}${MCP_PATH}`
          : null;
    if (expected !== null ? !resources.includes(expected) : !resources.some(isMcpResource)) return null;
    if (useIsStale(row.last_used_at, deps.now())) await recordUse(deps, 'oauth', String(row.consent_id));
    return { userId: String(row.user_id), tokenId: String(row.id) };
  }

  return {
    owns: (path) => owned.has(path),
    handle,
    issuer: (origin) => `${origin}${OAUTH_BASE_PATH}`,
    verifyMcpAccessToken,
  };
}
