/**
 * What a run's agent calls do beyond one call of the store (routers/agent.ts says what each
 * answers): the checks of its run, done again on every call against the application database, and
 * the load, recall, document and say calls.
 */
import type { AgentContext, RecallToolInput } from '@oh/memory';
import { mayNameNotes, noteMentions, toolDescriptors } from '@sponge/contract';
import type { SaidCitation } from '@sponge/contract';
import { documentOutline, getOwnDocument, getVisibleDocument, judgeCitations } from '@sponge/library';
import type { DocumentOwner } from '@sponge/library';
import type { AppDeps } from '../deps.ts';
import { ApiError, forbidden, notFound } from '../errors.ts';
import { insertAgentMessage } from './research.ts';
import { insertRecallEvent } from './runs.ts';
import type { Run } from './runs.ts';

/** A run token's run, with its document read in the same statement (null if gone). */
type RunCaller = { run: Run; document: DocumentOwner | null };

/** A live run whose document exists and is still its owner's. */
export function liveRun({ run, document: doc }: RunCaller): Record<never, never> {
  if (!doc || doc.removedAt !== null) throw notFound("This run's document");
  if (doc.ownerId !== run.ownerId)
    throw forbidden("This run's document no longer belongs to the run's owner.");
  if (run.status !== 'live') throw forbidden('This run has finished; its token no longer opens the tools.');
  return {};
}

/** …and whose working memory is on: the store's view of the caller, from the run, never the input. */
export function memoryOf(caller: RunCaller): { agent: AgentContext } {
  liveRun(caller);
  const sessionId = caller.run.sessionId;
  if (sessionId === null) {
    throw new ApiError({
      code: 'PRECONDITION_FAILED',
      reason: 'memory_off',
      message: 'Working memory is off for this run (a staged run on a document whose setting leaves it off).',
    });
  }
  return { agent: { sessionId, author: `agent:${caller.run.id}` } };
}

/** The run's session if it is open; `session_closed` otherwise. */
async function openSession(deps: AppDeps, agent: AgentContext) {
  const s = await deps.store.getSession(agent.sessionId);
  const state = s?.state ?? 'empty';
  if (!s || state !== 'open')
    throw new ApiError({
      code: 'PRECONDITION_FAILED',
      reason: 'session_closed',
      message: `This run's memory session is ${state}; it takes no more calls.`,
    });
  return s;
}

export async function loadSession(deps: AppDeps, agent: AgentContext) {
  const s = await openSession(deps, agent);
  const preload = await deps.store.preload(agent);
  const { id, version, pinnedRevision, startedAt, expiresAt } = s;
  return {
    session: { id, version, pinnedRevision, startedAt, expiresAt },
    tools: toolDescriptors(),
    preload,
  };
}

export type RecallAnswer =
  | { mode: 'off' | 'shadow'; rows: [] }
  | { mode: 'live'; rows: Array<{ name: string; digest: string; score: number }> };

export async function recallForRun(
  deps: AppDeps,
  run: Run,
  agent: AgentContext,
  input: RecallToolInput,
): Promise<RecallAnswer> {
  const s = await openSession(deps, agent);
  const result = await deps.store.recall(agent, input, deps.config.recallMode);
  const answer: RecallAnswer =
    result.mode === 'live'
      ? { mode: 'live', rows: result.rows.map((r) => ({ name: r.name, digest: r.digest, score: r.score })) }
      : { mode: result.mode, rows: [] };
  if (result.mode !== 'off') {
    // The transcript's card keeps counts only: no note names in this database.
    const at = deps.now().toISOString();
    const { mode, found, rows } = result;
    await insertRecallEvent(deps.app, run.id, { sessionId: s.id, at, mode, count: rows.length, found });
  }
  return answer;
}

export async function runDocument(deps: AppDeps, run: Run) {
  const doc = await getVisibleDocument(deps.app, run.ownerId, run.documentId);
  if (!doc) throw notFound("This run's document");
  const { id, title, pages, characters } = doc;
  return { id, title, pages, characters, outline: documentOutline(doc.text, doc.pageStarts, doc.source) };
}

/** The reply, its citations judged (`judgeCitations`): the answer says which failed, for the model. */
export async function agentSays(
  deps: AppDeps,
  run: Run,
  input: { text: string; citations?: SaidCitation[] },
) {
  // The session's log names its notes: read once a reply cites a note or may name one.
  const named = input.citations?.some((c) => 'note' in c) || mayNameNotes(input.text);
  const log = run.sessionId === null || !named ? null : await deps.store.log(run.sessionId);
  const judged = await judgeCitations(
    input.citations ?? [],
    (documentId) => getOwnDocument(deps.app, run.ownerId, documentId),
    async () => log,
  );
  const at = deps.now().toISOString();
  // Where the reply names a note the log knew: read "a forgotten note" once the session is closed.
  const noteSpans = noteMentions(input.text, log?.flatMap((e) => e.applied.map((a) => a.name)) ?? []);
  await insertAgentMessage(deps.app, run.id, { text: input.text, at, citations: judged.stored, noteSpans });
  return { at, citations: judged.answer };
}
