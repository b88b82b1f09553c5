/**
 * The agent tools (SPEC §5), reachable only with a run token.
 *
 * Every call re-checks, against the application database, that the run's document still
 * exists and still belongs to the run's owner and that the run is live, then that working
 * memory is on for the run (runs/agent-calls.ts). The store gets `{ sessionId, author }` from the
 * run, never from the input, and judges the session itself (open, unexpired) on every call.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { parseRememberInput } from '@oh/memory';
import {
  explainInputSchema,
  queryInputSchema,
  readInputSchema,
  recallInputSchema,
  agentSayInputSchema,
} from '@sponge/contract';
import { agentSays, liveRun, loadSession, memoryOf, recallForRun, runDocument } from '../runs/agent-calls.ts';
import { listMessages } from '../runs/runs.ts';
import { agentProcedure } from '../trpc/procedures.ts';

/** A live run's procedure: the agent tools' checks of the run (library.ts uses them too). */
export const runProcedure = agentProcedure(liveRun);
const memoryProcedure = agentProcedure(memoryOf);

export const agentRouter = {
  /** The session, the five tool descriptors and the preload (current_notes, ≤ 24 rows, ≤ 4,000 chars). */
  load: memoryProcedure.query(({ ctx }) => loadSession(ctx.deps, ctx.agent)),

  remember: memoryProcedure
    .input(parseRememberInput)
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
  recall: memoryProcedure
    .input(recallInputSchema)
    .query(({ ctx, input }) => recallForRun(ctx.deps, ctx.run, ctx.agent, input)),

  /**
   * What the run's document is (SPEC §7b): its title, size and outline, never its text, which the
   * agent reads a passage at a time through `library.read`. Same live checks as the tools.
   */
  document: runProcedure.query(({ ctx }) => runDocument(ctx.deps, ctx.run)),

  /**
   * The run's conversation so far, oldest first: the owner's turns and the agent's replies (the
   * runtime holds no owner credential, so it reads them here). Memory cards are left out.
   */
  turns: runProcedure.query(({ ctx }) => listMessages(ctx.deps.app, ctx.run.id)),

  /**
   * The agent's reply in the run transcript, with what it cites. Not a memory tool: staged runs
   * may talk too. Each citation is judged (`judgeCitations` of @sponge/library): a passage is `verified` only in
   * the stored text of one of the run owner's own live documents, a note is `note` only if the
   * run's session holds it; the answer says which failed, so the runtime can tell the model. A
   * passage's `support` is the hosted runtime's word (only it holds run tokens), kept on a verified
   * quote only.
   */
  say: runProcedure
    .input(agentSayInputSchema)
    .mutation(({ ctx, input }) => agentSays(ctx.deps, ctx.run, input)),
} satisfies TRPCRouterRecord;
