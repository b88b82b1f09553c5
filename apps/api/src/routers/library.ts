/**
 * The library tools (SPEC §7b), reachable only with a run token and with the agent tools' live
 * checks of the run (routers/agent.ts). They act on the run owner's own documents only: a
 * document shared with or published to the owner, another owner's, a removed one or none at all
 * answer alike (NOT_FOUND to `library.read`, no hits from `library.search`). Every successful call
 * leaves a card in the run's transcript.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import type { z } from 'zod';
import { LIBRARY_SEARCH_DEFAULT, READ_PASSAGE_MAX, libraryInputs } from '@sponge/contract';
import type { LibraryHit, LibraryPassage } from '@sponge/contract';
import { getVisibleDocument } from '../data/documents.ts';
import type { DocumentRecord } from '../data/documents.ts';
import { insertLibraryEvent } from '../data/research.ts';
import type { AppDeps } from '../deps.ts';
import { invalidInput, notFound } from '../errors.ts';
import { runProcedure } from './agent.ts';

/** One of the owner's own live documents, or NOT_FOUND whatever else it is. */
export async function ownDocument(
  deps: AppDeps,
  ownerId: string,
  documentId: string,
): Promise<DocumentRecord> {
  const doc = await getVisibleDocument(deps.app, ownerId, documentId);
  if (!doc || doc.access !== 'owner') throw notFound('The document');
  return doc;
}

/** Why a document has no text to read yet (or at all). */
function noText(doc: DocumentRecord): string {
  const { state, done, total } = doc.index;
  if (state === 'recognizing')
    return `This document has no text yet: OCR is reading its scanned pages (${done} of ${total}); read it once it is done.`;
  if (state === 'failed') return 'This document has no text: neither its text layer nor OCR found any.';
  return 'This document has no text yet: it is still being extracted; read it once it is done.';
}

/** The 1-based page `offset` falls on. */
function pageAt(pageStarts: readonly number[], offset: number): number {
  let page = 1;
  while (page < pageStarts.length && pageStarts[page]! <= offset) page++;
  return page;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** A passage of at most READ_PASSAGE_MAX characters (SPEC §7b), never half a surrogate pair. */
export function readPassage(
  doc: Pick<DocumentRecord, 'id' | 'title' | 'text' | 'pageStarts'>,
  input: { page?: number; start?: number; length?: number },
): LibraryPassage {
  const { text, pageStarts } = doc;
  const pages = pageStarts.length;
  if (input.page !== undefined && input.page > pages)
    throw invalidInput(
      `page: the document has ${pages.toLocaleString('en')} page${pages === 1 ? '' : 's'}; page ${input.page.toLocaleString('en')} is past its end.`,
    );
  const base = input.page === undefined ? 0 : pageStarts[input.page - 1]!;
  let start = base + (input.start ?? 0);
  if ((input.start ?? 0) > 0 && start >= text.length)
    throw invalidInput(
      `start: the document has ${text.length.toLocaleString('en')} characters; ` +
        (input.page === undefined
          ? `start ${input.start!.toLocaleString('en')} is past its end.`
          : `page ${input.page} starts at ${base.toLocaleString('en')}, so start ${input.start!.toLocaleString('en')} is past its end.`),
    );
  start = Math.min(start, text.length);
  if (start > 0 && start < text.length && isLowSurrogate(text.charCodeAt(start))) start++;
  let end = Math.min(start + Math.min(input.length ?? READ_PASSAGE_MAX, READ_PASSAGE_MAX), text.length);
  if (end > start && end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return {
    documentId: doc.id,
    title: doc.title,
    page: pageAt(pageStarts, start),
    pages,
    start,
    end,
    text: text.slice(start, end),
    more: end < text.length,
  };
}

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

/** A passage of one of the owner's own documents, or NOT_FOUND / a refusal in words. */
export async function readOwnPassage(
  deps: AppDeps,
  ownerId: string,
  input: z.infer<(typeof libraryInputs)['library.read']>,
): Promise<LibraryPassage> {
  const doc = await ownDocument(deps, ownerId, input.documentId);
  // A scan OCR has not read yet holds only the blank lines between its pages.
  if (!/\S/.test(doc.text)) throw invalidInput(noText(doc));
  return readPassage(doc, input);
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
    const passage = await readOwnPassage(ctx.deps, ctx.run.ownerId, input);
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
