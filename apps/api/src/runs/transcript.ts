/**
 * A run's transcript as its owner reads it (SPEC §7, §7c): the messages (an agent reply with its
 * citations), a memory card for every remember or recall the agent made, and a library card for
 * every search and read, as the append-only lists the live view reads after a position
 * (transcript-events.ts). Remember cards are derived from the session's log at every read, so a
 * forgotten session's names are gone with it; a reply keeps none of them once its session is
 * closed (the places they were, kept when it was said, read "a forgotten note").
 */
import { forgetMentions } from '@sponge/contract';
import type { Citation, TranscriptItem } from '@sponge/contract';
import type { LogEntry, SessionState } from '@oh/memory';
import { liveTitles, nameAt } from '@sponge/library';
import type { StoredCitation } from '@sponge/library';
import type { AppDeps } from '../deps.ts';
import { requireOwnedRun } from './access.ts';
import { listLibraryEvents, listMessagesWithCitations } from './research.ts';
import type { LibraryEvent, MessageWithCitations } from './research.ts';
import { listRecallEvents } from './runs.ts';
import type { Run } from './runs.ts';
import { mergeTranscript, SOURCES } from './transcript-events.ts';
import type { Source, TranscriptSources } from './transcript-events.ts';

/** A session whose notes are gone or going: its run's replies name none of them any more. */
const CLOSED: ReadonlySet<SessionState> = new Set(['expired', 'forgotten', 'purged', 'empty']);

/**
 * A stored citation as the owner reads it: a passage with its document's title while that is
 * still one of the owner's own live documents (its quote is gone once the document is removed);
 * a working note with its name while the session is open and its log holds it.
 */
function citationView(
  c: StoredCitation,
  titles: ReadonlyMap<string, string>,
  log: readonly LogEntry[] | null,
): Citation {
  if (c.kind === 'note') {
    const note = c.logRef && log ? nameAt(log, c.logRef) : undefined;
    return { ...(note === undefined ? {} : { note }), status: c.status };
  }
  const title = titles.get(c.documentId);
  return {
    documentId: c.documentId,
    ...(title === undefined ? {} : { title }),
    page: c.page,
    ...(c.quote === null ? {} : { quote: c.quote }),
    status: c.status,
    support: c.support,
  };
}

/** A message; with no `log` (a closed session), its note names read "a forgotten note". */
function messageItem(
  m: MessageWithCitations,
  titles: ReadonlyMap<string, string>,
  log: readonly LogEntry[] | null,
): TranscriptItem {
  const text = log ? m.text : forgetMentions(m.text, m.noteSpans);
  const item: TranscriptItem = { type: 'message', role: m.role, text, at: m.at };
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
 * The run's transcript as its append-only lists (runs/transcript-events.ts): the messages (an agent
 * reply with its citations), a memory card for every remember or recall the agent made, and a
 * library card for every search and read. Remember cards are derived from the session's log each
 * time, so after Forget now (or the purge) their names are gone and one "forgotten" card stands
 * in for them and the recalls. Once the session is closed (expired too) a reply's note names read
 * "a forgotten note" and a cited note loses its name. Titles on citations and
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
  let closed = false;
  if (run.sessionId !== null) {
    const s = await deps.store.getSession(run.sessionId);
    closed = !s || CLOSED.has(s.state);
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
        mode: r.mode,
        ...(r.found === null ? {} : { found: r.found }),
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
  lists.m = messages.map((m) => messageItem(m, titles, closed ? null : log));
  lists.l = library.map((e) => libraryItem(e, titles));
  keys.m = messages.at(-1)?.id ?? after.m;
  keys.l = library.at(-1)?.id ?? after.l;
  const offsets = { ...(since?.counts ?? NOTHING) };
  const counts = { ...offsets };
  for (const source of SOURCES) counts[source] += lists[source].length;
  return { sources: { lists, offsets, forgotten }, position: { keys, counts } };
}

/** The owner's run's whole transcript, in order (NOT_FOUND for anyone else's run). */
export async function transcriptOf(deps: AppDeps, ownerId: string, runId: string): Promise<TranscriptItem[]> {
  const run = await requireOwnedRun(deps, ownerId, runId);
  return mergeTranscript((await readTranscript(deps, run)).sources);
}
