/**
 * Deleting a session's content (Forget now, purge). Shared so that both paths delete exactly the
 * same tables.
 *
 * Convention: in the memory database, EVERY table with a `session_id` column holds session
 * content (sessions itself is keyed by `id`). That covers the store's own tables and whatever
 * recall adds (`note_vectors`, `recall_events`, …) without this module knowing their shape, so a
 * new per-session table can never be forgotten by forget or purge.
 */
import type { Client, InStatement } from '@libsql/client';
import { CONTENT_TABLES } from './memory-schema.ts';

/** Every table whose rows belong to one session: others first, then ours children-before-parents. */
export async function sessionContentTables(client: Client): Promise<string[]> {
  const rs = await client.execute(
    `SELECT m.name AS name FROM sqlite_master AS m
      WHERE m.type = 'table' AND substr(m.name, 1, 7) <> 'sqlite_'
        AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) AS c WHERE c.name = 'session_id')
      ORDER BY m.name`,
  );
  const ours = new Set<string>(CONTENT_TABLES);
  const others = rs.rows
    .map((r) => String(r.name))
    // Only plain identifiers are interpolated into SQL below.
    .filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n) && !ours.has(n));
  return [...others, ...CONTENT_TABLES];
}

/** One statement per table: all of a session's rows (Forget now: one batch, at once). */
export function deleteAllStatements(tables: string[], sessionId: string): InStatement[] {
  return tables.map((table) => ({ sql: `DELETE FROM ${table} WHERE session_id = ?`, args: [sessionId] }));
}
