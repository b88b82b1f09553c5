/**
 * The raw @libsql/client baseline: the same driver, the same file settings as the store's
 * embedded connection (WAL, the given `synchronous`, busy timeout, foreign keys, secure_delete,
 * a 64 MiB page cache, one connection: @oh/memory's EMBEDDED_PRAGMAS), and the least SQL that
 * could hold the same data.
 */
import { createClient } from '@libsql/client';
import type { Client, InStatement } from '@libsql/client';

export type Sync = 'FULL' | 'NORMAL';

export async function openRaw(path: string, sync: Sync): Promise<Client> {
  const client = createClient({ url: `file:${path}`, concurrency: 1 });
  for (const pragma of [
    'PRAGMA journal_mode = WAL',
    `PRAGMA synchronous = ${sync}`,
    'PRAGMA busy_timeout = 10000',
    'PRAGMA foreign_keys = ON',
    'PRAGMA secure_delete = ON',
    'PRAGMA cache_size = -65536',
  ]) {
    await client.execute(pragma);
  }
  await client.execute(`CREATE TABLE IF NOT EXISTS notes (
    session_id TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, text TEXT NOT NULL,
    data TEXT, digest TEXT NOT NULL, PRIMARY KEY (session_id, name))`);
  await client.execute('CREATE INDEX IF NOT EXISTS notes_version ON notes (session_id, version)');
  return client;
}

/** What a remembered note holds, as one raw row. */
function rawRow(session: string, name: string, version: number, text: string): InStatement {
  return {
    sql: 'INSERT INTO notes (session_id, name, version, text, data, digest) VALUES (?, ?, ?, ?, ?, ?)',
    args: [session, name, version, text, '{"n":1}', 'f'.repeat(64)],
  };
}

/** The raw store's whole "remember": one write batch of n rows. */
export async function rawBatch(
  client: Client,
  session: string,
  first: number,
  n: number,
  text: string,
): Promise<void> {
  const stmts: InStatement[] = [];
  for (let k = 0; k < n; k++) stmts.push(rawRow(session, `lead:n${first + k}`, first + k, text));
  await client.batch(stmts, 'write');
}
