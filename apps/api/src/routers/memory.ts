/**
 * The owner's view of working memory (SPEC §6, §7): the Memory panel (@sponge/reviewed) and Forget
 * now (runs/memory-panel.ts). Only the document's owner, signed in as a person, ever sees this; anyone
 * else — also someone the document is shared with or published to, and the owner's API keys —
 * gets NOT_FOUND or FORBIDDEN without learning whether the session exists.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { memoryPanel, toSessionView } from '@sponge/reviewed';
import { requireOwnedDocument } from '../runs/access.ts';
import { forgetSession } from '../runs/memory-panel.ts';
import { ownerProcedure } from '../trpc/procedures.ts';

export const memoryRouter = {
  /**
   * One session of the document (the newest without `sessionId`): its state and times, the
   * working notes with content and the newest decision proposed from each (`review`), the
   * reviewed knowledge in view as of `reviewedRevision` beside the newest (`latestRevision`), its
   * recalls (`count` shown to the agent, `found` by the index), and the document's sessions.
   * With no session yet, the reviewed knowledge a new session would see is shown.
   */
  panel: ownerProcedure
    .input(ownerInputs['memory.panel'])
    .query(({ ctx: { deps, user }, input }) =>
      memoryPanel({ db: deps.app, reviewed: deps.reviewed, store: deps.store }, user.id, input),
    ),

  /** Forget now: notes, log and vectors go at once; a tombstone stays. Idempotent. */
  forget: ownerProcedure
    .input(ownerInputs['memory.forget'])
    .mutation(({ ctx, input }) => forgetSession(ctx.deps, ctx.user.id, input.sessionId)),

  /** The document's sessions, newest first. */
  sessions: ownerProcedure.input(ownerInputs['memory.sessions']).query(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    return (await ctx.deps.store.listSessions(input.documentId)).map(toSessionView);
  }),
} satisfies TRPCRouterRecord;
