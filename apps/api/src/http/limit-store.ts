/**
 * Limits shared by every API process on one application database (migration 019, SPEC §6c): the
 * statements that count, each one atomic (a single upsert, or a batch run as one transaction), and
 * nothing a single SQLite file alone allows, so they hold on a libSQL server as well.
 *
 * - Windows (`limit_windows`): a count per key in a fixed window that starts with its first
 *   point; failed sign-ins and sign-ups (accounts/limits.ts).
 * - Buckets (`limit_buckets`): token buckets, `burst` at most, refilled one token every
 *   `refillMs`; /mcp per key and demo sign-ins per address (rate-limit.ts). A take hands out up
 *   to `want` tokens at once, so a process can serve several calls from one write.
 * - Upload places (`upload_places`): bodies being received, overall and per owner
 *   (http/upload-places.ts).
 *
 * Times are the caller's clock in epoch milliseconds. A row past its end means what no row
 * means (a fresh window, a full bucket, a free place), so every writer deletes a few such rows
 * as it goes, and the tables hold no more than the live windows.
 */
import type { Client, InStatement } from '@libsql/client';

/** Rows past their end deleted by each write: enough to outpace the rows that writes add. */
const SWEEP = 32;

function sweepStatement(table: 'limit_windows' | 'limit_buckets', column: string, nowMs: number) {
  return {
    sql: `DELETE FROM ${table} WHERE key IN (SELECT key FROM ${table} WHERE ${column} <= ? LIMIT ${SWEEP})`,
    args: [nowMs],
  };
}

export interface WindowCount {
  count: number;
  untilMs: number;
}

/**
 * One more point for `key` in its window (a new window when the last one ended). Answers the
 * count with this point and when the window ends.
 */
export async function takePoint(
  db: Client,
  key: string,
  nowMs: number,
  windowMs: number,
): Promise<WindowCount> {
  const [, rs] = await db.batch(
    [sweepStatement('limit_windows', 'until_ms', nowMs), pointStatement(key, nowMs, windowMs)],
    'write',
  );
  const row = rs?.rows[0];
  if (!row) throw new Error('the database answered an upsert with no row');
  return { count: Number(row.count), untilMs: Number(row.until_ms) };
}

function pointStatement(key: string, nowMs: number, windowMs: number): InStatement {
  return {
    sql: `INSERT INTO limit_windows (key, count, until_ms) VALUES (?1, 1, ?2 + ?3)
          ON CONFLICT (key) DO UPDATE SET
            count = CASE WHEN until_ms <= ?2 THEN 1 ELSE count + 1 END,
            next_ms = CASE WHEN until_ms <= ?2 THEN NULL ELSE next_ms END,
            turn_ms = NULL,
            until_ms = CASE WHEN until_ms <= ?2 THEN ?2 + ?3 ELSE until_ms END
          RETURNING count, until_ms`,
    args: [key, nowMs, windowMs],
  };
}

/** How sign-ins past an account's limit take turns (accounts/limits.ts). */
export interface TurnRules {
  /** Points in a window before attempts take turns. */
  limit: number;
  windowMs: number;
  /** The first turn past the limit, doubled with each point after it, up to `maxDelayMs`. */
  delayMs: number;
  maxDelayMs: number;
  /** A turn further ahead than this is not handed out (the attempt is refused). */
  queueMs: number;
}

export interface TurnPoint extends WindowCount {
  /** When the account's turns are free again (null while nobody waits). */
  nextMs: number | null;
  /** When this attempt may go ahead: past the limit with a turn; null within the limit, or refused. */
  turnMs: number | null;
}

/**
 * A sign-in attempt's points, in one transaction: a point for the client address (`addressKey`),
 * then, unless that spent the address's `addressLimit`, a point for the account with its turn.
 * Within `rules.limit` an attempt goes ahead at once; past it, each takes the next turn of the
 * account, `delay` after the one before (or after now), so attempts sent at once are checked one
 * by one and never faster than the turns allow; a turn further ahead than `queueMs` is refused.
 * Answers the address's count, and the account's (null when the address refused it).
 */
export async function takeSignInPoints(
  db: Client,
  keys: { address: string; account: string },
  nowMs: number,
  addressLimit: number,
  rules: TurnRules,
): Promise<{ address: WindowCount; account: TurnPoint | null }> {
  // Each expression reads the row as it was: `count + 1` is this attempt's count unless the
  // window ended (then this is its first point).
  const expired = 'until_ms <= ?2';
  const count = `(CASE WHEN ${expired} THEN 1 ELSE count + 1 END)`;
  const delay = `min(?6, ?5 * (1 << min(${count} - ?4 - 1, 30)))`;
  const free = `(CASE WHEN ${expired} OR next_ms IS NULL THEN ?2 ELSE max(?2, next_ms) END)`;
  const granted = `(${count} > ?4 AND ${free} - ?2 <= ?7)`;
  const account: InStatement = {
    sql: `INSERT INTO limit_windows (key, count, until_ms, next_ms, turn_ms)
          SELECT ?1, 1, ?2 + ?3, NULL, NULL WHERE (SELECT count FROM limit_windows WHERE key = ?8) <= ?9
          ON CONFLICT (key) DO UPDATE SET
            count = ${count},
            next_ms = CASE WHEN ${granted} THEN ${free} + ${delay}
                           WHEN ${expired} THEN NULL ELSE next_ms END,
            turn_ms = CASE WHEN ${granted} THEN ${free} + ${delay} ELSE NULL END,
            until_ms = CASE WHEN ${expired} THEN ?2 + ?3 ELSE until_ms END
          RETURNING count, until_ms, next_ms, turn_ms`,
    args: [
      keys.account,
      nowMs,
      rules.windowMs,
      rules.limit,
      rules.delayMs,
      rules.maxDelayMs,
      rules.queueMs,
      keys.address,
      addressLimit,
    ],
  };
  const [, addressRs, accountRs] = await db.batch(
    [
      sweepStatement('limit_windows', 'until_ms', nowMs),
      pointStatement(keys.address, nowMs, rules.windowMs),
      account,
    ],
    'write',
  );
  const a = addressRs?.rows[0];
  if (!a) throw new Error('the database answered an upsert with no row');
  const b = accountRs?.rows[0];
  const nullable = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    address: { count: Number(a.count), untilMs: Number(a.until_ms) },
    account: b
      ? {
          count: Number(b.count),
          untilMs: Number(b.until_ms),
          nextMs: nullable(b.next_ms),
          turnMs: nullable(b.turn_ms),
        }
      : null,
  };
}

/** After a sign-in that succeeded: the account's count starts again, the address gets its point back. */
export async function forgiveSignIn(db: Client, keys: { address: string; account: string }): Promise<void> {
  await db.batch(
    [
      { sql: 'DELETE FROM limit_windows WHERE key = ?', args: [keys.account] },
      {
        sql: 'UPDATE limit_windows SET count = count - 1 WHERE key = ? AND count > 0',
        args: [keys.address],
      },
    ],
    'write',
  );
}

export interface BucketRules {
  burst: number;
  refillMs: number;
}

/**
 * Takes up to `want` tokens of `key`'s bucket (all it has, if fewer), after giving back
 * `returned` tokens an earlier take handed out and nobody used. Answers how many were handed out
 * (0 when not even one was there) and what the bucket holds after it.
 */
export async function takeTokens(
  db: Client,
  key: string,
  nowMs: number,
  rules: BucketRules,
  want: number,
  returned: number,
): Promise<{ granted: number; tokens: number }> {
  const available = 'min(?3, tokens + max(0, ?2 - at_ms) * 1.0 / ?4 + ?6)';
  const granted = `(CASE WHEN ${available} >= 1 THEN min(?5, CAST(${available} AS INTEGER)) ELSE 0 END)`;
  const left = `(${available} - ${granted})`;
  const first = Math.min(want, Math.floor(rules.burst));
  const [, rs] = await db.batch(
    [
      sweepStatement('limit_buckets', 'full_ms', nowMs),
      {
        sql: `INSERT INTO limit_buckets (key, tokens, at_ms, full_ms, granted)
              VALUES (?1, ?3 - ?7, ?2, ?2 + CAST(?7 * ?4 AS INTEGER) + 1, ?7)
              ON CONFLICT (key) DO UPDATE SET
                granted = ${granted},
                tokens = ${left},
                full_ms = ?2 + CAST((?3 - ${left}) * ?4 AS INTEGER) + 1,
                at_ms = ?2
              RETURNING granted, tokens`,
        args: [key, nowMs, rules.burst, rules.refillMs, want, returned, first],
      },
    ],
    'write',
  );
  const row = rs?.rows[0];
  if (!row) throw new Error('the database answered an upsert with no row');
  return { granted: Number(row.granted), tokens: Number(row.tokens) };
}

/**
 * Takes an upload place for `ownerId` if fewer than `max` are taken in all and fewer than
 * `perOwner` by this owner (places past `untilMs` of a process that died are free again).
 * Answers whether it was taken, and the places taken in all and by the owner before it.
 */
export async function enterUploadPlace(
  db: Client,
  place: { id: string; ownerId: string; nowMs: number; untilMs: number },
  limits: { max: number; perOwner: number },
): Promise<{ entered: boolean; taken: number; takenByOwner: number }> {
  const [, counts, insert] = await db.batch(
    [
      { sql: 'DELETE FROM upload_places WHERE until_ms <= ?', args: [place.nowMs] },
      {
        sql: `SELECT (SELECT count(*) FROM upload_places) AS taken,
                     (SELECT count(*) FROM upload_places WHERE owner_id = ?) AS mine`,
        args: [place.ownerId],
      },
      {
        sql: `INSERT INTO upload_places (id, owner_id, until_ms)
              SELECT ?1, ?2, ?3
               WHERE (SELECT count(*) FROM upload_places) < ?4
                 AND (SELECT count(*) FROM upload_places WHERE owner_id = ?2) < ?5`,
        args: [place.id, place.ownerId, place.untilMs, limits.max, limits.perOwner],
      },
    ],
    'write',
  );
  const row = counts?.rows[0];
  return {
    entered: (insert?.rowsAffected ?? 0) === 1,
    taken: Number(row?.taken ?? 0),
    takenByOwner: Number(row?.mine ?? 0),
  };
}

export async function leaveUploadPlace(db: Client, id: string): Promise<void> {
  await db.execute({ sql: 'DELETE FROM upload_places WHERE id = ?', args: [id] });
}

/** Upload places taken now (in all, of every process). */
export async function uploadPlacesTaken(db: Client, nowMs: number): Promise<number> {
  const rs = await db.execute({
    sql: 'SELECT count(*) AS n FROM upload_places WHERE until_ms > ?',
    args: [nowMs],
  });
  return Number(rs.rows[0]?.n ?? 0);
}
