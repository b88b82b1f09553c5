/**
 * The recall tables in the memory database, migrated under their own namespace by the store's
 * migration runner. `recall_events` is ordinary data; `note_vectors` is a derived migration: the
 * vector column is sized by the embedding adapter, so another dimension rebuilds it (the vectors
 * are a rebuildable copy; `catchUp` refills them).
 */
import type { Client } from '@libsql/client';
import { applyMigrations } from '../db/index.ts';
import type { Migration } from '../db/index.ts';

export const NOTE_VECTORS_TABLE = 'note_vectors';
export const RECALL_EVENTS_TABLE = 'recall_events';
const RECALL_NAMESPACE = 'recall';

/** What the recall migrations are built for: the adapter's vector length. */
type RecallSchemaSettings = { dimensions: number };

/** Released migrations are never edited: add a new entry instead (derived ones rebuild by shape). */
const RECALL_MIGRATIONS: readonly Migration[] = [
  {
    // IF NOT EXISTS: databases indexed before recall was migrated already have these, unrecorded.
    name: '001_recall_events',
    statements: [
      `CREATE TABLE IF NOT EXISTS ${RECALL_EVENTS_TABLE} (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        at TEXT NOT NULL,
        query_digest TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('shadow', 'live')),
        model TEXT NOT NULL,
        results TEXT NOT NULL CHECK (json_valid(results))
      )`,
      `CREATE INDEX IF NOT EXISTS ${RECALL_EVENTS_TABLE}_by_session ON ${RECALL_EVENTS_TABLE} (session_id, id)`,
    ],
  },
  {
    name: '002_note_vectors',
    derive: ({ dimensions }) => {
      if (typeof dimensions !== 'number') return undefined;
      return {
        shape: `F32_BLOB(${dimensions})`,
        statements: [
          `CREATE TABLE ${NOTE_VECTORS_TABLE} (
            session_id TEXT NOT NULL,
            name TEXT NOT NULL,
            digest TEXT NOT NULL,
            model TEXT NOT NULL,
            embedding F32_BLOB(${dimensions}) NOT NULL,
            indexed_at TEXT NOT NULL,
            PRIMARY KEY (session_id, name)
          )`,
        ],
      };
    },
    drop: [`DROP TABLE IF EXISTS ${NOTE_VECTORS_TABLE}`],
  },
];

/**
 * Creates or rebuilds the recall tables for this adapter's dimension (idempotent; recorded in
 * `_migrations` under `recall`).
 *
 * @example
 * await applyRecallSchema(client, { dimensions: adapter.dimensions });
 */
export async function applyRecallSchema(
  client: Client,
  settings: RecallSchemaSettings,
  now?: () => Date,
): Promise<{ applied: number[] }> {
  if (!Number.isInteger(settings.dimensions) || settings.dimensions < 1) {
    // Interpolated into the DDL: only a positive integer may get there.
    throw new RangeError(
      `recall: the adapter's dimensions must be a positive integer, not ${String(settings.dimensions)}`,
    );
  }
  return applyMigrations(client, RECALL_NAMESPACE, RECALL_MIGRATIONS, now, settings);
}
