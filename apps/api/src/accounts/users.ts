import type { Client } from '@libsql/client';
import { hashToken, hashesEqual, newId, newToken } from '../tokens.ts';

export interface User {
  id: string;
  name: string;
}

/** An account row without a password (demo owners, tests); people sign up through better-auth. */
export async function insertUser(
  db: Client,
  user: User & { isDemo: boolean; email?: string },
  now: Date,
): Promise<void> {
  await db.execute({
    sql: 'INSERT INTO users (id, name, email, is_demo, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    args: [
      user.id,
      user.name,
      // Demo owners have an address that cannot receive mail (RFC 2606 .invalid).
      user.email ?? (user.isDemo ? `${user.id}@demo.invalid` : null),
      user.isDemo ? 1 : 0,
      now.toISOString(),
      now.toISOString(),
    ],
  });
}

/** The signed-in person's own view of their account. */
export async function getAccount(db: Client, id: string): Promise<(User & { email: string | null }) | null> {
  const rs = await db.execute({ sql: 'SELECT id, name, email FROM users WHERE id = ?', args: [id] });
  const r = rs.rows[0];
  return r
    ? { id: String(r.id), name: String(r.name), email: r.email === null ? null : String(r.email) }
    : null;
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
 * The live session a `ut_…` token names (better-auth's table, accounts/accounts.ts): not expired,
 * and its account not disabled, checked on every call.
 */
export async function userBySessionToken(db: Client, token: string, now: Date): Promise<User | null> {
  const rs = await db.execute({
    sql: `SELECT s.expires_at, u.id, u.name FROM auth_sessions s JOIN users u ON u.id = s.user_id
          WHERE s.token = ? AND u.disabled_at IS NULL`,
    args: [token],
  });
  const r = rs.rows[0];
  if (!r || Date.parse(String(r.expires_at)) <= now.getTime()) return null;
  return { id: String(r.id), name: String(r.name) };
}

/** Sign-out: the session stops working at once, wherever its token or cookie is replayed. */
export async function deleteSession(db: Client, token: string): Promise<void> {
  await db.execute({ sql: 'DELETE FROM auth_sessions WHERE token = ?', args: [token] });
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

/** The live key with this hash and its owner; `lastUsedAt` as stored (accounts/connected-agents.ts). */
export async function userByApiKey(
  db: Client,
  keyHash: string,
): Promise<(User & { keyId: string; lastUsedAt: string | null }) | null> {
  const rs = await db.execute({
    sql: `SELECT k.id AS key_id, k.key_hash, k.last_used_at, u.id, u.name
          FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.key_hash = ? AND k.revoked_at IS NULL AND u.disabled_at IS NULL`,
    args: [keyHash],
  });
  const r = rs.rows[0];
  if (!r || !hashesEqual(String(r.key_hash), keyHash)) return null;
  return {
    id: String(r.id),
    name: String(r.name),
    keyId: String(r.key_id),
    lastUsedAt: r.last_used_at === null ? null : String(r.last_used_at),
  };
}
