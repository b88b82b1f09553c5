/**
 * The owner's view of working memory (SPEC §6, §7): the Memory panel and Forget now.
 * Only the document's owner, signed in as a person, ever sees this; anyone else — also someone
 * the document is shared with or published to, and the owner's API keys — gets NOT_FOUND or
 * FORBIDDEN without learning whether the session exists.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import type { JsonValue, Link, NoteView, RecallRecord, ReviewedRecord, SessionState } from '@oh/memory';
import { liveTitles } from '@sponge/library';
import { userNames } from '../data/users.ts';
import { requireOwnedDocument } from '../access.ts';
import { notFound } from '../errors.ts';
import { liveNotifier, sessionKey } from '../live/notifier.ts';
import { ownerProcedure } from '../trpc.ts';
import { toSessionView } from '../views.ts';
import type { AppDeps } from '../deps.ts';

/** Why two panel rows conflict. Conflicts are shown, never resolved away. */
export interface PanelConflict {
  source: 'note' | 'reviewed';
  name: string;
  /**
   * - `different_content`: a note and a reviewed record share a name with different digests;
   * - `contradicts`: one row has a contradicts link to the other;
   * - `corrected` / `retracted`: the reviewed record `name` — a correction, or a publication
   *   marked retracted (then possibly this very row) — corrects or retracts this record, or, with
   *   `via`, the record this one depends on;
   * - `corrects`: this row is a correction of the reviewed record `name`.
   */
  reason: 'different_content' | 'contradicts' | 'corrected' | 'retracted' | 'corrects';
  /** The record corrected or retracted, when the mark reaches this row through its links. */
  via?: string;
}

/** The store's note view plus the conflicts the panel marks (derived, so the two never drift). */
export interface WorkingNoteRow extends NoteView {
  conflicts: PanelConflict[];
}

export interface ReviewedRow {
  kind: string;
  name: string;
  digest: string;
  text: string;
  data: JsonValue | null;
  links: Link[];
  revision: number;
  /** The library document the cited passage comes from (title null if it is gone). */
  source: { documentId: string; title: string | null };
  passage: string;
  reviewerId: string;
  /** The reviewer's name, for "reviewed by … · rev N" (null if the user is gone). */
  reviewerName: string | null;
  /** Only accepted reviews make a revision, so every record in view was accepted. */
  decision: 'accept';
  comment: string;
  createdAt: string;
  conflicts: PanelConflict[];
}

type Row = {
  source: 'note' | 'reviewed';
  name: string;
  digest: string;
  links: Link[];
  conflicts: PanelConflict[];
};

function addConflict(row: Row, c: PanelConflict): void {
  if (
    !row.conflicts.some(
      (x) => x.source === c.source && x.name === c.name && x.reason === c.reason && x.via === c.via,
    )
  )
    row.conflicts.push(c);
}

type Mark = NonNullable<ReviewedRecord['marks']>[number];

/** A correction or retraction mark (reviewed/marks.ts) on a record in view, as the panel shows it. */
function markConflict(name: string, mark: Mark): PanelConflict {
  if (mark.reason === 'corrects') return { source: 'reviewed', name: mark.target, reason: 'corrects' };
  return {
    source: 'reviewed',
    name: mark.by,
    reason: mark.reason,
    ...(mark.target === name ? {} : { via: mark.target }),
  };
}

/**
 * Marks conflicts on both rows: a note and a reviewed record with the same name and different
 * digests, and every `contradicts` link between two rows in view. (Corrections and retractions
 * come marked on the reviewed records by the store.)
 */
export function markConflicts(notes: Row[], reviewed: Row[]): void {
  const reviewedByName = new Map(reviewed.map((r) => [r.name, r]));
  const notesByName = new Map(notes.map((n) => [n.name, n]));
  for (const n of notes) {
    const r = reviewedByName.get(n.name);
    if (r && r.digest !== n.digest) {
      addConflict(n, { source: 'reviewed', name: r.name, reason: 'different_content' });
      addConflict(r, { source: 'note', name: n.name, reason: 'different_content' });
    }
  }
  for (const from of [...notes, ...reviewed]) {
    for (const link of from.links) {
      if (link.rel !== 'contradicts') continue;
      // A note's link resolves to the note first, then the reviewed record (as `read` does);
      // a reviewed record's link can only reach reviewed records.
      const target =
        (from.source === 'note' ? notesByName.get(link.to) : undefined) ?? reviewedByName.get(link.to);
      if (!target || target === from) continue;
      addConflict(from, { source: target.source, name: target.name, reason: 'contradicts' });
      addConflict(target, { source: from.source, name: from.name, reason: 'contradicts' });
    }
  }
}

/** The title of each record's source document while it stands (null once removed or gone). */
async function sourceTitles(deps: AppDeps, records: ReviewedRecord[]): Promise<Map<string, string | null>> {
  const ids = new Set(records.map((r) => r.sourceDocumentId));
  const titles = await liveTitles(deps.app, ids);
  return new Map([...ids].map((id) => [id, titles.get(id) ?? null]));
}

function noteRow(n: NoteView): WorkingNoteRow {
  return {
    kind: n.kind,
    name: n.name,
    digest: n.digest,
    text: n.text,
    data: n.data,
    links: n.links,
    author: n.author,
    createdAt: n.createdAt,
    updatedAt: n.updatedAt,
    version: n.version,
    conflicts: [],
  };
}

function reviewedRow(
  r: ReviewedRecord,
  titles: Map<string, string | null>,
  names: Map<string, string>,
): ReviewedRow {
  return {
    kind: r.kind,
    name: r.name,
    digest: r.digest,
    text: r.text,
    data: r.data,
    links: r.links,
    revision: r.revision,
    source: { documentId: r.sourceDocumentId, title: titles.get(r.sourceDocumentId) ?? null },
    passage: r.passage,
    reviewerId: r.reviewerId,
    reviewerName: names.get(r.reviewerId) ?? null,
    decision: 'accept',
    comment: r.comment,
    createdAt: r.createdAt,
    // A corrected record stays as accepted; what corrects or retracts it is marked here.
    conflicts: (r.marks ?? []).map((m) => markConflict(r.name, m)),
  };
}

const CLOSED_FOR_GOOD: ReadonlySet<SessionState> = new Set(['forgotten', 'purged', 'empty']);

export const memoryRouter = {
  /**
   * One session of the document (the newest without `sessionId`): its state and times, the
   * working notes with content, the reviewed knowledge in view, and the document's sessions.
   * With no session yet, the reviewed knowledge a new session would see is shown.
   */
  panel: ownerProcedure.input(ownerInputs['memory.panel']).query(async ({ ctx, input }) => {
    const { deps } = ctx;
    await requireOwnedDocument(deps, ctx.user.id, input.documentId);
    const sessions = await deps.store.listSessions(input.documentId);
    const chosen =
      input.sessionId === undefined ? sessions[0] : sessions.find((s) => s.id === input.sessionId);
    if (input.sessionId !== undefined && !chosen) throw notFound('The session');
    let notes: NoteView[] = [];
    let reviewed: ReviewedRecord[];
    let recalls: RecallRecord[] = [];
    if (chosen) {
      [notes, reviewed, recalls] = await Promise.all([
        deps.store.notes(chosen.id),
        deps.store.reviewedInView(chosen.id),
        deps.store.recentRecalls(chosen.id, 10),
      ]);
    } else {
      const latest = await deps.reviewed.latestRevision(input.documentId);
      reviewed = latest > 0 ? await deps.reviewed.recordsAt(input.documentId, latest) : [];
    }
    const [titles, names] = await Promise.all([
      sourceTitles(deps, reviewed),
      userNames(
        deps.app,
        reviewed.map((r) => r.reviewerId),
      ),
    ]);
    const workingNotes = notes.map(noteRow);
    const reviewedInView = reviewed.map((r) => reviewedRow(r, titles, names));
    // Wrappers share each row's `conflicts` array, so marking fills the rows themselves.
    markConflicts(
      workingNotes.map((n) => ({
        source: 'note' as const,
        name: n.name,
        digest: n.digest,
        links: n.links,
        conflicts: n.conflicts,
      })),
      reviewedInView.map((r) => ({
        source: 'reviewed' as const,
        name: r.name,
        digest: r.digest,
        links: r.links,
        conflicts: r.conflicts,
      })),
    );
    return {
      session: chosen ? toSessionView(chosen) : null,
      sessions: sessions.map(toSessionView),
      workingNotes,
      reviewedInView,
      /** The session's recent recalls (shadow: never shown to the agent): names, digests, scores — no query text. */
      recentRecalls: recalls.map((r) => ({
        at: r.at,
        mode: r.mode,
        results: r.results.map((h) => ({ name: h.name, digest: h.digest, score: h.score })),
      })),
    };
  }),

  /** Forget now: notes, log and vectors go at once; a tombstone stays. Idempotent. */
  forget: ownerProcedure.input(ownerInputs['memory.forget']).mutation(async ({ ctx, input }) => {
    const { deps } = ctx;
    const s = await deps.store.getSession(input.sessionId);
    if (!s || s.ownerId !== ctx.user.id) throw notFound('The session');
    await requireOwnedDocument(deps, ctx.user.id, s.documentId).catch(() => {
      throw notFound('The session');
    });
    if (CLOSED_FOR_GOOD.has(s.state)) return { sessionId: s.id, state: s.state };
    const after = await deps.store.forget(s.id);
    // The run's `chat.events` streams replace its memory cards with the forgotten card now.
    liveNotifier(deps.app).notify(sessionKey(s.id));
    return { sessionId: after.id, state: after.state };
  }),

  /** The document's sessions, newest first. */
  sessions: ownerProcedure.input(ownerInputs['memory.sessions']).query(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    return (await ctx.deps.store.listSessions(input.documentId)).map(toSessionView);
  }),
} satisfies TRPCRouterRecord;
