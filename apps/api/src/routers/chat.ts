/**
 * The run transcript: the messages, and a memory card for every remember or recall the agent
 * made, read whole (`chat.transcript`) or live (`chat.events`, SPEC §7c).
 */
import { TRPCError, tracked } from '@trpc/server';
import type { TRPCRouterRecord } from '@trpc/server';
import { chatEventsInputSchema, ownerInputs } from '@sponge/contract';
import type { Citation, TranscriptItem } from '@sponge/contract';
import type { LogEntry } from '@oh/memory';
import { listLibraryEvents, listMessagesWithCitations, ownTitles } from '../data/research.ts';
import type { LibraryEvent, MessageWithCitations, StoredCitation } from '../data/research.ts';
import { insertMessage, listRecallEvents } from '../data/runs.ts';
import type { Run } from '../data/runs.ts';
import { requireOwnedRun } from '../access.ts';
import { acceptRun } from '../accept-run.ts';
import type { AppDeps } from '../deps.ts';
import { invalidInput, notFound } from '../errors.ts';
import { liveNotifier, PENDING, runKey, sessionKey } from '../live/notifier.ts';
import { eventsAfter, mergeTranscript, parseCursor, START } from '../live/transcript-events.ts';
import type { Cursor, TranscriptSources } from '../live/transcript-events.ts';
import { nameAt } from '../library/citations.ts';
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
 * The run's transcript as its append-only lists (live/transcript-events.ts): the messages (an agent
 * reply with its citations), a memory card for every remember or recall the agent made, and a
 * library card for every search and read. Remember cards are derived from the session's log each
 * time, so after Forget now (or the purge) their names are gone and one "forgotten" card stands
 * in for them and the recalls (a cited note loses its name the same way). Titles on citations and
 * library cards are read now: a document removed since, or no longer the owner's, has none.
 */
export async function transcriptSources(deps: AppDeps, run: Run): Promise<TranscriptSources<TranscriptItem>> {
  const lists: TranscriptSources<TranscriptItem>['lists'] = { m: [], w: [], r: [], l: [] };
  let forgotten: TranscriptItem | null = null;
  const messages = await listMessagesWithCitations(deps.app, run.id);
  const library = await listLibraryEvents(deps.app, run.id);
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
      log = await deps.store.log(s.id);
      lists.w = log.map((e) => ({
        type: 'memory',
        action: 'remembered',
        count: e.applied.length,
        removed: e.applied.filter((a) => a.op === 'remove').length,
        names: e.applied.map((a) => a.name),
        sessionId: s.id,
        at: e.at,
        forgotten: false,
      }));
      // Recall events hold counts only (no names in the application database, see migrations).
      lists.r = (await listRecallEvents(deps.app, run.id)).map((r) => ({
        type: 'memory',
        action: 'recalled',
        count: r.count,
        removed: 0,
        names: [],
        sessionId: s.id,
        at: r.at,
        forgotten: false,
      }));
    }
  }
  const titles = await ownTitles(deps.app, run.ownerId, [
    ...messages.flatMap((m) => m.citations.flatMap((c) => (c.kind === 'passage' ? [c.documentId] : []))),
    ...library.flatMap((e) => (e.documentId === undefined ? [] : [e.documentId])),
  ]);
  lists.m = messages.map((m) => messageItem(m, titles, log));
  lists.l = library.map((e) => libraryItem(e, titles));
  return { lists, forgotten };
}

/**
 * The stream of `chat.events` after `cursor`, until the client goes (`signal`) or the run is no
 * longer the owner's to read (its document removed or changed hands): then it ends.
 */
async function* runEvents(deps: AppDeps, userId: string, opened: Run, from: Cursor, signal?: AbortSignal) {
  let run = opened;
  let cursor = from;
  const live = liveNotifier(deps.app);
  const keys = [runKey(run.id), ...(run.sessionId === null ? [] : [sessionKey(run.sessionId)])];
  for (let first = true; !signal?.aborted; first = false) {
    const seen = live.version(keys);
    if (!first) {
      try {
        run = await requireOwnedRun(deps, userId, run.id);
      } catch (err) {
        if (err instanceof TRPCError && err.code === 'NOT_FOUND') return;
        throw err;
      }
    }
    for (const event of eventsAfter(await transcriptSources(deps, run), cursor)) {
      cursor = event.cursor;
      yield tracked(event.id, event.item);
    }
    // Woken by a commit in this process, else after a while for another process's.
    await live.wait(keys, seen, EVENTS_REREAD_MS, signal);
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
      return mergeTranscript(await transcriptSources(ctx.deps, run));
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
    return runEvents(ctx.deps, ctx.user.id, run, cursor, signal);
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
