/**
 * The hosted runtime's router (SPEC §7b), answering only RUNTIME_KEY. The runtime finds the runs
 * waiting for it, claims each (a fresh run token and a lease), renews the lease while the turn
 * works, lets go of it when the turn is answered, and finishes a run when it is done.
 *
 * Leases: while a claim's lease holds, the run is left out of `pending` and another claim is
 * refused with CONFLICT `claimed` (and `leaseExpiresAt`), so two runtimes never answer the same
 * turn or revoke each other's token mid-turn. A runtime that dies stops renewing; once its lease
 * lapses the run is pending again and the next claim takes it back, revoking the old token.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import { claimRun, finishRun, getRun, listPendingRuns, releaseLease, renewLease } from '../runs/runs.ts';
import type { LeaseRefusal } from '../runs/runs.ts';
import { ApiError, notFound } from '../errors.ts';
import { liveNotifier, PENDING } from '../runs/notifier.ts';
import { hashToken, newToken } from '../tokens.ts';
import { runtimeProcedure } from '../trpc/procedures.ts';

/**
 * At most this many pending runs per answer; the runtime asks again when it has worked them off.
 * Not measured: bounds one answer's size, not the runtime's throughput.
 */
const PENDING_LIMIT = 100;

/**
 * How often a long poll reads the pending runs again without a wake-up: what another API process
 * commits, or a lease that lapses, reaches a waiting runtime within this.
 */
const PENDING_REREAD_MS = 2_000;

function refused(refusal: LeaseRefusal): ApiError {
  if (refusal.kind === 'not_found') return notFound('A live run with that id');
  // Not one the runtime may answer: to it, the run is as gone as a finished one (SPEC §6c).
  if (refusal.kind === 'owner_disabled')
    return new ApiError({
      code: 'NOT_FOUND',
      reason: 'not_found',
      message: "This run's owner account is disabled; its runs are not answered.",
    });
  return new ApiError({
    code: 'CONFLICT',
    reason: 'claimed',
    message:
      refusal.leaseExpiresAt === null
        ? 'Another claim of this run replaced yours.'
        : `Another runtime holds this run until ${refusal.leaseExpiresAt}.`,
    ...(refusal.leaseExpiresAt !== null ? { leaseExpiresAt: refusal.leaseExpiresAt } : {}),
  });
}

export const runtimeRouter = {
  /**
   * Live chat runs whose newest turn is the owner's, and staged runs not answered yet, that no
   * lease holds; oldest first. With `waitSeconds`, a long poll (SPEC §7c): answered as soon as a
   * run not in `ignore` is pending — woken in this process by the commit that made it so, else
   * found by reading again every {@link PENDING_REREAD_MS} (another API process's question, a
   * lapsed lease) — or when the wait is over.
   */
  pending: runtimeProcedure.input(ownerInputs['runtime.pending']).query(async ({ ctx, input, signal }) => {
    const { deps } = ctx;
    const live = liveNotifier(deps.app);
    const ignore = new Set(input?.ignore ?? []);
    const deadline = performance.now() + (input?.waitSeconds ?? 0) * 1000;
    for (;;) {
      const seen = live.version([PENDING]);
      const pending = await listPendingRuns(deps.app, PENDING_LIMIT, deps.now());
      const left = deadline - performance.now();
      if (left <= 0 || signal?.aborted || pending.some((p) => !ignore.has(p.runId))) return pending;
      await live.wait([PENDING], seen, Math.min(left, PENDING_REREAD_MS), signal);
    }
  }),

  /** A fresh run token and a lease of `leaseSeconds`; CONFLICT `claimed` while another lease holds. */
  claim: runtimeProcedure.input(ownerInputs['runtime.claim']).mutation(async ({ ctx, input }) => {
    const runToken = newToken('run');
    const leaseSeconds = ctx.deps.config.runtimeLeaseSeconds;
    const lease = await claimRun(
      ctx.deps.app,
      input.runId,
      hashToken(runToken),
      ctx.deps.now(),
      leaseSeconds * 1000,
    );
    if (lease.kind !== 'held') throw refused(lease);
    const run = (await getRun(ctx.deps.app, input.runId))!;
    return {
      runId: run.id,
      runToken,
      documentId: run.documentId,
      mode: run.mode,
      sessionId: run.sessionId,
      leaseExpiresAt: lease.leaseExpiresAt,
      leaseSeconds,
    };
  }),

  /** Extends the lease of the claim `runToken` came from; CONFLICT `claimed` once another claim took the run. */
  renew: runtimeProcedure.input(ownerInputs['runtime.renew']).mutation(async ({ ctx, input }) => {
    const leaseMs = ctx.deps.config.runtimeLeaseSeconds * 1000;
    const lease = await renewLease(
      ctx.deps.app,
      input.runId,
      hashToken(input.runToken),
      ctx.deps.now(),
      leaseMs,
    );
    if (lease.kind !== 'held') throw refused(lease);
    return { runId: input.runId, leaseExpiresAt: lease.leaseExpiresAt };
  }),

  /** Lets go of the lease at once, so the run's next question is pending without waiting for it to lapse. */
  release: runtimeProcedure.input(ownerInputs['runtime.release']).mutation(async ({ ctx, input }) => {
    const released = await releaseLease(ctx.deps.app, input.runId, hashToken(input.runToken));
    if (released.kind !== 'released') throw refused(released);
    // A question asked while the turn worked is pending again now.
    liveNotifier(ctx.deps.app).notify(PENDING);
    return { runId: input.runId };
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
