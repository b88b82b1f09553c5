/**
 * `chat.events` (SPEC §7c): a run's transcript live, for its owner. The items so far, then each
 * item as it is committed, every one `tracked` with the stream's position after it
 * (transcript-events.ts), so a reconnect with `lastEventId` resumes with nothing lost or sent
 * twice. Woken by the commits of this process (notifier.ts), it reads the database again every
 * {@link EVENTS_REREAD_MS} for another process's; its place among the open streams is counted in
 * the database (stream-places.ts).
 */
import { tracked } from '@trpc/server';
import type { AppDeps } from '../deps.ts';
import { ApiError, invalidInput } from '../errors.ts';
import { requireOwnedRun } from './access.ts';
import { liveNotifier, runKey, sessionKey } from './notifier.ts';
import type { Run } from './runs.ts';
import { takeStreamPlace } from './stream-places.ts';
import type { StreamPlace } from './stream-places.ts';
import { readTranscript } from './transcript.ts';
import type { TranscriptPosition } from './transcript.ts';
import { eventsAfter, parseCursor, START } from './transcript-events.ts';
import type { Cursor } from './transcript-events.ts';

/**
 * How long a `chat.events` stream waits for a wake-up before it reads the transcript again: a
 * commit in another API process (or the purge worker) reaches its clients within this.
 */
export const EVENTS_REREAD_MS = 2_000;

/**
 * The stream of `chat.events` after `cursor`, until the client goes (`signal`) or the run is no
 * longer the owner's to read (its document removed or changed hands): then it ends. The first
 * read is whole; every later one reads only what was committed since (readTranscript), and
 * renews the stream's place (stream-places.ts).
 */
async function* runEvents(
  deps: AppDeps,
  userId: string,
  opened: Run,
  from: Cursor,
  place: StreamPlace,
  signal?: AbortSignal,
) {
  let run = opened;
  let cursor = from;
  let position: TranscriptPosition | undefined;
  const live = liveNotifier(deps.app);
  const keys = [runKey(run.id), ...(run.sessionId === null ? [] : [sessionKey(run.sessionId)])];
  try {
    for (let first = true; !signal?.aborted; first = false) {
      const seen = live.version(keys);
      if (!first) {
        try {
          run = await requireOwnedRun(deps, userId, run.id);
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'not_found') return;
          throw err;
        }
        await place.renew();
      }
      const read = await readTranscript(deps, run, position);
      position = read.position;
      for (const event of eventsAfter(read.sources, cursor)) {
        cursor = event.cursor;
        yield tracked(event.id, event.item);
      }
      // Woken by a commit in this process, else after a while for another process's.
      await live.wait(keys, seen, EVENTS_REREAD_MS, signal);
    }
  } finally {
    await place.release();
  }
}

/**
 * Opens the owner's stream of a run's transcript, after `lastEventId` when a reconnect sends it.
 * Refused before it opens, as the transcript's query is: NOT_FOUND for anyone else's run, and
 * TOO_MANY_REQUESTS `busy` past the cap on open streams.
 */
export async function openTranscriptEvents(
  deps: AppDeps,
  ownerId: string,
  input: { runId: string; lastEventId?: string | undefined },
  signal?: AbortSignal,
) {
  const run = await requireOwnedRun(deps, ownerId, input.runId);
  let cursor = START;
  if (input.lastEventId !== undefined) {
    const parsed = parseCursor(input.lastEventId);
    if (!parsed) throw invalidInput('lastEventId: not an event id of this stream.');
    cursor = parsed;
  }
  const place = await takeStreamPlace(deps, { ownerId, runId: run.id });
  // Let go when the client goes, even if the stream never started reading.
  if (signal?.aborted) void place.release();
  else signal?.addEventListener('abort', () => void place.release(), { once: true });
  return runEvents(deps, ownerId, run, cursor, place, signal);
}
