/**
 * Who is calling. Every request resolves to exactly one caller:
 *
 * - `user`   — a person's session (accounts/accounts.ts): its token (`ut_…`) as
 *              `Authorization: Bearer`, or the signed `sponge_session` cookie that holds it;
 * - `apiKey` — an owner's own agent using the public API (`ak_…`, bearer only);
 * - `agent`  — a run's agent (`rt_…`, bearer only);
 * - `none`   — no credential, or one that is unknown, revoked, expired or malformed. Public
 *              procedures treat both alike; protected ones answer UNAUTHORIZED.
 *
 * The bearer header wins over the cookie, so a script never acts as the browser's user by
 * accident. The cookie only ever carries user tokens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hashToken, hashesEqual, tokenKind } from '../tokens.ts';
import { userByApiKey, userBySessionToken } from '../accounts/users.ts';
import { recordUse, useIsStale } from '../accounts/connected-agents.ts';
import type { User } from '../accounts/users.ts';
import { runByTokenHash } from '../runs/runs.ts';
import type { Run } from '../runs/runs.ts';
import type { DocumentOwner } from '@sponge/library';
import type { AppDeps } from '../deps.ts';
import { fromAppDatabaseError } from '../errors.ts';
import { clientAddress, trustedProxies } from '../http/client-address.ts';
import { readCredential } from '../http/credential.ts';
import type { Credential } from '../http/credential.ts';

export type Caller =
  /** `sessionToken`: what sign-out revokes. */
  | { kind: 'user'; user: User; sessionToken: string }
  | { kind: 'apiKey'; user: User; keyId: string }
  /** The hosted runtime, by RUNTIME_KEY: it claims runs (runtime.*) and nothing else. */
  | { kind: 'runtime' }
  /** `document`: the run's document as read with the run, in the same statement (null if gone). */
  | { kind: 'agent'; run: Run; document: DocumentOwner | null }
  | { kind: 'none'; credential: 'absent' | 'invalid' };

export interface Context {
  deps: AppDeps;
  caller: Caller;
  /** Adds a `Set-Cookie` header to the response (no-op outside HTTP). */
  setCookie: (cookie: string) => void;
  /** Whether the request came over TLS (decides the cookie's `Secure` flag). */
  secure: boolean;
  /** The client's address (what sign-in is rate-limited by, http/client-address.ts); null outside HTTP. */
  clientAddress: string | null;
}

/** Resolves a credential to a caller, looking the token up by its hash in its kind's table. */
export async function resolveCaller(
  deps: AppDeps,
  credential: Credential | 'malformed' | undefined,
  setCookie: (cookie: string) => void = () => {},
): Promise<Caller> {
  if (credential === undefined) return { kind: 'none', credential: 'absent' };
  if (credential === 'malformed') return { kind: 'none', credential: 'invalid' };
  if (credential.from === 'cookie') {
    // The library checks the cookie's signature, the session's expiry (and slides it,
    // `setCookie`) and reads its account, disabled or not: one lookup, not two.
    const session = await deps.accounts.sessionFromCookie(credential.token, setCookie);
    return session
      ? { kind: 'user', user: session.user, sessionToken: session.token }
      : { kind: 'none', credential: 'invalid' };
  }
  const kind = tokenKind(credential.token);
  if (kind === null) {
    // The runtime key is the operator's own string, not one of our prefixed tokens; compared by
    // hash in constant time (a bearer: cookies were handled above).
    const isRuntime = hashesEqual(hashToken(credential.token), deps.runtimeKeyHash);
    return isRuntime ? { kind: 'runtime' } : { kind: 'none', credential: 'invalid' };
  }
  if (kind === 'user') {
    const user = await userBySessionToken(deps.app, credential.token, deps.now());
    return user
      ? { kind: 'user', user, sessionToken: credential.token }
      : { kind: 'none', credential: 'invalid' };
  }
  const hash = hashToken(credential.token);
  if (kind === 'apiKey') {
    const found = await userByApiKey(deps.app, hash);
    if (!found) return { kind: 'none', credential: 'invalid' };
    // For the owner's Connected agents: a write at most once a minute per key, not every call.
    if (useIsStale(found.lastUsedAt, deps.now())) await recordUse(deps, 'api_key', found.keyId);
    return { kind: 'apiKey', user: { id: found.id, name: found.name }, keyId: found.keyId };
  }
  const found = await runByTokenHash(deps.app, hash);
  return found
    ? { kind: 'agent', run: found.run, document: found.document }
    : { kind: 'none', credential: 'invalid' };
}

/**
 * The inner context: everything a procedure needs, without HTTP. Tests use it with
 * `createCaller`; the HTTP adapter wraps it in {@link createHttpContext}.
 */
export async function createInnerContext(opts: {
  deps: AppDeps;
  authorization?: string;
  cookie?: string;
  setCookie?: (cookie: string) => void;
  secure?: boolean;
  clientAddress?: string | null;
}): Promise<Context> {
  const secure = opts.secure ?? false;
  const sink = opts.setCookie ?? (() => {});
  // Secure is decided per request (TLS here or at a proxy in front), whoever made the cookie.
  const setCookie = (cookie: string) =>
    sink(secure && !/;\s*secure\b/i.test(cookie) ? `${cookie}; Secure` : cookie);
  const caller = await resolveCaller(
    opts.deps,
    readCredential({ authorization: opts.authorization, cookie: opts.cookie }),
    setCookie,
  );
  return { deps: opts.deps, caller, setCookie, secure, clientAddress: opts.clientAddress ?? null };
}

/** The standalone adapter's context: reads headers, and appends cookies to the response. */
export function createHttpContextFactory(deps: AppDeps) {
  const proxies = trustedProxies(deps.config.trustedProxies);
  return async ({ req, res }: { req: IncomingMessage; res: ServerResponse }): Promise<Context> => {
    const cookies: string[] = [];
    // The credential is looked up in the application database: while it cannot serve, the
    // caller reads 503 `unavailable` (context errors never reach the procedure middleware).
    return createInnerContext({
      deps,
      authorization: req.headers.authorization,
      cookie: req.headers.cookie,
      // The socket's peer; X-Forwarded-For only as far as TRUSTED_PROXIES wrote it (a client
      // could write any address there).
      clientAddress: clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], proxies),
      secure:
        (req.socket as { encrypted?: boolean }).encrypted === true ||
        req.headers['x-forwarded-proto'] === 'https',
      setCookie: (c) => {
        cookies.push(c);
        res.setHeader('Set-Cookie', cookies);
      },
    }).catch((error: unknown) => {
      const answer = fromAppDatabaseError(error);
      if (answer !== error)
        deps.log.warn({ err: error }, 'credential lookup failed: a database cannot serve');
      throw answer;
    });
  };
}
