/**
 * The owner's turns in a chat run (SPEC §7): a question in a document starts a chat run (the same
 * rules as runs.accept) or asks again in a live one, and a message joins the transcript. The
 * hosted runtime answers; no token comes back.
 */
import type { SessionState } from '@oh/memory';
import type { AppDeps } from '../deps.ts';
import { ApiError, invalidInput, notFound } from '../errors.ts';
import { acceptRun } from './owner-runs.ts';
import { requireOwnedRun } from './access.ts';
import { liveNotifier, PENDING, runKey } from './notifier.ts';
import { insertMessage } from './runs.ts';

/** The owner's message is in: its run's streams show it, and the runtime's long poll has work. */
function ownerTurnCommitted(deps: AppDeps, runId: string): void {
  const live = liveNotifier(deps.app);
  live.notify(runKey(runId));
  live.notify(PENDING);
}

/** How the owner reads a closed session's state (UI.md: one word per state). */
const CLOSED: Partial<Record<SessionState, string>> = {
  expired: 'has expired',
  forgotten: 'was forgotten',
  purged: 'was purged',
  empty: 'never opened',
};

/**
 * Asks in the owner's document: without `runId`, a new chat run whose first turn is `text`; with
 * the `runId` of a live chat run of that document whose session is open, another turn.
 */
export async function ask(
  deps: AppDeps,
  ownerId: string,
  input: { documentId: string; runId?: string | undefined; text: string },
): Promise<{ runId: string; sessionId: string | null }> {
  let run;
  if (input.runId === undefined) {
    run = await acceptRun(deps, ownerId, input.documentId, 'chat');
  } else {
    run = await requireOwnedRun(deps, ownerId, input.runId);
    if (run.documentId !== input.documentId) throw notFound('The run');
    if (run.mode !== 'chat')
      throw invalidInput('runId: a staged run takes no questions; leave runId out to ask in a new chat run.');
    if (run.status !== 'live')
      throw invalidInput('runId: this run has finished; leave runId out to ask in a new chat run.');
    // Its agent could not remember or recall anything: the chat goes on in a new run.
    const state = run.sessionId === null ? null : (await deps.store.getSession(run.sessionId))?.state;
    const closed = state ? CLOSED[state] : undefined;
    if (closed)
      throw new ApiError({
        code: 'PRECONDITION_FAILED',
        reason: 'session_closed',
        message: `This chat’s working memory ${closed}, so it takes no more questions: ask in a new chat.`,
      });
  }
  await insertMessage(deps.app, run.id, { role: 'you', text: input.text, at: deps.now().toISOString() });
  ownerTurnCommitted(deps, run.id);
  return { runId: run.id, sessionId: run.sessionId };
}

/** The owner's message in the run's transcript. */
export async function say(deps: AppDeps, ownerId: string, input: { runId: string; text: string }) {
  const run = await requireOwnedRun(deps, ownerId, input.runId);
  const at = deps.now().toISOString();
  await insertMessage(deps.app, run.id, { role: 'you', text: input.text, at });
  ownerTurnCommitted(deps, run.id);
  return { at };
}
