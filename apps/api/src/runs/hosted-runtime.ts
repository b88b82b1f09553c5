/** The hosted runtime's side of runs (routers/runtime.ts says what each call answers). */
import type { AppDeps } from '../deps.ts';
import { ApiError, notFound } from '../errors.ts';
import { hashToken, newToken } from '../tokens.ts';
import { liveNotifier, PENDING } from './notifier.ts';
import { claimRun, finishRun, getRun, listPendingRuns, releaseLease, renewLease } from './runs.ts';
import type { LeaseRefusal } from './runs.ts';

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

/**
 * The long poll hears of a pending run from the commit that made it so in this process, else by
 * reading again every {@link PENDING_REREAD_MS} (another API process's question, a lapsed lease).
 */
export async function pendingRuns(
  deps: AppDeps,
  input: { waitSeconds?: number; ignore?: string[] } | undefined,
  signal: AbortSignal | undefined,
) {
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
}

export async function claimForRuntime(deps: AppDeps, runId: string) {
  const runToken = newToken('run');
  const leaseSeconds = deps.config.runtimeLeaseSeconds;
  const lease = await claimRun(deps.app, runId, hashToken(runToken), deps.now(), leaseSeconds * 1000);
  if (lease.kind !== 'held') throw refused(lease);
  const run = (await getRun(deps.app, runId))!;
  return {
    runId: run.id,
    runToken,
    documentId: run.documentId,
    mode: run.mode,
    sessionId: run.sessionId,
    leaseExpiresAt: lease.leaseExpiresAt,
    leaseSeconds,
  };
}

export async function renewForRuntime(deps: AppDeps, input: { runId: string; runToken: string }) {
  const leaseMs = deps.config.runtimeLeaseSeconds * 1000;
  const lease = await renewLease(deps.app, input.runId, hashToken(input.runToken), deps.now(), leaseMs);
  if (lease.kind !== 'held') throw refused(lease);
  return { runId: input.runId, leaseExpiresAt: lease.leaseExpiresAt };
}

export async function releaseForRuntime(deps: AppDeps, input: { runId: string; runToken: string }) {
  const released = await releaseLease(deps.app, input.runId, hashToken(input.runToken));
  if (released.kind !== 'released') throw refused(released);
  // A question asked while the turn worked is pending again now.
  liveNotifier(deps.app).notify(PENDING);
  return { runId: input.runId };
}

export async function finishForRuntime(deps: AppDeps, runId: string) {
  const run = await getRun(deps.app, runId);
  if (!run) throw notFound('The run');
  await finishRun(deps.app, run.id, deps.now());
  const after = (await getRun(deps.app, run.id))!;
  return { runId: after.id, status: after.status, finishedAt: after.finishedAt };
}
