/**
 * The purge worker's whole surface (SPEC §8). It can only:
 *   1. purge sessions that are past their expiry or forgotten: FIRST mark them `purged` (from that
 *      instant the log trigger refuses any late write, whatever the API's clock says), THEN delete
 *      their content in short, paced write batches so agent writes on other sessions interleave;
 *   2. mark `empty` the sessions stuck in `opening` for more than 10 minutes.
 * Nothing here inserts a session or moves one back to open, and the schema's triggers would
 * refuse it anyway.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Client, InStatement } from '@libsql/client';
import { sessionContentTables } from './content.ts';
import { num, str } from './context.ts';
import { BUSY_TIMEOUT_MS, isEmbeddedUrl, isLockError } from './db/index.ts';
import { MemoryError, toMemoryError } from './errors.ts';
import { openMemoryDatabase } from './memory-schema.ts';
import { groupSizer, lockPacer, sleepUntil } from './purge-pacing.ts';
import type { PurgeReport, Purger } from './types.ts';

export interface PurgerOptions {
  url: string;
  authToken?: string;
  /** The worker's own credential (PURGE_KEY); at least 16 characters. */
  purgeKey: string;
  now?: () => Date;
}

const PURGE_KEY_MIN_CHARS = 16;
// A session still `opening` this long was left by a caller that stopped (docs/operations.md, "Purge").
// Not measured: shorter could mark an opening that is only slow `empty`; longer keeps a dead one.
const STUCK_OPENING_MS = 10 * 60 * 1000;
// A ceiling per batch for content the group sizing cannot see coming (a session of thousands of
// notes): groups are sized by time (see purgePass), and sessions of ordinary size fill the
// target hold well before they reach it. Raised from 500 with the other pacing changes of
// bench/README.md's notebook ("The purge"); not measured on its own.
const DEFAULT_CHUNK = 1000;

/**
 * Opens the purge worker. The first worker to open a database registers sha256(purgeKey);
 * afterwards only that key opens it (`unauthenticated` otherwise).
 *
 * @example
 * const purger = await openPurger({ url: 'file:./data/memory.db', purgeKey: process.env.PURGE_KEY! });
 * const report = await purger.purgeOnce({ chunkSize: 1000 });
 */
export async function openPurger(options: PurgerOptions): Promise<Purger> {
  if (typeof options.purgeKey !== 'string' || options.purgeKey.length < PURGE_KEY_MIN_CHARS) {
    throw new MemoryError(
      'unauthenticated',
      `the purge key must be at least ${PURGE_KEY_MIN_CHARS} characters`,
    );
  }
  const now = options.now ?? (() => new Date());
  const client = await openMemoryDatabase({ url: options.url, authToken: options.authToken }, now);
  try {
    await checkCredential(client, options.purgeKey, now);
    // The pass waits for the write lock itself, polling every millisecond (see whenUnlocked):
    // SQLite's own busy handler backs off to 100 ms sleeps and, against an agent committing
    // back to back, kept missing the gaps (a 1,000-session purge took 47 s that way).
    if (isEmbeddedUrl(options.url)) await client.execute('PRAGMA busy_timeout = 0');
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
    throw new MemoryError(
      'unauthenticated',
      'the purge key does not match the credential registered for this memory database',
    );
  }
}

/** How a pass paces itself (tests shorten the pause; production keeps the defaults). */
export interface PurgePacing {
  /** At most this many rows of EACH content table per write batch, whatever the group's size. */
  chunkSize: number;
  /** At most this many purged sessions per write batch (the group is sized below it, see targetHoldMs). */
  sessionsPerBatch?: number;
  /** How long a delete batch aims to hold the write lock: the group of sessions grows or shrinks to it. */
  targetHoldMs?: number;
  /** Sessions closed per statement. */
  closePerStatement?: number;
  /** Added to each pause, past a waiting writer's next try, for its sleep running late. */
  pauseSlackMs?: number;
}

// The largest delete group, whatever the timing says. Not measured on its own: at 10,000 sessions
// the groups sized to the target hold were 31 sessions at the median (bench/README.md, notebook,
// "The purge"), so it only bounds a batch of very cheap sessions.
const DEFAULT_SESSIONS_PER_BATCH = 200;
// Under 18 ms, where the busy handler's gap (so the pause) grows from 10 to 15 ms: a writer that
// queues behind a batch waits the hold and one gap, about 15 + 12 ms. bench/README.md, notebook,
// "The purge": a 10 ms target was 18 % slower at 10,000 sessions, with no better worst case.
const DEFAULT_TARGET_HOLD_MS = 15;
// bench/README.md, notebook, "The purge": 500 sessions closed per statement held the lock up to
// 256 ms under load.
const DEFAULT_CLOSE_PER_STATEMENT = 200;
// Not measured: how late a waiting writer's sleep may run on a busy CPU and still find the lock
// free; each millisecond more is a millisecond more per pause of the purge.
const DEFAULT_PAUSE_SLACK_MS = 2;

/**
 * One purge pass over a client (exported for tests; the worker's surface is `openPurger`).
 *
 * Pacing, so agents writing in the API process never wait long for the write lock: every write
 * here is one short batch (a slice of sessions closed, or the content of a group of purged
 * sessions deleted, at most `chunkSize` rows per table, in ONE commit rather than one per table
 * and session), and after each the lock stays free until a writer that queued behind it has
 * tried again (the pause rule is purge-pacing.ts's lockPacer; `pauseSlackMs` is its margin for
 * that writer's sleep running late). A delete group is sized so its batch holds the lock about
 * `targetHoldMs` (groupSizer): long enough that pauses are a minority of the time, short enough
 * that a queued writer waits a few tens of ms. Each write is followed by a PASSIVE checkpoint,
 * which never blocks writers, so neither this pass nor an agent's commit meets a large WAL; it
 * runs inside the pause (the lock is free meanwhile). The pass ends with one TRUNCATE checkpoint
 * of what is left, so deleted content does not linger in the -wal file.
 */
export async function purgePass(
  client: Client,
  url: string,
  now: () => Date,
  pacing: PurgePacing | number,
): Promise<PurgeReport> {
  const p = typeof pacing === 'number' ? { chunkSize: pacing } : pacing;
  const chunkSize = p.chunkSize;
  const maxGroup = p.sessionsPerBatch ?? DEFAULT_SESSIONS_PER_BATCH;
  const targetHoldMs = p.targetHoldMs ?? DEFAULT_TARGET_HOLD_MS;
  const closePerStatement = p.closePerStatement ?? DEFAULT_CLOSE_PER_STATEMENT;
  const pauseSlackMs = p.pauseSlackMs ?? DEFAULT_PAUSE_SLACK_MS;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > 100_000) {
    throw new MemoryError('invalid_input', 'chunkSize is a whole number from 1 to 100,000');
  }
  const embeddedFile = isEmbeddedUrl(url) && !url.includes(':memory:');
  const pacer = lockPacer(pauseSlackMs);
  // Changes when another connection commits; undefined when it could not be read.
  const dataVersion = () =>
    client.execute('PRAGMA data_version').then(
      (rs) => num(rs.rows[0]?.[0]),
      () => undefined,
    );
  const paced = async <T>(write: () => Promise<T>): Promise<{ value: T; heldMs: number }> => {
    const done = await whenUnlocked(write);
    const releasedAt = performance.now();
    const resumeAt = pacer.resumeAt(releasedAt - done.heldMs, releasedAt);
    // Only an embedded file has other processes waiting in a busy handler; a server queues them.
    if (!embeddedFile) {
      pacer.served();
      await sleepUntil(resumeAt);
      return done;
    }
    const before = await dataVersion();
    // A lock only makes this checkpoint partial; any other error is the database failing.
    await client.execute('PRAGMA wal_checkpoint(PASSIVE)').catch((error: unknown) => {
      if (!isLockError(error)) throw error;
    });
    await sleepUntil(resumeAt);
    const after = await dataVersion();
    if (before !== undefined && after !== undefined && after !== before) pacer.served();
    return done;
  };
  try {
    const at = now().toISOString();

    // (1) Close first: from a session's close on, the log trigger refuses any late write to it.
    // In slices, so no single statement holds the write lock for thousands of sessions.
    let purgedSessions = 0;
    for (;;) {
      const { value: marked } = await paced(() =>
        client.execute({
          sql: `UPDATE sessions SET state = 'purged', purged_at = ?, note_count = 0, content_cleared = 0
                 WHERE id IN (SELECT id FROM sessions WHERE state = 'open' AND expires_at <= ? LIMIT ?)
                    OR id IN (SELECT id FROM sessions WHERE state = 'forgotten' LIMIT ?)
                 RETURNING id`,
          args: [at, at, closePerStatement, closePerStatement],
        }),
      );
      purgedSessions += marked.rows.length;
      if (marked.rows.length === 0) break;
    }

    // (2) Then delete their content, a group of sessions per write batch. This also finishes
    // sessions a crashed pass left half deleted. Groups are sized by time, not by a count:
    // sessions differ in size and disks in speed.
    let deletedRows = 0;
    let tables: string[] | null = null;
    const groups = groupSizer(targetHoldMs, maxGroup);
    for (;;) {
      const group = groups.size();
      // A read can meet SQLITE_BUSY too (WAL recovery), and this connection has no busy handler.
      // INDEXED BY: left to itself the planner takes sessions_state_start and walks every purged
      // session, whose tombstones stay forever (1.5 ms at 9,000 of them, against 0.01 ms).
      const { value: pending } = await whenUnlocked(() =>
        client.execute({
          sql: `SELECT id FROM sessions INDEXED BY sessions_uncleared
                 WHERE state = 'purged' AND content_cleared = 0 LIMIT ?`,
          args: [group],
        }),
      );
      if (pending.rows.length === 0) break;
      tables ??= (await whenUnlocked(() => sessionContentTables(client))).value;
      const ids = JSON.stringify(pending.rows.map((r) => str(r.id)));
      const { value: results, heldMs } = await paced(() =>
        client.batch(deleteGroupStatements(tables!, ids, chunkSize), 'write'),
      );
      for (const rs of results.slice(0, tables.length)) deletedRows += rs.rowsAffected;
      // Only a full group says how long a bigger one would take.
      if (pending.rows.length === group) groups.observe(group, heldMs);
    }

    // (3) Sessions that never finished opening.
    const stuckBefore = new Date(now().getTime() - STUCK_OPENING_MS).toISOString();
    const { value: emptied } = await paced(() =>
      client.execute({
        sql: `UPDATE sessions SET state = 'empty' WHERE state = 'opening' AND started_at < ? RETURNING id`,
        args: [stuckBefore],
      }),
    );

    if ((deletedRows > 0 || purgedSessions > 0) && embeddedFile) await truncateWal(client);
    return { purgedSessions, deletedRows, emptiedSessions: num(emptied.rows.length) };
  } catch (error) {
    throw toMemoryError(error, 'purge');
  }
}

/**
 * One write batch over a group of purged sessions (`ids`, a JSON list): up to `chunkSize` rows of
 * each content table, then `content_cleared = 1` for those of the group with nothing left.
 */
function deleteGroupStatements(tables: string[], ids: string, chunkSize: number): InStatement[] {
  const inGroup = 'session_id IN (SELECT value FROM json_each(?))';
  return [
    ...tables.map((table) => ({
      sql: `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${inGroup} LIMIT ?)`,
      args: [ids, chunkSize],
    })),
    {
      // INDEXED BY: otherwise the same walk over every purged tombstone as the pending read in
      // purgePass, here with the lock held.
      sql: `UPDATE sessions INDEXED BY sessions_uncleared SET content_cleared = 1
             WHERE state = 'purged' AND content_cleared = 0 AND id IN (SELECT value FROM json_each(?))
               ${tables.map((t) => `AND NOT EXISTS (SELECT 1 FROM ${t} WHERE session_id = sessions.id)`).join('\n               ')}`,
      args: [ids],
    },
  ];
}

/** SQLITE_BUSY: another connection holds the write lock (or, for a checkpoint, a reader is in the way). */
/**
 * Runs one write as soon as the lock is free: retried every millisecond while another connection
 * holds it, for up to BUSY_TIMEOUT_MS. Returns how long the write itself took (lock held).
 */
async function whenUnlocked<T>(write: () => Promise<T>): Promise<{ value: T; heldMs: number }> {
  const giveUpAt = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    const t0 = performance.now();
    try {
      const value = await write();
      return { value, heldMs: performance.now() - t0 };
    } catch (error) {
      if (!isLockError(error) || performance.now() > giveUpAt) throw error;
    }
    await sleep(1);
  }
}

/**
 * Moves the WAL into the main file and truncates it, so deleted content does not linger in the
 * -wal file. TRUNCATE waits for the writer and for readers of older snapshots; retried like a
 * write, then left to the next pass (the data is deleted already, only old frames remain).
 */
async function truncateWal(client: Client): Promise<void> {
  const giveUpAt = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      const rs = await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
      if (num(rs.rows[0]?.[0]) === 0) return;
    } catch (error) {
      if (!isLockError(error)) throw error;
    }
    if (performance.now() > giveUpAt) return;
    await sleep(1);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
