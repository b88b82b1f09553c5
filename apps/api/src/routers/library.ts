/**
 * The library tools (SPEC §7b), reachable only with a run token and with the agent tools' live
 * checks of the run (routers/agent.ts). They act on the run owner's own documents only: a
 * document shared with or published to the owner, another owner's, a removed one or none at all
 * answer alike (NOT_FOUND to `library.read`, no hits from `library.search`). Every successful call
 * leaves a card in the run's transcript.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import type { z } from 'zod';
import { LIBRARY_SEARCH_DEFAULT, libraryInputs } from '@sponge/contract';
import type { LibraryHit } from '@sponge/contract';
import { readOwnPassage } from '@sponge/library';
import { insertLibraryEvent } from '../data/research.ts';
import type { AppDeps } from '../deps.ts';
import { runProcedure } from './agent.ts';

/**
 * Hybrid search over one owner's own documents (documents.search's ranking), as the library
 * tools answer it: the run's agent (`library.search`) and the owner's own agent over MCP.
 */
export async function searchOwnLibrary(
  deps: AppDeps,
  ownerId: string,
  input: z.infer<(typeof libraryInputs)['library.search']>,
): Promise<LibraryHit[]> {
  const hits = await deps.library.search.search(
    ownerId,
    input.query,
    input.limit ?? LIBRARY_SEARCH_DEFAULT,
    input.documentId === undefined ? {} : { documentId: input.documentId },
  );
  return hits.map((h) => ({
    documentId: h.documentId,
    title: h.title,
    page: h.page,
    start: h.start,
    end: h.end,
    passage: h.passage,
    score: h.score,
  }));
}

export const libraryRouter = {
  /** Hybrid search over the run owner's own documents (documents.search's ranking). */
  search: runProcedure.input(libraryInputs['library.search']).query(async ({ ctx, input }) => {
    const answer = await searchOwnLibrary(ctx.deps, ctx.run.ownerId, input);
    await insertLibraryEvent(ctx.deps.app, ctx.run.id, {
      action: 'searched',
      at: ctx.deps.now().toISOString(),
      query: input.query,
      count: answer.length,
      ...(input.documentId === undefined ? {} : { documentId: input.documentId }),
    });
    return answer;
  }),

  /** At most 4,000 characters of one of the run owner's own documents, with its page and span. */
  read: runProcedure.input(libraryInputs['library.read']).query(async ({ ctx, input }) => {
    const passage = await readOwnPassage(ctx.deps.app, ctx.run.ownerId, input);
    await insertLibraryEvent(ctx.deps.app, ctx.run.id, {
      action: 'read',
      at: ctx.deps.now().toISOString(),
      documentId: passage.documentId,
      page: passage.page,
      start: passage.start,
      end: passage.end,
    });
    return passage;
  }),
} satisfies TRPCRouterRecord;
