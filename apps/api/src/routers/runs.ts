import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { setMemoryInStagedRuns } from '@sponge/library';
import { requireOwnedDocument } from '../runs/access.ts';
import { acceptForOwner, finishForOwner, runsOfDocument } from '../runs/owner-runs.ts';
import { ownerOrApiKeyProcedure, ownerProcedure } from '../trpc/procedures.ts';

export const runsRouter = {
  /**
   * Records a run for the hosted runtime and returns `{ runId, sessionId }`, never a token: only
   * the runtime obtains one (`runtime.claim`). A person only: an API key is the owner's own
   * agent, which must never reach the memory tools (SPEC §7). Working memory is on for chat runs,
   * and for staged runs only when the document's setting turns it on; then a session is opened,
   * pinned at the document's newest reviewed revision. Refused after ACCEPT_RUNS_UNTIL (runs
   * accepted before go on).
   */
  accept: ownerProcedure
    .input(ownerInputs['runs.accept'])
    .mutation(({ ctx, input }) => acceptForOwner(ctx.deps, ctx.user.id, input)),

  /** A document's runs, newest first, each with its session's id and state. */
  list: ownerOrApiKeyProcedure
    .input(ownerInputs['runs.list'])
    .query(({ ctx, input }) => runsOfDocument(ctx.deps, ctx.user.id, input.documentId)),

  /** Ends a run: its token stops opening the tools. Its session stays until it is forgotten. */
  finish: ownerProcedure
    .input(ownerInputs['runs.finish'])
    .mutation(({ ctx, input }) => finishForOwner(ctx.deps, ctx.user.id, input.runId)),

  /** The document's working-memory setting for staged research runs (off by default). */
  settings: ownerProcedure.input(ownerInputs['runs.settings']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    await setMemoryInStagedRuns(ctx.deps.app, input.documentId, input.memoryInStagedRuns);
    return { documentId: input.documentId, memoryInStagedRuns: input.memoryInStagedRuns };
  }),
} satisfies TRPCRouterRecord;
