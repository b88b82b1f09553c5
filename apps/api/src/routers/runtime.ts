/**
 * The hosted runtime's router (SPEC §7b), answering only RUNTIME_KEY. The runtime finds the runs
 * waiting for it, claims each (a fresh run token; a claim revokes the previous one, so a
 * restarted runtime takes its runs back), and finishes a run when it is done.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { claimRun, finishRun, getRun, listPendingRuns } from '../data/runs.ts';
import { notFound } from '../errors.ts';
import { hashToken, newToken } from '../tokens.ts';
import { runtimeProcedure } from '../trpc.ts';

/** At most this many pending runs per answer; the runtime asks again when it has worked them off. */
const PENDING_LIMIT = 100;

export const runtimeRouter = {
  /** Live chat runs whose newest turn is the owner's, and staged runs not claimed yet, oldest first. */
  pending: runtimeProcedure.query(({ ctx }) => listPendingRuns(ctx.deps.app, PENDING_LIMIT)),

  claim: runtimeProcedure.input(ownerInputs['runtime.claim']).mutation(async ({ ctx, input }) => {
    const runToken = newToken('run');
    if (!(await claimRun(ctx.deps.app, input.runId, hashToken(runToken), ctx.deps.now()))) {
      throw notFound('A live run with that id');
    }
    const run = (await getRun(ctx.deps.app, input.runId))!;
    return { runId: run.id, runToken, documentId: run.documentId, mode: run.mode, sessionId: run.sessionId };
  }),

  /** Ends a run: its token stops opening the tools at once. Its session stays until it is forgotten. */
  finish: runtimeProcedure.input(ownerInputs['runtime.finish']).mutation(async ({ ctx, input }) => {
    const run = await getRun(ctx.deps.app, input.runId);
    if (!run) throw notFound('The run');
    await finishRun(ctx.deps.app, run.id, ctx.deps.now());
    const after = (await getRun(ctx.deps.app, run.id))!;
    return { runId: after.id, status: after.status, finishedAt: after.finishedAt };
  }),
} satisfies TRPCRouterRecord;
