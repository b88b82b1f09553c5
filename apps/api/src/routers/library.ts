/**
 * The library tools (SPEC §7b), reachable only with a run token and with the agent tools' live
 * checks of the run (routers/agent.ts). They act on the run owner's own documents only, and every
 * successful call leaves a card in the run's transcript (runs/library-tools.ts).
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { libraryInputs } from '@sponge/contract';
import { readForRun, searchForRun } from '../runs/library-tools.ts';
import { runProcedure } from './agent.ts';

export const libraryRouter = {
  /** Hybrid search over the run owner's own documents (documents.search's ranking). */
  search: runProcedure
    .input(libraryInputs['library.search'])
    .query(({ ctx, input }) => searchForRun(ctx.deps, ctx.run, input)),

  /** At most 4,000 characters of one of the run owner's own documents, with its page and span. */
  read: runProcedure
    .input(libraryInputs['library.read'])
    .query(({ ctx, input }) => readForRun(ctx.deps, ctx.run, input)),
} satisfies TRPCRouterRecord;
