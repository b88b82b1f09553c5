import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { insertRun, listRuns, finishRun, getRun } from '../data/runs.ts';
import type { Run } from '../data/runs.ts';
import { setMemoryInStagedRuns } from '../data/documents.ts';
import { requireOwnedDocument, requireOwnedRun } from '../access.ts';
import { ApiError } from '../errors.ts';
import { hashToken, newId, newToken } from '../tokens.ts';
import { ownerOrApiKeyProcedure, ownerProcedure } from '../trpc.ts';
import { toSessionView } from '../views.ts';

export const runsRouter = {
  /**
   * Records a run and returns its token. A person only: an API key is the owner's own agent,
   * which must never obtain a run token and with it the working-memory tools (SPEC §7). Working memory is on for chat runs, and for staged
   * runs only when the document's setting turns it on; then a session is opened, pinned at the
   * document's newest reviewed revision. Refused after ACCEPT_RUNS_UNTIL (runs accepted before
   * go on).
   */
  accept: ownerProcedure.input(ownerInputs['runs.accept']).mutation(async ({ ctx, input }) => {
    const { deps } = ctx;
    const doc = await requireOwnedDocument(deps, ctx.user.id, input.documentId);
    const now = deps.now();
    const until = deps.config.acceptRunsUntil;
    if (until !== null && now.getTime() >= until.getTime()) {
      throw new ApiError({
        code: 'PRECONDITION_FAILED',
        reason: 'runs_closed',
        message: `New runs are not accepted after ${until.toISOString()} (ACCEPT_RUNS_UNTIL); runs accepted before go on.`,
      });
    }
    const memoryOn = input.mode === 'chat' || doc.memoryInStagedRuns;
    const runToken = newToken('run');
    const run: Run = {
      id: newId('run'),
      documentId: doc.id,
      ownerId: ctx.user.id,
      mode: input.mode,
      status: 'live',
      // Chosen before the session exists so the run row never points nowhere for long: if the
      // process dies between the two writes the store's session stays `opening` and the purge
      // worker marks it `empty`, which the tools then answer as session_closed.
      sessionId: memoryOn ? newId('ses') : null,
      acceptedAt: now.toISOString(),
      finishedAt: null,
    };
    await insertRun(deps.app, run, hashToken(runToken));
    if (run.sessionId !== null) {
      try {
        const pinnedRevision = await deps.reviewed.latestRevision(doc.id);
        await deps.store.openSession({
          id: run.sessionId,
          ownerId: ctx.user.id,
          documentId: doc.id,
          runId: run.id,
          pinnedRevision,
        });
      } catch (err) {
        await finishRun(deps.app, run.id, deps.now());
        throw err;
      }
    }
    return { runId: run.id, runToken, sessionId: run.sessionId };
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
