/**
 * The owner's runs of a document (routers/runs.ts says what each call answers). Accepting one,
 * shared by `runs.accept` and `chat.ask` (SPEC §7): the run is recorded for the hosted runtime
 * with a token nobody is given; only `runtime.claim` issues one that is handed out, so no owner's
 * client (and no agent of the owner's own) can reach the memory tools.
 */
import type { RunMode } from '@sponge/contract';
import { toSessionView } from '@sponge/reviewed';
import type { AppDeps } from '../deps.ts';
import { ApiError, invalidInput } from '../errors.ts';
import { hashToken, newId, newToken } from '../tokens.ts';
import { requireOwnedDocument, requireOwnedRun } from './access.ts';
import { liveNotifier, PENDING } from './notifier.ts';
import { finishRun, getRun, insertRun, listRuns } from './runs.ts';
import type { Run } from './runs.ts';

export async function acceptRun(
  deps: AppDeps,
  ownerId: string,
  documentId: string,
  mode: RunMode,
): Promise<Run> {
  const doc = await requireOwnedDocument(deps, ownerId, documentId);
  // An upload still being read has no text for the agent to work in (a scan OCR is still reading
  // has its text layer, and takes runs).
  if (doc.extracting)
    throw invalidInput(
      'documentId: this document has no text yet; it is still being extracted. Start a run once it has its text.',
    );
  const now = deps.now();
  const until = deps.config.acceptRunsUntil;
  if (until !== null && now.getTime() >= until.getTime()) {
    throw new ApiError({
      code: 'PRECONDITION_FAILED',
      reason: 'runs_closed',
      message: `New runs are not accepted after ${until.toISOString()} (ACCEPT_RUNS_UNTIL); runs accepted before go on.`,
    });
  }
  const memoryOn = mode === 'chat' || doc.memoryInStagedRuns;
  const run: Run = {
    id: newId('run'),
    documentId: doc.id,
    ownerId,
    mode,
    status: 'live',
    // Chosen before the session exists so the run row never points nowhere for long: if the
    // process dies between the two writes the store's session stays `opening` and the purge
    // worker marks it `empty`, which the tools then answer as session_closed.
    sessionId: memoryOn ? newId('ses') : null,
    acceptedAt: now.toISOString(),
    finishedAt: null,
  };
  // The hash of a token that is thrown away: the column is required and unique, and until a
  // claim replaces it nothing can open this run.
  await insertRun(deps.app, run, hashToken(newToken('run')));
  if (run.sessionId !== null) {
    try {
      const pinnedRevision = await deps.reviewed.latestRevision(doc.id);
      await deps.store.openSession({
        id: run.sessionId,
        ownerId,
        documentId: doc.id,
        runId: run.id,
        pinnedRevision,
      });
    } catch (err) {
      await finishRun(deps.app, run.id, deps.now());
      throw err;
    }
  }
  return run;
}

export async function acceptForOwner(
  deps: AppDeps,
  ownerId: string,
  input: { documentId: string; mode: RunMode },
) {
  const run = await acceptRun(deps, ownerId, input.documentId, input.mode);
  // A staged run is pending at once: the runtime's long poll hears of it now.
  liveNotifier(deps.app).notify(PENDING);
  return { runId: run.id, sessionId: run.sessionId };
}

export async function runsOfDocument(deps: AppDeps, ownerId: string, documentId: string) {
  await requireOwnedDocument(deps, ownerId, documentId);
  const runs = await listRuns(deps.app, documentId);
  const sessions = await deps.store.getSessions(runs.flatMap((r) => (r.sessionId ? [r.sessionId] : [])));
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
}

export async function finishForOwner(deps: AppDeps, ownerId: string, runId: string) {
  await requireOwnedRun(deps, ownerId, runId);
  await finishRun(deps.app, runId, deps.now());
  const run = await getRun(deps.app, runId);
  return { runId, status: run?.status ?? 'finished', finishedAt: run?.finishedAt ?? null };
}
