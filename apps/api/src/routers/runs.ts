import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { listRuns, finishRun, getRun } from '../runs/runs.ts';
import { setMemoryInStagedRuns } from '@sponge/library';
import { requireOwnedDocument, requireOwnedRun } from '../runs/access.ts';
import { acceptRun } from '../runs/accept.ts';
import { liveNotifier, PENDING } from '../runs/notifier.ts';
import { ownerOrApiKeyProcedure, ownerProcedure } from '../trpc/procedures.ts';
import { toSessionView } from '../runs/session-view.ts';

export const runsRouter = {
  /**
   * Records a run for the hosted runtime and returns `{ runId, sessionId }`, never a token: only
   * the runtime obtains one (`runtime.claim`). A person only: an API key is the owner's own
   * agent, which must never reach the memory tools (SPEC §7). Working memory is on for chat runs,
   * and for staged runs only when the document's setting turns it on; then a session is opened,
   * pinned at the document's newest reviewed revision. Refused after ACCEPT_RUNS_UNTIL (runs
   * accepted before go on).
   */
  accept: ownerProcedure.input(ownerInputs['runs.accept']).mutation(async ({ ctx, input }) => {
    const run = await acceptRun(ctx.deps, ctx.user.id, input.documentId, input.mode);
    // A staged run is pending at once: the runtime's long poll hears of it now.
    liveNotifier(ctx.deps.app).notify(PENDING);
    return { runId: run.id, sessionId: run.sessionId };
  }),

  /** A document's runs, newest first, each with its session's id and state. */
  list: ownerOrApiKeyProcedure.input(ownerInputs['runs.list']).query(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    const runs = await listRuns(ctx.deps.app, input.documentId);
    const sessions = await ctx.deps.store.getSessions(
      runs.flatMap((r) => (r.sessionId ? [r.sessionId] : [])),
    );
    return runs.map((r) => {
      const s = r.sessionId ? sessions.get(r.sessionId) : undefined;
      return {
        id: r.id,
        documentId: r.documentId,
        mode: r.mode,
        status: r.status,
        acceptedAt: r.acceptedAt,
        finishedAt: r.finishedAt,
        memory: r.sessionId !== null,
        sessionId: r.sessionId,
        state: s?.state ?? null,
        session: s ? toSessionView(s) : null,
      };
    });
  }),

  /** Ends a run: its token stops opening the tools. Its session stays until it is forgotten. */
  finish: ownerProcedure.input(ownerInputs['runs.finish']).mutation(async ({ ctx, input }) => {
    await requireOwnedRun(ctx.deps, ctx.user.id, input.runId);
    await finishRun(ctx.deps.app, input.runId, ctx.deps.now());
    const run = await getRun(ctx.deps.app, input.runId);
    return { runId: input.runId, status: run?.status ?? 'finished', finishedAt: run?.finishedAt ?? null };
  }),

  /** The document's working-memory setting for staged research runs (off by default). */
  settings: ownerProcedure.input(ownerInputs['runs.settings']).mutation(async ({ ctx, input }) => {
    await requireOwnedDocument(ctx.deps, ctx.user.id, input.documentId);
    await setMemoryInStagedRuns(ctx.deps.app, input.documentId, input.memoryInStagedRuns);
    return { documentId: input.documentId, memoryInStagedRuns: input.memoryInStagedRuns };
  }),
} satisfies TRPCRouterRecord;
