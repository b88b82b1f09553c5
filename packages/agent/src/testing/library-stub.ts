/**
 * A stand-in for the run token's `library.search` / `library.read` while those procedures are
 * being built: the same data through the owner's `documents.search` and `documents.get`, shaped
 * as the contract's `LibraryHit` and `LibraryPassage`. Tests only.
 */
import { READ_PASSAGE_MAX } from '@sponge/contract';
import type { RealApi } from './real-api.ts';
import { libraryToolsOver } from '../library-tools.ts';
import type { LibraryTools } from '../library-tools.ts';

export function ownerLibrary(owner: RealApi['owner']): LibraryTools {
  return libraryToolsOver({
    search: async ({ query, limit, documentId }) => {
      const hits = await owner.documents.search.query({
        query,
        limit: limit ?? 8,
        ...(documentId ? { documentId } : {}),
      });
      return hits.map((h) => ({
        documentId: h.documentId,
        title: h.title,
        page: h.page,
        start: h.start,
        end: h.end,
        passage: h.passage,
        score: h.score,
      }));
    },
    read: async ({ documentId, page, start, length }) => {
      const d = await owner.documents.get.query({ documentId });
      const from = Math.min(
        d.text.length,
        (page ? (d.pageStarts[page - 1] ?? d.text.length) : 0) + (start ?? 0),
      );
      const end = Math.min(d.text.length, from + (length ?? READ_PASSAGE_MAX));
      let onPage = 1;
      while (onPage < d.pageStarts.length && d.pageStarts[onPage]! <= from) onPage++;
      return {
        documentId,
        title: d.title,
        page: onPage,
        pages: d.pageStarts.length,
        start: from,
        end,
        text: d.text.slice(from, end),
        more: end < d.text.length,
      };
    },
  });
}
