/**
 * The run transcript: the messages, and a memory card for every remember or recall the agent
 * made, read whole (`chat.transcript`) or live (`chat.events`, SPEC §7c).
 */
import { TRPCError, tracked } from '@trpc/server';
import type { TRPCRouterRecord } from '@trpc/server';
import { chatEventsInputSchema, ownerInputs } from '@sponge/contract';
import type { Citation, TranscriptItem } from '@sponge/contract';
import type { LogEntry } from '@oh/memory';
import { liveTitles } from '@sponge/library';
import { listLibraryEvents, listMessagesWithCitations } from '../data/research.ts';
import type { LibraryEvent, MessageWithCitations, StoredCitation } from '../data/research.ts';
import { insertMessage, listRecallEvents } from '../data/runs.ts';
import type { Run } from '../data/runs.ts';
import { requireOwnedRun } from '../access.ts';
import { acceptRun } from '../accept-run.ts';
import { nameAt } from '../citations.ts';
import type { AppDeps } from '../deps.ts';
import { invalidInput, notFound } from '../errors.ts';
import { liveNotifier, PENDING, runKey, sessionKey } from '../live/notifier.ts';
import { takeStreamPlace } from '../live/stream-places.ts';
import type { StreamPlace } from '../live/stream-places.ts';
import { eventsAfter, mergeTranscript, parseCursor, SOURCES, START } from '../live/transcript-events.ts';
import type { Cursor, Source, TranscriptSources } from '../live/transcript-events.ts';
import { ownerProcedure } from '../trpc.ts';

/**
 * A stored citation as the owner reads it: a passage with its document's title while that is
 * still one of the owner's own live documents (its quote is gone once the document is removed);
 * a working note with its name while the session's log still holds it.
 */
function citationView(
  c: StoredCitation,
  titles: ReadonlyMap<string, string>,
  log: readonly LogEntry[],
): Citation {
  if (c.kind === 'note') {
    const note = c.logRef ? nameAt(log, c.logRef) : undefined;
    return { ...(note === undefined ? {} : { note }), status: c.status };
  }
  const title = titles.get(c.documentId);
  return {
    documentId: c.documentId,
    ...(title === undefined ? {} : { title }),
    page: c.page,
    ...(c.quote === null ? {} : { quote: c.quote }),
    status: c.status,
  };
}

function messageItem(
  m: MessageWithCitations,
  titles: ReadonlyMap<string, string>,
  log: readonly LogEntry[],
): TranscriptItem {
  const item: TranscriptItem = { type: 'message', role: m.role, text: m.text, at: m.at };
  return m.citations.length === 0
    ? item
    : { ...item, citations: m.citations.map((c) => citationView(c, titles, log)) };
}

/** "Searched the library for …", "Read p. 4 of …": the title read now, none once removed. */
function libraryItem(e: LibraryEvent, titles: ReadonlyMap<string, string>): TranscriptItem {
  const title = e.documentId === undefined ? undefined : titles.get(e.documentId);
  const named = title === undefined ? {} : { title };
  return e.action === 'searched'
    ? {
        type: 'library',
        action: 'searched',
        query: e.query,
        count: e.count,
        ...(e.documentId === undefined ? {} : { documentId: e.documentId }),
        ...named,
        at: e.at,
      }
    : {
        type: 'library',
        action: 'read',
        documentId: e.documentId,
        ...named,
        page: e.page,
        start: e.start,
        end: e.end,
        at: e.at,
      };
}

/**
 * How long a `chat.events` stream waits for a wake-up before it reads the transcript again: a
 * commit in another API process (or the purge worker) reaches its clients within this.
 */
export const EVENTS_REREAD_MS = 2_000;

/**
 * Where a reader of the transcript stands after a read: the key of the last item of each list it
 * read (the row id of a message, recall or library card; the log version of a remember card),
 * and how many items of each list it has read. The next read asks for what was committed after
 * those keys only: each list is append-only and its keys grow in commit order.
 */
export interface TranscriptPosition {
  keys: Record<Source, number>;
  counts: Record<Source, number>;
}

const NOTHING: Record<Source, number> = { m: 0, w: 0, r: 0, l: 0 };

/**
 * The run's transcript as its append-only lists (live/transcript-events.ts): the messages (an agent
 * reply with its citations), a memory card for every remember or recall the agent made, and a
 * library card for every search and read. Remember cards are derived from the session's log each
 * time, so after Forget now (or the purge) their names are gone and one "forgotten" card stands
 * in for them and the recalls (a cited note loses its name the same way). Titles on citations and
 * library cards are read now: a document removed since, or no longer the owner's, has none.
 *
 * With `since` (a live view's earlier read), only the items committed after it, with its counts
 * as the lists' offsets: a few rows however long the transcript, when nothing is new.
 */
export async function readTranscript(
  deps: AppDeps,
  run: Run,
  since?: TranscriptPosition,
): Promise<{ sources: TranscriptSources<TranscriptItem>; position: TranscriptPosition }> {
  const after = since?.keys ?? NOTHING;
  const lists: TranscriptSources<TranscriptItem>['lists'] = { m: [], w: [], r: [], l: [] };
  const keys = { ...after };
  let forgotten: TranscriptItem | null = null;
  // Messages before the log: a version a message cites was committed before the message, so the
  // log read after it holds that version.
  const messages = await listMessagesWithCitations(deps.app, run.id, after.m);
  const library = await listLibraryEvents(deps.app, run.id, after.l);
  let log: LogEntry[] = [];
  if (run.sessionId !== null) {
    const s = await deps.store.getSession(run.sessionId);
    if (s && (s.state === 'forgotten' || s.state === 'purged')) {
      forgotten = {
        type: 'memory',
        action: 'remembered',
        count: 0,
        removed: 0,
        names: [],
        sessionId: s.id,
        at: s.forgottenAt ?? s.purgedAt ?? s.expiresAt,
        forgotten: true,
      };
    } else if (s) {
      const fresh = await deps.store.log(s.id, after.w > 0 ? { afterVersion: after.w } : undefined);
      // The older entries that new messages cite, one by one, to name their notes.
      const older = new Set(
        messages.flatMap((m) =>
          m.citations.flatMap((c) =>
            c.kind === 'note' && c.logRef && c.logRef.version <= after.w ? [c.logRef.version] : [],
          ),
        ),
      );
      const cited = await Promise.all(
        [...older].map((v) => deps.store.log(s.id, { afterVersion: v - 1, upToVersion: v })),
      );
      log = [...cited.flat(), ...fresh];
      lists.w = fresh.map((e) => ({
        type: 'memory',
        action: 'remembered',
        count: e.applied.length,
        removed: e.applied.filter((a) => a.op === 'remove').length,
        names: e.applied.map((a) => a.name),
        sessionId: s.id,
        at: e.at,
        forgotten: false,
      }));
      keys.w = fresh.at(-1)?.version ?? after.w;
      // Recall events hold counts only (no names in the application database, see migrations).
      const recalls = await listRecallEvents(deps.app, run.id, after.r);
      lists.r = recalls.map((r) => ({
        type: 'memory',
        action: 'recalled',
        count: r.count,
        removed: 0,
        names: [],
        sessionId: s.id,
        at: r.at,
        forgotten: false,
      }));
      keys.r = recalls.at(-1)?.id ?? after.r;
    }
  }
  const titles = await liveTitles(
    deps.app,
    [
      ...messages.flatMap((m) => m.citations.flatMap((c) => (c.kind === 'passage' ? [c.documentId] : []))),
      ...library.flatMap((e) => (e.documentId === undefined ? [] : [e.documentId])),
    ],
    { ownerId: run.ownerId },
  );
  lists.m = messages.map((m) => messageItem(m, titles, log));
  lists.l = library.map((e) => libraryItem(e, titles));
  keys.m = messages.at(-1)?.id ?? after.m;
  keys.l = library.at(-1)?.id ?? after.l;
  const offsets = { ...(since?.counts ?? NOTHING) };
  const counts = { ...offsets };
  for (const source of SOURCES) counts[source] += lists[source].length;
  return { sources: { lists, offsets, forgotten }, position: { keys, counts } };
}

/**
 * The stream of `chat.events` after `cursor`, until the client goes (`signal`) or the run is no
 * longer the owner's to read (its document removed or changed hands): then it ends. The first
 * read is whole; every later one reads only what was committed since (readTranscript), and
 * renews the stream's place (live/stream-places.ts).
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
          if (err instanceof TRPCError && err.code === 'NOT_FOUND') return;
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

/** The owner's message is in: its run's streams show it, and the runtime's long poll has work. */
function ownerTurnCommitted(deps: AppDeps, runId: string): void {
  const live = liveNotifier(deps.app);
  live.notify(runKey(runId));
  live.notify(PENDING);
}

export const chatRouter = {
  /**
   * The owner asks in a document (SPEC §7): without `runId`, a new chat run (the same rules as
   * runs.accept) whose first turn is `text`; with the `runId` of a live chat run, another turn.
   * The hosted runtime answers; no token comes back.
   */
  ask: ownerProcedure.input(ownerInputs['chat.ask']).mutation(async ({ ctx, input }) => {
    const { deps } = ctx;
    let run;
    if (input.runId === undefined) {
      run = await acceptRun(deps, ctx.user.id, input.documentId, 'chat');
    } else {
      run = await requireOwnedRun(deps, ctx.user.id, input.runId);
      if (run.documentId !== input.documentId) throw notFound('The run');
      if (run.mode !== 'chat')
        throw invalidInput(
          'runId: a staged run takes no questions; leave runId out to ask in a new chat run.',
        );
      if (run.status !== 'live')
        throw invalidInput('runId: this run has finished; leave runId out to ask in a new chat run.');
    }
    await insertMessage(deps.app, run.id, { role: 'you', text: input.text, at: deps.now().toISOString() });
    ownerTurnCommitted(deps, run.id);
    return { runId: run.id, sessionId: run.sessionId };
  }),

  transcript: ownerProcedure
    .input(ownerInputs['chat.transcript'])
    .query(async ({ ctx, input }): Promise<TranscriptItem[]> => {
      const run = await requireOwnedRun(ctx.deps, ctx.user.id, input.runId);
      return mergeTranscript((await readTranscript(ctx.deps, run)).sources);
    }),

  /**
   * The transcript, live (SPEC §7c): the items so far, then each item as it is committed, every
   * one `tracked` with the stream's position after it (live/transcript-events.ts), so a
   * reconnect with `lastEventId` (or the `Last-Event-ID` header) resumes with nothing lost or
   * sent twice. The owner's, as `chat.transcript`: checked when it opens and again at every
   * read; once the run's document is removed or changes hands, the stream ends.
   */
  events: ownerProcedure.input(chatEventsInputSchema).subscription(async ({ ctx, input, signal }) => {
    // Refused before the stream opens, as the transcript's query is (and logged so).
    const run = await requireOwnedRun(ctx.deps, ctx.user.id, input.runId);
    let cursor = START;
    if (input.lastEventId !== undefined) {
      const parsed = parseCursor(input.lastEventId);
      if (!parsed) throw invalidInput('lastEventId: not an event id of this stream.');
      cursor = parsed;
    }
    // Past the cap on open streams: TOO_MANY_REQUESTS `busy`, before the stream opens.
    const place = await takeStreamPlace(ctx.deps, { ownerId: ctx.user.id, runId: run.id });
    // Let go when the client goes, even if the stream never started reading.
    if (signal?.aborted) void place.release();
    else signal?.addEventListener('abort', () => void place.release(), { once: true });
    return runEvents(ctx.deps, ctx.user.id, run, cursor, place, signal);
  }),

  /** The owner's message in the run transcript. */
  say: ownerProcedure.input(ownerInputs['chat.say']).mutation(async ({ ctx, input }) => {
    const run = await requireOwnedRun(ctx.deps, ctx.user.id, input.runId);
    const at = ctx.deps.now().toISOString();
    await insertMessage(ctx.deps.app, run.id, { role: 'you', text: input.text, at });
    ownerTurnCommitted(ctx.deps, run.id);
    return { at };
  }),
} satisfies TRPCRouterRecord;
