/**
 * Reading a document a passage at a time (SPEC §7b, `library.read`; the `read_passage` tool of
 * /mcp): at most READ_PASSAGE_MAX characters from a page or an offset, with the page it starts
 * on and its span, of one of the owner's own documents only.
 */
import type { Client } from '@libsql/client';
import { READ_PASSAGE_MAX } from '@sponge/contract';
import type { LibraryPassage } from '@sponge/contract';
import { LibraryError, documentNotFound } from '../errors.ts';
import { getOwnDocument } from './documents.ts';
import type { DocumentRecord } from './documents.ts';

/** Where to read: a page (1-based), an offset into it (or into the text), at most how much. */
export interface PassageRequest {
  documentId: string;
  page?: number;
  start?: number;
  length?: number;
}

/**
 * A passage of one of the owner's own live documents. `not_found` for anything else (shared,
 * published, another's, removed: alike); `invalid_input`, in words, for a document with no text
 * yet (or none at all) and for a page or start past its end.
 *
 * @example
 * await readOwnPassage(db, 'user-ada', { documentId, page: 2, length: 500 });
 * // { documentId, title, page: 2, pages: 5, start: 1834, end: 2334, text: '…', more: true }
 */
export async function readOwnPassage(
  db: Client,
  ownerId: string,
  input: PassageRequest,
): Promise<LibraryPassage> {
  const doc = await getOwnDocument(db, ownerId, input.documentId);
  if (!doc) throw documentNotFound();
  // A scan OCR has not read yet holds only the blank lines between its pages.
  if (!/\S/.test(doc.text)) throw new LibraryError('invalid_input', noText(doc));
  return readPassage(doc, input);
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
function readPassage(
  doc: Pick<DocumentRecord, 'id' | 'title' | 'text' | 'pageStarts'>,
  input: { page?: number; start?: number; length?: number },
): LibraryPassage {
  const { text, pageStarts } = doc;
  const pages = pageStarts.length;
  if (input.page !== undefined && input.page > pages)
    throw new LibraryError(
      'invalid_input',
      `page: the document has ${pages.toLocaleString('en')} page${pages === 1 ? '' : 's'}; page ${input.page.toLocaleString('en')} is past its end.`,
    );
  const base = input.page === undefined ? 0 : pageStarts[input.page - 1]!;
  let start = base + (input.start ?? 0);
  if ((input.start ?? 0) > 0 && start >= text.length)
    throw new LibraryError(
      'invalid_input',
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
