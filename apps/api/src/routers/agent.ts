/**
 * The agent tools (SPEC §5), reachable only with a run token.
 *
 * Every call re-checks, against the application database, that the run's document still
 * exists and still belongs to the run's owner and that the run is live, then that working
 * memory is on for the run. The store gets `{ sessionId, author }` from the run, never from
 * the input, and judges the session itself (open, unexpired) on every call.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import type { AgentContext } from '@oh/memory';
import {
  explainInputSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  rememberInputSchema,
  sayInputSchema,
  toolDescriptors,
} from '@sponge/contract';
import { documentOutline, getOwnDocument, getVisibleDocument } from '@sponge/library';
import { judgeCitations } from '../runs/citations.ts';
import { insertAgentMessage } from '../runs/research.ts';
import { insertRecallEvent, listMessages } from '../runs/runs.ts';
import { ApiError, forbidden, notFound } from '../errors.ts';
import { agentProcedure } from '../trpc/procedures.ts';
import type { AgentCaller } from '../trpc/procedures.ts';

/** A live run whose document exists and is still its owner's (read with the run, on this call). */
function liveRun({ run, document: doc }: AgentCaller): Record<never, never> {
  if (!doc || doc.removedAt !== null) throw notFound("This run's document");
  if (doc.ownerId !== run.ownerId)
    throw forbidden("This run's document no longer belongs to the run's owner.");
  if (run.status !== 'live') throw forbidden('This run has finished; its token no longer opens the tools.');
  return {};
}

/** …and whose working memory is on: the store's view of the caller, from the run, never the input. */
function memoryOf(caller: AgentCaller): { agent: AgentContext } {
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

/** A live run's procedure: the agent tools' checks of the run (library.ts uses them too). */
export const runProcedure = agentProcedure(liveRun);
const memoryProcedure = agentProcedure(memoryOf);

function sessionClosed(state: string): ApiError {
  return new ApiError({
    code: 'PRECONDITION_FAILED',
    reason: 'session_closed',
    message: `This run's memory session is ${state}; it takes no more calls.`,
  });
}

export type RecallAnswer =
  | { mode: 'off' | 'shadow'; rows: [] }
  | { mode: 'live'; rows: Array<{ name: string; digest: string; score: number }> };

export const agentRouter = {
  /** The session, the five tool descriptors and the preload (current_notes, ≤ 24 rows, ≤ 4,000 chars). */
  load: memoryProcedure.query(async ({ ctx }) => {
    const s = await ctx.deps.store.getSession(ctx.agent.sessionId);
    if (!s) throw sessionClosed('empty');
    if (s.state !== 'open') throw sessionClosed(s.state);
    const preload = await ctx.deps.store.preload(ctx.agent);
    return {
      session: {
        id: s.id,
        version: s.version,
        pinnedRevision: s.pinnedRevision,
        startedAt: s.startedAt,
        expiresAt: s.expiresAt,
      },
      tools: toolDescriptors(),
      preload,
    };
  }),

  remember: memoryProcedure
    .input(rememberInputSchema)
    .mutation(({ ctx, input }) => ctx.deps.store.remember(ctx.agent, input)),

  query: memoryProcedure
    .input(queryInputSchema)
    .query(({ ctx, input }) => ctx.deps.store.query(ctx.agent, input)),

  read: memoryProcedure
    .input(readInputSchema)
    .query(({ ctx, input }) => ctx.deps.store.read(ctx.agent, input)),

  explain: memoryProcedure
    .input(explainInputSchema)
    .query(({ ctx, input }) => ctx.deps.store.explain(ctx.agent, input)),

  /**
   * Fuzzy recall (SPEC §5) with RECALL_MODE: `shadow` (default) computes and records the result
   * for the owner's panel and returns no rows; `live` returns names, digests and scores only;
   * `off` computes nothing. The transcript card keeps a count only (no names in this database).
   */
  recall: memoryProcedure.input(recallInputSchema).query(async ({ ctx, input }): Promise<RecallAnswer> => {
    const s = await ctx.deps.store.getSession(ctx.agent.sessionId);
    if (!s) throw sessionClosed('empty');
    if (s.state !== 'open') throw sessionClosed(s.state);
    const mode = ctx.deps.config.recallMode;
    const result = await ctx.deps.store.recall(ctx.agent, input, mode);
    const answer: RecallAnswer =
      result.mode === 'live'
        ? { mode: 'live', rows: result.rows.map((r) => ({ name: r.name, digest: r.digest, score: r.score })) }
        : { mode: result.mode, rows: [] };
    if (mode !== 'off') {
      await insertRecallEvent(ctx.deps.app, ctx.run.id, {
        sessionId: s.id,
        at: ctx.deps.now().toISOString(),
        mode,
        count: answer.rows.length,
      });
    }
    return answer;
  }),

  /**
   * What the run's document is (SPEC §7b): its title, size and outline, never its text, which the
   * agent reads a passage at a time through `library.read`. Same live checks as the tools.
   */
  document: runProcedure.query(async ({ ctx }) => {
    const doc = await getVisibleDocument(ctx.deps.app, ctx.run.ownerId, ctx.run.documentId);
    if (!doc) throw notFound("This run's document");
    return {
      id: doc.id,
      title: doc.title,
      pages: doc.pages,
      characters: doc.characters,
      outline: documentOutline(doc.text, doc.pageStarts, doc.source),
    };
  }),

  /**
   * The run's conversation so far, oldest first: the owner's turns and the agent's replies (the
   * runtime holds no owner credential, so it reads them here). Memory cards are left out.
   */
  turns: runProcedure.query(async ({ ctx }) => listMessages(ctx.deps.app, ctx.run.id)),

  /**
   * The agent's reply in the run transcript, with what it cites. Not a memory tool: staged runs
   * may talk too. Each citation is judged here (runs/citations.ts): a passage is `verified`
   * only in the stored text of one of the run owner's own live documents, a note is `note` only
   * if the run's session holds it; the answer says which failed, so the runtime can tell the model.
   */
  say: runProcedure.input(sayInputSchema).mutation(async ({ ctx, input }) => {
    const { deps, run } = ctx;
    const judged = await judgeCitations(
      input.citations ?? [],
      (documentId) => getOwnDocument(deps.app, run.ownerId, documentId),
      async () => (run.sessionId === null ? null : deps.store.log(run.sessionId)),
    );
    const at = deps.now().toISOString();
    await insertAgentMessage(deps.app, run.id, { text: input.text, at, citations: judged.stored });
    return { at, citations: judged.answer };
  }),
} satisfies TRPCRouterRecord;
