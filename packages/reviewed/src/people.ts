/**
 * Who reviewed: a decision keeps the reviewer's id, and what a person reads names them. The names
 * are the app's `users` rows (id, name), read here and never written, as the library reads them.
 */
import type { Client } from '@libsql/client';

/** Names of several people at once, keyed by id; an id whose account is gone has none. */
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
