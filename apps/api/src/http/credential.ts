/**
 * Where a request's credential is (SPEC §6c): `Authorization: Bearer <token>`, or the session
 * cookie that holds a person's signed session (accounts/accounts.ts makes it). The bearer header
 * wins over the cookie, so a script never acts as the browser's user by accident; the cookie only
 * ever carries a session. Who the credential names is the context's to resolve (trpc/context.ts).
 */
import { parseCookie } from 'cookie';

/** The session cookie's name: HttpOnly, SameSite=Lax, Secure behind TLS (SPEC §6c). */
export const SESSION_COOKIE = 'sponge_session';

/** Where the credential came from; the cookie only ever holds a signed session. */
export interface Credential {
  token: string;
  from: 'bearer' | 'cookie';
}

/** The bearer token, else the session cookie; `undefined` when neither is present. */
export function readCredential(headers: {
  authorization?: string | undefined;
  cookie?: string | undefined;
}): Credential | 'malformed' | undefined {
  const auth = headers.authorization;
  if (auth !== undefined && auth !== '') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m?.[1] ? { token: m[1], from: 'bearer' } : 'malformed';
  }
  if (headers.cookie) {
    // Taken as sent: our tokens are base64url, nothing to decode. An empty value (a cleared
    // cookie) is skipped, so a later cookie of the same name still counts.
    const token = parseCookie(headers.cookie, { decode: (value) => value || undefined })[SESSION_COOKIE];
    if (token) return { token, from: 'cookie' };
  }
  return undefined;
}
