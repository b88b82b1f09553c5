/**
 * The library tools (SPEC §7b) as a run's agent calls them: the run owner's own documents only,
 * and a card in the run's transcript for every successful call; and the same search for the
 * owner's own agent over MCP (mcp/tools.ts). The library (@sponge/library) answers; a document
 * shared with or published to the owner, another owner's, a removed one or none at all answer
 * alike (NOT_FOUND to a read, no hits from a search).
 */
import type { z } from 'zod';
import { LIBRARY_SEARCH_DEFAULT } from '@sponge/contract';
import type { LibraryHit, libraryInputs } from '@sponge/contract';
import { readOwnPassage } from '@sponge/library';
import type { AppDeps } from '../deps.ts';
import { insertLibraryEvent } from './research.ts';
import type { Run } from './runs.ts';

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

/** `library.search` for a run: the owner's own documents, and a card in the run's transcript. */
export async function searchForRun(
  deps: AppDeps,
  run: Run,
  input: z.infer<(typeof libraryInputs)['library.search']>,
): Promise<LibraryHit[]> {
  const answer = await searchOwnLibrary(deps, run.ownerId, input);
  await insertLibraryEvent(deps.app, run.id, {
    action: 'searched',
    at: deps.now().toISOString(),
    query: input.query,
    count: answer.length,
    ...(input.documentId === undefined ? {} : { documentId: input.documentId }),
  });
  return answer;
}

/** `library.read` for a run: at most 4,000 characters of one of the owner's own documents, and a card. */
export async function readForRun(
  deps: AppDeps,
  run: Run,
  input: z.infer<(typeof libraryInputs)['library.read']>,
) {
  const passage = await readOwnPassage(deps.app, run.ownerId, input);
  await insertLibraryEvent(deps.app, run.id, {
    action: 'read',
    at: deps.now().toISOString(),
    documentId: passage.documentId,
    page: passage.page,
    start: passage.start,
    end: passage.end,
  });
  return passage;
}
