/**
 * The purge worker's whole surface (SPEC §8). It can only:
 *   1. purge sessions that are past their expiry or forgotten: FIRST mark them `purged` (from that
 *      instant the log trigger refuses any late write, whatever the API's clock says), THEN delete
 *      their content in small chunks so agent writes on other sessions interleave;
 *   2. mark `empty` the sessions stuck in `opening` for more than 10 minutes.
 * Nothing here inserts a session or moves one back to open, and the schema's triggers would
 * refuse it anyway.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Client } from '@libsql/client';
import { deleteChunkStatement, sessionContentTables } from './content.ts';
import { num, str } from './context.ts';
import { checkpointWal, openDatabase } from './db.ts';
import { MemoryError, toMemoryError } from './errors.ts';
import { MEMORY_MIGRATIONS, MEMORY_NAMESPACE } from './memory-schema.ts';
import { applyMigrations } from './migrations.ts';
import type { PurgeReport, Purger } from './types.ts';

export interface PurgerOptions {
  url: string;
  authToken?: string;
  /** The worker's own credential (PURGE_KEY); at least 16 characters. */
  purgeKey: string;
  now?: () => Date;
}

export const PURGE_KEY_MIN_CHARS = 16;
export const STUCK_OPENING_MS = 10 * 60 * 1000;
const DEFAULT_CHUNK = 500;

/**
 * Opens the purge worker. The first worker to open a database registers sha256(purgeKey);
 * afterwards only that key opens it (`unauthenticated` otherwise).
 *
 * @example
 * const purger = await openPurger({ url: 'file:./data/memory.db', purgeKey: process.env.PURGE_KEY! });
 * const report = await purger.purgeOnce({ chunkSize: 500 });
 */
export async function openPurger(options: PurgerOptions): Promise<Purger> {
  if (typeof options.purgeKey !== 'string' || options.purgeKey.length < PURGE_KEY_MIN_CHARS) {
    throw new MemoryError('unauthenticated', `the purge key must be at least ${PURGE_KEY_MIN_CHARS} characters`);
  }
  const now = options.now ?? (() => new Date());
  let client: Client;
  try {
    client = await openDatabase({ url: options.url, authToken: options.authToken });
  } catch (error) {
    throw toMemoryError(error, 'opening the memory database');
  }
  try {
    await applyMigrations(client, MEMORY_NAMESPACE, MEMORY_MIGRATIONS, now);
    await checkCredential(client, options.purgeKey, now);
  } catch (error) {
    client.close();
    throw toMemoryError(error, 'opening the purge worker');
  }

  let running: Promise<PurgeReport> | null = null;
  let closed = false;
  const purger: Purger = {
    purgeOnce(opts = {}) {
      if (closed) return Promise.reject(new MemoryError('integrity', 'the purge worker is closed'));
      // One pass at a time per worker; overlapping interval ticks share the running pass.
      running ??= purgePass(client, options.url, now, opts.chunkSize ?? DEFAULT_CHUNK).finally(() => {
        running = null;
      });
      return running;
    },
    close() {
      if (closed) return;
      closed = true;
      client.close();
    },
  };
  return Object.freeze(purger);
}

async function checkCredential(client: Client, purgeKey: string, now: () => Date): Promise<void> {
  const hash = createHash('sha256').update(purgeKey, 'utf8').digest();
  // Registers on first use; a concurrent first use by another worker keeps whichever came first.
  await client.execute({
    sql: 'INSERT INTO purge_credential (id, key_hash, registered_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING',
    args: [hash.toString('hex'), now().toISOString()],
  });
  const rs = await client.execute('SELECT key_hash FROM purge_credential WHERE id = 1');
  const stored = Buffer.from(str(rs.rows[0]?.key_hash), 'hex');
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) {
    throw new MemoryError('unauthenticated', 'the purge key does not match the credential registered for this memory database');
  }
}

/** One purge pass over a client (exported for tests; the worker's surface is `openPurger`). */
export async function purgePass(client: Client, url: string, now: () => Date, chunkSize: number): Promise<PurgeReport> {
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > 100_000) {
    throw new MemoryError('invalid_input', 'chunkSize is a whole number from 1 to 100,000');
  }
  try {
    const at = now().toISOString();

    // (1a) Close first, in one statement: from here on the log trigger refuses writes.
    const marked = await client.execute({
      sql: `UPDATE sessions SET state = 'purged', purged_at = ?, note_count = 0, content_cleared = 0
             WHERE (state = 'open' AND expires_at <= ?) OR state = 'forgotten'
             RETURNING id`,
      args: [at, at],
    });
    const purgedSessions = marked.rows.length;

    // (1b) Then delete content, chunk by chunk. This also finishes sessions a crashed pass left.
    let deletedRows = 0;
    const pending = await client.execute(`SELECT id FROM sessions WHERE state = 'purged' AND content_cleared = 0`);
    if (pending.rows.length > 0) {
      const tables = await sessionContentTables(client);
      for (const row of pending.rows) {
        const sessionId = str(row.id);
        for (const table of tables) {
          for (;;) {
            const rs = await client.execute(deleteChunkStatement(table, sessionId, chunkSize));
            deletedRows += rs.rowsAffected;
            if (rs.rowsAffected < chunkSize) break;
          }
        }
        await client.execute({ sql: `UPDATE sessions SET content_cleared = 1 WHERE id = ? AND state = 'purged'`, args: [sessionId] });
      }
    }

    // (2) Sessions that never finished opening.
    const stuckBefore = new Date(now().getTime() - STUCK_OPENING_MS).toISOString();
    const emptied = await client.execute({
      sql: `UPDATE sessions SET state = 'empty' WHERE state = 'opening' AND started_at < ? RETURNING id`,
      args: [stuckBefore],
    });

    if (deletedRows > 0 || purgedSessions > 0) await checkpointWal(client, url);
    return { purgedSessions, deletedRows, emptiedSessions: num(emptied.rows.length) };
  } catch (error) {
    throw toMemoryError(error, 'purge');
  }
}
