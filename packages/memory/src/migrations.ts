/**
 * Ordered, recorded migrations. Each namespace (the memory store, reviewed knowledge, the API's
 * own tables) keeps its own numbered list in one shared `_migrations` table, so two packages can
 * migrate the same database without stepping on each other.
 */
import type { Client } from '@libsql/client';
import { MemoryError, isUniqueViolation } from './errors.ts';

/** A migration: its statements, or a named list of statements (the name is kept on record). */
export type Migration = readonly string[] | { readonly name: string; readonly statements: readonly string[] };

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS _migrations (
  namespace TEXT NOT NULL,
  id INTEGER NOT NULL CHECK (id >= 1),
  name TEXT,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (namespace, id)
)`;

/**
 * Applies the migrations of `namespace` that are not recorded yet, in order, each in one write
 * batch together with its `_migrations` row. Idempotent, and safe when several processes open the
 * database at once: the record row is written FIRST in the batch, so a second process racing on
 * the same migration fails on the primary key before running any DDL, re-reads and moves on.
 *
 * Migration ids are positions (1-based) in the list: never edit or reorder a released one,
 * append a new one.
 *
 * @example
 * await applyMigrations(client, 'api', [[`CREATE TABLE users (id TEXT PRIMARY KEY)`]]);
 */
export async function applyMigrations(
  client: Client,
  namespace: string,
  migrations: readonly Migration[],
  now: () => Date = () => new Date(),
): Promise<{ applied: number[] }> {
  await client.execute(CREATE_TABLE);
  const applied: number[] = [];
  for (let index = 0; index < migrations.length; index++) {
    const id = index + 1;
    const migration = migrations[index]!;
    const statements = 'statements' in migration ? migration.statements : migration;
    const name = 'statements' in migration ? migration.name : null;
    if (await isApplied(client, namespace, id)) continue;
    try {
      await client.batch(
        [
          { sql: 'INSERT INTO _migrations (namespace, id, name, applied_at) VALUES (?, ?, ?, ?)', args: [namespace, id, name, now().toISOString()] },
          ...statements.map((sql) => ({ sql, args: [] })),
        ],
        'write',
      );
      applied.push(id);
    } catch (error) {
      // Another process applied it between our check and our batch: that is success.
      if (isUniqueViolation(error) && (await isApplied(client, namespace, id))) continue;
      throw new MemoryError('integrity', `migration ${namespace} #${id}${name ? ` (${name})` : ''} failed`, { cause: error });
    }
  }
  return { applied };
}

async function isApplied(client: Client, namespace: string, id: number): Promise<boolean> {
  const rs = await client.execute({ sql: 'SELECT 1 FROM _migrations WHERE namespace = ? AND id = ?', args: [namespace, id] });
  return rs.rows.length > 0;
}
