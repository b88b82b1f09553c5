/**
 * Bearer credentials: random, prefixed by kind, stored only as SHA-256 hashes.
 *
 * The prefix tells the context which table to look in, so a token of one kind can never be
 * mistaken for another (a run token is never looked up among user tokens).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

const TOKEN_PREFIXES = { user: 'ut_', run: 'rt_', apiKey: 'ak_' } as const;
export type TokenKind = keyof typeof TOKEN_PREFIXES;

/** 32 random bytes, base64url, with the kind's prefix. */
export function newToken(kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + randomBytes(32).toString('base64url');
}

/** Lowercase hex SHA-256 of the whole token (prefix included). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && ba.length > 0 && timingSafeEqual(ba, bb);
}

// 43 base64url characters encode 32 bytes; anything else cannot be one of ours.
const TOKEN_RE = /^(ut_|rt_|ak_)[A-Za-z0-9_-]{43}$/;

/** The token's kind, or null when it is not shaped like any token this API issues. */
export function tokenKind(token: string): TokenKind | null {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  return m[1] === 'ut_' ? 'user' : m[1] === 'rt_' ? 'run' : 'apiKey';
}

/** Random ids for rows: a short readable prefix and a UUID. */
export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}
