/**
 * Signed, opaque strings handed to the agent: query cursors and explain tokens. Format:
 * `base64url(JSON payload) "." base64url(HMAC-SHA256(key, purpose "." payload))`.
 *
 * The purpose is part of the MAC, so a cursor is never accepted as an explain token or the other
 * way round. The payload is readable by its holder (it only names the holder's own session,
 * question and position); what the MAC guarantees is that nobody can change it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type TokenPurpose = 'cursor' | 'explain';

function mac(secret: string, purpose: TokenPurpose, body: string): Buffer {
  return createHmac('sha256', secret).update(`sponge-memory/${purpose}.${body}`).digest();
}

export function signToken(secret: string, purpose: TokenPurpose, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(secret, purpose, body).toString('base64url')}`;
}

/** The payload, or null for anything not signed by this secret for this purpose. */
export function verifyToken(secret: string, purpose: TokenPurpose, token: string): unknown {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [body, signature] = parts as [string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(signature)) return null;
  const expected = mac(secret, purpose, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  // base64url's last character carries spare bits, so several spellings decode to the same
  // bytes; only the one we issued is a valid token (a token is an exact string, not its bytes).
  if (given.toString('base64url') !== signature) return null;
  const decoded = Buffer.from(body, 'base64url');
  if (decoded.toString('base64url') !== body) return null;
  try {
    return JSON.parse(decoded.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
