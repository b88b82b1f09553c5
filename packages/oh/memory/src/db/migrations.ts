/**
 * Ordered, recorded migrations. Each namespace (the memory store, reviewed knowledge, the API's
 * own tables) keeps its own numbered list in one shared `_migrations` table, so two packages can
 * migrate the same database without stepping on each other.
 *
 * Most migrations run once. A derived migration builds tables that are a rebuildable copy of other
 * data (search vectors) and whose shape depends on a setting known only at open, such as an
 * embedding dimension: it is recorded with the shape it built, and built again (after its `drop`)
 * whenever an open asks for another shape. Whoever owns the tables refills them.
 */
import type { Client, InStatement } from '@libsql/client';
import { MemoryError, isUniqueViolation } from '../errors.ts';

/** What derived migrations may depend on, given at open (e.g. `{ dimensions: 384 }`). */
export type MigrationSettings = Readonly<Record<string, string | number | boolean | undefined>>;

/** The tables a derived migration builds for some settings. */
export interface DerivedTables {
  /**
   * Names everything `statements` build (e.g. `F32_BLOB(384)`). It is recorded and compared at
   * every open: another shape rebuilds the tables, so change it whenever the statements change.
   */
  readonly shape: string;
  readonly statements: readonly string[];
}

export interface DerivedMigration {
  readonly name: string;
  /** The tables wanted with these settings, or undefined when the settings do not say (what is there stays). */
  readonly derive: (settings: MigrationSettings) => DerivedTables | undefined;
  /** Removes the tables in whatever shape they are (`DROP … IF EXISTS`), before they are built again. */
  readonly drop: readonly string[];
}

/** A migration: its statements, a named list of statements (the name is kept on record), or derived tables. */
export type Migration =
  readonly string[] | { readonly name: string; readonly statements: readonly string[] } | DerivedMigration;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS _migrations (
  namespace TEXT NOT NULL,
  id INTEGER NOT NULL CHECK (id >= 1),
  name TEXT,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (namespace, id)
)`;

const RECORD = 'INSERT INTO _migrations (namespace, id, name, applied_at) VALUES (?, ?, ?, ?)';

/**
 * A derived migration whose record keeps changing under it this many times gives up. Not measured:
 * it only bounds processes that keep opening the database with different settings.
 */
const DERIVED_TRIES = 3;

/**
 * Applies the migrations of `namespace` that are not recorded yet, in order, each in one write
 * batch together with its `_migrations` row. Idempotent, and safe when several processes open the
 * database at once: the record row is written FIRST in the batch, so a second process racing on
 * the same migration fails on the primary key before running any DDL, re-reads and moves on.
 *
 * Migration ids are positions (1-based) in the list: never edit or reorder a released one,
 * append a new one. A derived migration is the exception: its statements follow `settings`, and
 * the tables are rebuilt when the shape on record differs (see `DerivedMigration`). Its record is
 * `<name> (<shape>)`. Rebuilding it forgets the records of the derived migrations after it (an
 * index on the dropped table went with it), so they are built again when next wanted. One whose
 * `derive` gives nothing for these settings is skipped, and the migrations after it still apply:
 * no ordinary migration may touch derived tables.
 *
 * @example
 * await applyMigrations(client, 'api', [[`CREATE TABLE users (id TEXT PRIMARY KEY)`]]);
 * await applyMigrations(client, 'search', SEARCH_MIGRATIONS, undefined, { dimensions: 384 });
 */
export async function applyMigrations(
  client: Client,
  namespace: string,
  migrations: readonly Migration[],
  now: () => Date = () => new Date(),
  settings: MigrationSettings = {},
): Promise<{ applied: number[] }> {
  await client.execute(CREATE_TABLE);
  const applied: number[] = [];
  for (let index = 0; index < migrations.length; index++) {
    const id = index + 1;
    const migration = migrations[index]!;
    if ('derive' in migration) {
      const later = migrations.flatMap((m, i) => (i > index && 'derive' in m ? [i + 1] : []));
      if (await applyDerived(client, namespace, id, migration, settings, later, now)) applied.push(id);
      continue;
    }
    const statements = 'statements' in migration ? migration.statements : migration;
    const name = 'statements' in migration ? migration.name : null;
    if ((await recorded(client, namespace, id)) !== undefined) continue;
    try {
      await client.batch(
        [
          { sql: RECORD, args: [namespace, id, name, now().toISOString()] },
          ...statements.map((sql) => ({ sql, args: [] })),
        ],
        'write',
      );
      applied.push(id);
    } catch (error) {
      // Another process applied it between our check and our batch: that is success.
      if (isUniqueViolation(error) && (await recorded(client, namespace, id)) !== undefined) continue;
      throw failed(namespace, id, name, error);
    }
  }
  return { applied };
}

/** Builds (or rebuilds) derived tables unless the shape on record is the one wanted; true when it did. */
async function applyDerived(
  client: Client,
  namespace: string,
  id: number,
  migration: DerivedMigration,
  settings: MigrationSettings,
  later: number[],
  now: () => Date,
): Promise<boolean> {
  const wanted = migration.derive(settings);
  if (wanted === undefined) return false;
  const name = `${migration.name} (${wanted.shape})`;
  for (let tries = 0; tries < DERIVED_TRIES; tries++) {
    const found = await recorded(client, namespace, id);
    if (found === name) return false;
    const statements: InStatement[] = [
      // Replaces exactly the record just read: if another process rebuilt meanwhile, nothing is
      // deleted, the insert fails on the primary key and the batch runs no DDL.
      {
        sql: 'DELETE FROM _migrations WHERE namespace = ? AND id = ? AND name IS ?',
        args: [namespace, id, found ?? null],
      },
      { sql: RECORD, args: [namespace, id, name, now().toISOString()] },
      ...(later.length > 0
        ? [
            {
              sql: 'DELETE FROM _migrations WHERE namespace = ? AND id IN (SELECT value FROM json_each(?))',
              args: [namespace, JSON.stringify(later)],
            },
          ]
        : []),
      // Tables found with no record were made before they were recorded, in a shape nobody noted:
      // they are dropped too (they are a copy, and their owner refills them).
      ...[...migration.drop, ...wanted.statements].map((sql) => ({ sql, args: [] })),
    ];
    try {
      await client.batch(statements, 'write');
      return true;
    } catch (error) {
      if (!isUniqueViolation(error)) throw failed(namespace, id, name, error);
      // Another process recorded a shape first: read it again (it is most likely ours).
    }
  }
  throw failed(namespace, id, name, new Error('other processes keep rebuilding it with other settings'));
}

function failed(namespace: string, id: number, name: string | null, cause: unknown): MemoryError {
  return new MemoryError('integrity', `migration ${namespace} #${id}${name ? ` (${name})` : ''} failed`, {
    cause,
  });
}

/** The record of one migration: its name (null when unnamed), or undefined when not applied. */
async function recorded(client: Client, namespace: string, id: number): Promise<string | null | undefined> {
  const rs = await client.execute({
    sql: 'SELECT name FROM _migrations WHERE namespace = ? AND id = ?',
    args: [namespace, id],
  });
  const row = rs.rows[0];
  return row === undefined ? undefined : typeof row.name === 'string' ? row.name : null;
}
