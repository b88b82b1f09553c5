/**
 * The owner's view of working memory (SPEC §6, §7): the Memory panel and Forget now.
 * Only the document's owner, signed in as a person, ever sees this; anyone else — also someone
 * the document is shared with or published to, and the owner's API keys — gets NOT_FOUND or
 * FORBIDDEN without learning whether the session exists.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import type { NoteView, RecallRecord, ReviewedRecord, SessionState } from '@oh/memory';
import { panelRows } from '@sponge/reviewed';
import { requireOwnedDocument } from '../runs/access.ts';
import { notFound } from '../errors.ts';
import { liveNotifier, sessionKey } from '../runs/notifier.ts';
import { ownerProcedure } from '../trpc/procedures.ts';
import { toSessionView } from '../runs/session-view.ts';

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
