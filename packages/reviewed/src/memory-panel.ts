/**
 * The owner's Memory panel (SPEC §6): one session of a document — its state and times, its working
 * notes with content, each with the newest review decision proposed from it, the reviewed knowledge
 * in view at the revision the session pinned beside the document's newest one, and the recalls it
 * computed — plus the document's sessions. The owner's alone: anyone else, and a session of another
 * document, is `not_found`, so the answer confirms nothing.
 */
import type { Client } from '@libsql/client';
import type {
  MemoryStore,
  NoteView,
  RecallRecord,
  ReviewedRecord,
  SessionInfo,
  SessionState,
} from '@oh/memory';
import { notFound } from './errors.ts';
import { requireOwnDocument } from './own-document.ts';
import { panelRows } from './panel.ts';
import type { WorkingNoteRow } from './panel.ts';
import type { ReviewedKnowledge } from './types.ts';

/** A session as the owner's views show it (SPEC §7 "Shapes the web app and outside tests rely on"). */
export interface SessionView {
  id: string;
  runId: string;
  state: SessionState;
  version: number;
  pinnedRevision: number;
  startedAt: string;
  /** When the session's notes are forgotten on their own (startedAt + TTL). */
  forgetsAt: string;
  forgottenAt: string | null;
  purgedAt: string | null;
  noteCount: number;
}

export function toSessionView(s: SessionInfo): SessionView {
  const { id, runId, state, version, pinnedRevision, startedAt, forgottenAt, purgedAt, noteCount } = s;
  return {
    id,
    runId,
    state,
    version,
    pinnedRevision,
    startedAt,
    forgetsAt: s.expiresAt,
    forgottenAt,
    purgedAt,
    noteCount,
  };
}

/** The newest decision proposed from a working note (`review.decide` with `fromSession`/`fromNote`). */
export interface NoteReview {
  decision: 'accept' | 'reject';
  kind: string;
  /** The reviewed record's name, which the note links to. */
  name: string;
  /** The revision an accept made; null for a reject. */
  revision: number | null;
  at: string;
}

/** A recall as the panel shows it, counted as the transcript's card counts it. */
export interface PanelRecall {
  at: string;
  mode: 'shadow' | 'live';
  /** Rows shown to the agent: none in shadow. */
  count: number;
  /** Similar notes the recall index found (the results below). */
  found: number;
  /** Names, digests and scores: never the query's text. */
  results: Array<{ name: string; digest: string; score: number }>;
}

/** What the panel reads from Oh's store. */
export type PanelStore = Pick<MemoryStore, 'listSessions' | 'notes' | 'reviewedInView' | 'recentRecalls'>;

/**
 * The newest decision proposed from each note of the session, by the note's name. `decideReview`
 * keeps `note:<sessionId>:<name>` on the main record's decision, after checking the note is one
 * of that session's, of the reviewer's own document.
 */
async function noteReviews(
  db: Client,
  documentId: string,
  sessionId: string,
): Promise<Map<string, NoteReview>> {
  const prefix = `note:${sessionId}:`;
  const rs = await db.execute({
    sql: `SELECT proposed_from, decision, kind, name, revision, at FROM reviewed_decisions
           WHERE document_id = ? AND substr(proposed_from, 1, ?) = ? ORDER BY at, rowid`,
    args: [documentId, prefix.length, prefix],
  });
  const reviews = new Map<string, NoteReview>();
  for (const r of rs.rows)
    reviews.set(String(r.proposed_from).slice(prefix.length), {
      decision: r.decision === 'accept' ? 'accept' : 'reject',
      kind: String(r.kind),
      name: String(r.name),
      revision: r.revision === null ? null : Number(r.revision),
      at: String(r.at),
    });
  return reviews;
}

/**
 * The owner's panel of one session of the document (the newest without `sessionId`). Without a
 * session yet, the reviewed knowledge a new session would see. `reviewedRevision` is the revision
 * `reviewedInView` is as of (the session's pinned one), `latestRevision` the document's newest.
 */
export async function memoryPanel(
  { db, reviewed, store }: { db: Client; reviewed: ReviewedKnowledge; store: PanelStore },
  ownerId: string,
  input: { documentId: string; sessionId?: string | undefined },
) {
  await requireOwnDocument(db, ownerId, input.documentId);
  const sessions = await store.listSessions(input.documentId);
  const chosen = input.sessionId === undefined ? sessions[0] : sessions.find((s) => s.id === input.sessionId);
  if (input.sessionId !== undefined && !chosen) throw notFound('The session');
  const latestRevision = await reviewed.latestRevision(input.documentId);
  let notes: NoteView[] = [];
  let inView: ReviewedRecord[];
  let recalls: RecallRecord[] = [];
  let reviews = new Map<string, NoteReview>();
  if (chosen) {
    [notes, inView, recalls, reviews] = await Promise.all([
      store.notes(chosen.id),
      store.reviewedInView(chosen.id),
      store.recentRecalls(chosen.id, 10),
      noteReviews(db, input.documentId, chosen.id),
    ]);
  } else {
    inView = latestRevision > 0 ? await reviewed.recordsAt(input.documentId, latestRevision) : [];
  }
  const { workingNotes, reviewedInView } = await panelRows(db, notes, inView);
  return {
    session: chosen ? toSessionView(chosen) : null,
    sessions: sessions.map(toSessionView),
    reviewedRevision: chosen ? chosen.pinnedRevision : latestRevision,
    latestRevision,
    workingNotes: workingNotes.map((n): WorkingNoteRow & { review: NoteReview | null } => ({
      ...n,
      review: reviews.get(n.name) ?? null,
    })),
    reviewedInView,
    recentRecalls: recalls.map((r): PanelRecall => ({
      at: r.at,
      mode: r.mode,
      count: r.mode === 'live' ? r.results.length : 0,
      found: r.results.length,
      results: r.results.map((h) => ({ name: h.name, digest: h.digest, score: h.score })),
    })),
  };
}
