/**
 * Accepting a run (SPEC §7), shared by `runs.accept` and `chat.ask`. The run is recorded for the
 * hosted runtime with a token nobody is given: only `runtime.claim` issues one that is handed
 * out, so no owner's client (and no agent of the owner's own) can reach the memory tools.
 */
import type { RunMode } from '@sponge/contract';
import { requireOwnedDocument } from './access.ts';
import { finishRun, insertRun } from './runs.ts';
import type { Run } from './runs.ts';
import type { AppDeps } from '../deps.ts';
import { ApiError, invalidInput } from '../errors.ts';
import { hashToken, newId, newToken } from '../tokens.ts';

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
