/**
 * The owner's Memory panel and Forget now (routers/memory.ts says what each answers). A session
 * the caller may not see is NOT_FOUND, never FORBIDDEN: the answer does not confirm it exists.
 */
import type { NoteView, RecallRecord, ReviewedRecord, SessionState } from '@oh/memory';
import { panelRows } from '@sponge/reviewed';
import type { AppDeps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { requireOwnedDocument } from './access.ts';
import { liveNotifier, sessionKey } from './notifier.ts';
import { toSessionView } from './session-view.ts';

const CLOSED_FOR_GOOD: ReadonlySet<SessionState> = new Set(['forgotten', 'purged', 'empty']);

export async function memoryPanel(
  deps: AppDeps,
  ownerId: string,
  input: { documentId: string; sessionId?: string },
) {
  await requireOwnedDocument(deps, ownerId, input.documentId);
  const sessions = await deps.store.listSessions(input.documentId);
  const chosen = input.sessionId === undefined ? sessions[0] : sessions.find((s) => s.id === input.sessionId);
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
  const { workingNotes, reviewedInView } = await panelRows(deps.app, notes, reviewed);
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
}

export async function forgetSession(deps: AppDeps, ownerId: string, sessionId: string) {
  const s = await deps.store.getSession(sessionId);
  if (!s || s.ownerId !== ownerId) throw notFound('The session');
  await requireOwnedDocument(deps, ownerId, s.documentId).catch(() => {
    throw notFound('The session');
  });
  if (CLOSED_FOR_GOOD.has(s.state)) return { sessionId: s.id, state: s.state };
  const after = await deps.store.forget(s.id);
  // The run's `chat.events` streams replace its memory cards with the forgotten card now.
  liveNotifier(deps.app).notify(sessionKey(s.id));
  return { sessionId: after.id, state: after.state };
}
