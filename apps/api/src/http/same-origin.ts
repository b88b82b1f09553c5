/**
 * Cross-site request refusal (SPEC §6c). The session cookie is SameSite=Lax, which a page on
 * another port of the same host (same site, other origin) still gets sent with its POSTs: a form
 * there could upload into the owner's library or sign them out. So a POST that the cookie
 * authenticates must show it comes from the app's own pages: an `Origin` equal to this request's
 * own scheme and Host (or to PUBLIC_URL), or `Sec-Fetch-Site: same-origin`. With neither header
 * it is refused too. A bearer token is never sent by a browser on its own, so it is not affected.
 *
 * @example
 * if (cookieAuthenticated(req.headers) && !fromOwnOrigin(req, config.publicUrl)) refuse(…);
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { readCredential } from './credential.ts';

/** Whether the session cookie is the request's credential (no Authorization header wins over it). */
export function cookieAuthenticated(headers: IncomingHttpHeaders): boolean {
  const credential = readCredential({ authorization: headers.authorization, cookie: headers.cookie });
  return typeof credential === 'object' && credential.from === 'cookie';
}

/**
 * This app's own origin as the request reaches it: PUBLIC_URL when set, else the request's own
 * scheme and Host (null without a Host). What an `Origin` header is compared with, and what the
 * MCP endpoint's metadata names.
 */
export function ownOrigin(req: IncomingMessage, publicUrl: string | null): string | null {
  if (publicUrl !== null) return publicUrl;
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || host === '') return null;
  const tls =
    (req.socket as { encrypted?: boolean }).encrypted === true ||
    req.headers['x-forwarded-proto'] === 'https';
  return `${tls ? 'https' : 'http'}://${host}`;
}

/** Whether the request's `Origin` header names this app's own origin (PUBLIC_URL or its own). */
export function originIsOwn(req: IncomingMessage, publicUrl: string | null): boolean {
  const origin = req.headers.origin?.toLowerCase();
  if (origin === undefined || origin === 'null') return false;
  if (publicUrl !== null && origin === publicUrl) return true;
  return origin === ownOrigin(req, null);
}

/** Whether the request comes from a page of this app's own origin, by the browser's word. */
export function fromOwnOrigin(req: IncomingMessage, publicUrl: string | null): boolean {
  return req.headers['sec-fetch-site'] === 'same-origin' || originIsOwn(req, publicUrl);
}

/** The procedures that start a session: a page of another site must not sign a browser in. */
const SIGN_IN_PROCEDURES = new Set(['auth.signIn', 'auth.signUp', 'auth.login']);

/**
 * Login CSRF: a form on another site could sign the owner's browser into the attacker's account,
 * so that what the owner then adds lands in the attacker's library. These POSTs carry no session
 * cookie yet, so the rule above does not see them: refused when the browser says they come from
 * another origin. A script sends neither header and is not affected.
 */
export function crossOriginSignIn(
  req: IncomingMessage,
  procedures: string,
  publicUrl: string | null,
): boolean {
  if (!procedures.split(',').some((p) => SIGN_IN_PROCEDURES.has(p))) return false;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  return req.headers.origin !== undefined && !fromOwnOrigin(req, publicUrl);
}

/**
 * A stream the session cookie opens (`chat.events`, a GET) that the browser says another origin's
 * page asked for. Without CORS, which this API never grants, that page could not read it anyway;
 * it is refused before it opens, so it neither runs nor holds a connection. A request without
 * either header (a script, an old browser) is not refused: no browser page reads it cross-origin.
 */
export function crossOriginStream(req: IncomingMessage, publicUrl: string | null): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  return req.headers.origin !== undefined && !fromOwnOrigin(req, publicUrl);
}
