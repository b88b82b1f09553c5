/**
 * The cap on open `chat.events` streams (SPEC §7c; issue 37, point 9): each one holds a
 * connection and reads the database every 2 s (EVENTS_REREAD_MS), so one owner's token must not
 * open thousands. An open stream holds a place: a row of `live_streams` (migration 020) in the
 * application database, so every API process on it counts the same places (SPEC §6c). A place
 * has a lease that its stream's own periodic read renews, and is deleted when the stream closes;
 * a place whose lease ran out (its process gone without closing it) counts for nothing and is
 * deleted by the next stream its owner opens.
 *
 * Beyond {@link STREAMS_PER_RUN} on one run, or {@link STREAMS_PER_OWNER} of one owner, a stream
 * is refused before it opens: TOO_MANY_REQUESTS `busy`, with when to retry.
 *
 * @example
 * const place = await takeStreamPlace(deps, { ownerId, runId }); // or throws `busy`
 * await place.renew(); // on each read; writes only when the lease is due
 * await place.release(); // when the stream ends (again is harmless)
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.ts';
import type { AppDeps } from '../deps.ts';

/**
 * Streams one run may have open: its document page and Memory panel in a few tabs or windows.
 * A page follows one run, and the panel at most one more.
 */
const STREAMS_PER_RUN = 8;
/** Streams one owner may have open over all runs: several runs followed in several tabs. */
const STREAMS_PER_OWNER = 32;
/**
 * How long a place holds without its stream renewing it: long enough for a slow read or two
 * (a stream reads at least every 2 s), short enough that a crashed process's places come back
 * soon.
 */
const STREAM_LEASE_MS = 30_000;
/** A lease is renewed once this much of it has passed (one write every few reads, not each). */
const RENEW_AFTER_MS = 10_000;

export interface StreamPlace {
  /** Extends the lease when due; takes the place again (within the caps) if it was lost. */
  renew(): Promise<void>;
  /** Frees the place; only the first call does anything. */
  release(): Promise<void>;
}

function tooMany(which: 'run' | 'owner'): ApiError {
  const seconds = STREAM_LEASE_MS / 1000;
  return new ApiError({
    code: 'TOO_MANY_REQUESTS',
    reason: 'busy',
    retryAfterSeconds: seconds,
    message:
      which === 'run'
        ? `This run already has ${STREAMS_PER_RUN} live views open, the most one run may have: ` +
          `close one (another tab or window), or try again in ${seconds} s.`
        : `Your account already has ${STREAMS_PER_OWNER} live views open, the most one account may have: ` +
          `close some (other tabs or windows), or try again in ${seconds} s.`,
  });
}

/**
 * Takes a place for a stream of `runId` by `ownerId`, or throws TOO_MANY_REQUESTS `busy` naming
 * the cap that is full. One write transaction: the owner's lapsed places are deleted, then the
 * place is added only while both counts are under their caps, so two processes racing for the
 * last place cannot both get it.
 */
async function take(deps: AppDeps, id: string, ownerId: string, runId: string): Promise<void> {
  const nowMs = deps.now().getTime();
  const [, inserted, counts] = await deps.app.batch(
    [
      { sql: 'DELETE FROM live_streams WHERE owner_id = ? AND until_ms <= ?', args: [ownerId, nowMs] },
      {
        sql: `INSERT INTO live_streams (id, owner_id, run_id, until_ms)
              SELECT :id, :owner, :run, :until
               WHERE (SELECT COUNT(*) FROM live_streams WHERE run_id = :run AND until_ms > :now) < :perRun
                 AND (SELECT COUNT(*) FROM live_streams WHERE owner_id = :owner AND until_ms > :now) < :perOwner`,
        args: {
          id,
          owner: ownerId,
          run: runId,
          until: nowMs + STREAM_LEASE_MS,
          now: nowMs,
          perRun: STREAMS_PER_RUN,
          perOwner: STREAMS_PER_OWNER,
        },
      },
      {
        sql: 'SELECT COUNT(*) AS n FROM live_streams WHERE run_id = ? AND until_ms > ?',
        args: [runId, nowMs],
      },
    ],
    'write',
  );
  if (inserted?.rowsAffected === 1) return;
  throw tooMany(Number(counts?.rows[0]?.n ?? 0) >= STREAMS_PER_RUN ? 'run' : 'owner');
}

export async function takeStreamPlace(
  deps: AppDeps,
  stream: { ownerId: string; runId: string },
): Promise<StreamPlace> {
  const id = randomBytes(16).toString('base64url');
  await take(deps, id, stream.ownerId, stream.runId);
  let renewedMs = deps.now().getTime();
  let released: Promise<void> | undefined;
  return {
    async renew() {
      const nowMs = deps.now().getTime();
      if (released || nowMs - renewedMs < RENEW_AFTER_MS) return;
      const rs = await deps.app.execute({
        sql: 'UPDATE live_streams SET until_ms = ? WHERE id = ?',
        args: [nowMs + STREAM_LEASE_MS, id],
      });
      // Gone: the lease ran out (this process stalled) and another stream of the owner took its
      // row away. Taken again only if there is room; else the stream ends with `busy`.
      if (rs.rowsAffected === 0) await take(deps, id, stream.ownerId, stream.runId);
      renewedMs = nowMs;
    },
    release() {
      released ??= deps.app.execute({ sql: 'DELETE FROM live_streams WHERE id = ?', args: [id] }).then(
        () => undefined,
        (err: unknown) => {
          // The lease lets the place go on its own.
          deps.log.warn({ err }, 'a live stream place could not be released');
        },
      );
      return released;
    },
  };
}
