/**
 * The hosted runtime's router (SPEC §7b), answering only RUNTIME_KEY. The runtime finds the runs
 * waiting for it, claims each (a fresh run token and a lease), renews the lease while the turn
 * works, lets go of it when the turn is answered, and finishes a run when it is done.
 *
 * Leases: while a claim's lease holds, the run is left out of `pending` and another claim is
 * refused with CONFLICT `claimed` (and `leaseExpiresAt`), so two runtimes never answer the same
 * turn or revoke each other's token mid-turn. A runtime that dies stops renewing; once its lease
 * lapses the run is pending again and the next claim takes it back, revoking the old token
 * (runs/hosted-runtime.ts).
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { ownerInputs } from '@sponge/contract';
import {
  claimForRuntime,
  finishForRuntime,
  pendingRuns,
  releaseForRuntime,
  renewForRuntime,
} from '../runs/hosted-runtime.ts';
import { runtimeProcedure } from '../trpc/procedures.ts';

export const runtimeRouter = {
  /**
   * Live chat runs whose newest turn is the owner's, and staged runs not answered yet, that no
   * lease holds; oldest first. With `waitSeconds`, a long poll (SPEC §7c): answered as soon as a
   * run not in `ignore` is pending, or when the wait is over.
   */
  pending: runtimeProcedure
    .input(ownerInputs['runtime.pending'])
    .query(({ ctx, input, signal }) => pendingRuns(ctx.deps, input, signal)),

  /** A fresh run token and a lease of `leaseSeconds`; CONFLICT `claimed` while another lease holds. */
  claim: runtimeProcedure
    .input(ownerInputs['runtime.claim'])
    .mutation(({ ctx, input }) => claimForRuntime(ctx.deps, input.runId)),

  /** Extends the lease of the claim `runToken` came from; CONFLICT `claimed` once another claim took the run. */
  renew: runtimeProcedure
    .input(ownerInputs['runtime.renew'])
    .mutation(({ ctx, input }) => renewForRuntime(ctx.deps, input)),

  /** Lets go of the lease at once, so the run's next question is pending without waiting for it to lapse. */
  release: runtimeProcedure
    .input(ownerInputs['runtime.release'])
    .mutation(({ ctx, input }) => releaseForRuntime(ctx.deps, input)),

  /** Ends a run: its token stops opening the tools at once. Its session stays until it is forgotten. */
  finish: runtimeProcedure
    .input(ownerInputs['runtime.finish'])
    .mutation(({ ctx, input }) => finishForRuntime(ctx.deps, input.runId)),
} satisfies TRPCRouterRecord;
