import type { Client } from '@libsql/client';
import { hashToken, hashesEqual, newId, newToken } from '../tokens.ts';

export interface User {
  id: string;
  name: string;
}

/** Login sessions last 30 days; the memory session TTL is unrelated. */
export const USER_TOKEN_TTL_MS = 30 * 86_400_000;

export async function insertUser(db: Client, user: User & { isDemo: boolean }, now: Date): Promise<void> {
  await db.execute({
    sql: 'INSERT INTO users (id, name, is_demo, created_at) VALUES (?, ?, ?, ?)',
    args: [user.id, user.name, user.isDemo ? 1 : 0, now.toISOString()],
  });
}

export async function getUser(db: Client, id: string): Promise<User | null> {
  const rs = await db.execute({ sql: 'SELECT id, name FROM users WHERE id = ?', args: [id] });
  const r = rs.rows[0];
  return r ? { id: String(r.id), name: String(r.name) } : null;
}

export async function listDemoUsers(db: Client): Promise<User[]> {
  const rs = await db.execute('SELECT id, name FROM users WHERE is_demo = 1 ORDER BY created_at, id');
  return rs.rows.map((r) => ({ id: String(r.id), name: String(r.name) }));
}

/**
 * A new login token. Expired ones (of anyone) are deleted in the same batch: each sign-in adds a
 * row, and nothing else would ever remove the ones nobody signs out of.
 */
export async function createUserToken(db: Client, userId: string, now: Date): Promise<string> {
  const token = newToken('user');
  await db.batch(
    [
      { sql: 'DELETE FROM user_tokens WHERE expires_at <= ?', args: [now.toISOString()] },
      {
        sql: 'INSERT INTO user_tokens (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
        args: [
          hashToken(token),
          userId,
          now.toISOString(),
          new Date(now.getTime() + USER_TOKEN_TTL_MS).toISOString(),
        ],
      },
    ],
    'write',
  );
  return token;
}

export async function userByToken(db: Client, tokenHash: string, now: Date): Promise<User | null> {
  const rs = await db.execute({
    sql: `SELECT t.token_hash, t.expires_at, u.id, u.name
          FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`,
    args: [tokenHash],
  });
  const r = rs.rows[0];
  if (!r || !hashesEqual(String(r.token_hash), tokenHash)) return null;
  if (Date.parse(String(r.expires_at)) <= now.getTime()) return null;
  return { id: String(r.id), name: String(r.name) };
}

export async function deleteUserToken(db: Client, tokenHash: string): Promise<void> {
  await db.execute({ sql: 'DELETE FROM user_tokens WHERE token_hash = ?', args: [tokenHash] });
}

export interface ApiKeyInfo {
  id: string;
  label: string;
  createdAt: string;
}

export async function createApiKey(
  db: Client,
  userId: string,
  label: string,
  now: Date,
): Promise<ApiKeyInfo & { apiKey: string }> {
  const apiKey = newToken('apiKey');
  const id = newId('key');
  const createdAt = now.toISOString();
  await db.execute({
    sql: 'INSERT INTO api_keys (id, user_id, key_hash, label, created_at) VALUES (?, ?, ?, ?, ?)',
    args: [id, userId, hashToken(apiKey), label, createdAt],
  });
  return { id, label, createdAt, apiKey };
}

export async function listApiKeys(db: Client, userId: string): Promise<ApiKeyInfo[]> {
  const rs = await db.execute({
    sql: 'SELECT id, label, created_at FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at, id',
    args: [userId],
  });
  return rs.rows.map((r) => ({ id: String(r.id), label: String(r.label), createdAt: String(r.created_at) }));
}

/** Returns whether a live key of this user was revoked. */
export async function revokeApiKey(db: Client, userId: string, keyId: string, now: Date): Promise<boolean> {
  const rs = await db.execute({
    sql: 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL',
    args: [now.toISOString(), keyId, userId],
  });
  return rs.rowsAffected === 1;
}

export async function userByApiKey(db: Client, keyHash: string): Promise<(User & { keyId: string }) | null> {
  const rs = await db.execute({
    sql: `SELECT k.id AS key_id, k.key_hash, u.id, u.name
          FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
    args: [keyHash],
  });
  const r = rs.rows[0];
  if (!r || !hashesEqual(String(r.key_hash), keyHash)) return null;
  return { id: String(r.id), name: String(r.name), keyId: String(r.key_id) };
}

/** Names of several users at once (reviewers in the history and the panel), keyed by id. */
export async function userNames(db: Client, ids: Iterable<string>): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  const out = new Map<string, string>();
  if (unique.length === 0) return out;
  const rs = await db.execute({
    sql: `SELECT id, name FROM users WHERE id IN (${unique.map(() => '?').join(', ')})`,
    args: unique,
  });
  for (const r of rs.rows) out.set(String(r.id), String(r.name));
  return out;
}
