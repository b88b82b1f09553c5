/**
 * Reading a document a passage at a time (SPEC §7b, `library.read`; the `read_passage` tool of
 * /mcp): at most READ_PASSAGE_MAX characters from a page or an offset, with the page it starts
 * on and its span, of one of the owner's own documents only. And one page of any document the
 * reader may read (the review dialog's cited page, `documents.page`), cut out by the database.
 */
import type { Client } from '@libsql/client';
import { READ_PASSAGE_MAX } from '@sponge/contract';
import type { LibraryPassage } from '@sponge/contract';
import { LibraryError, documentNotFound } from '../errors.ts';
import { FROM_VISIBLE_WITH_TEXT, codePoints, getOwnDocument } from './documents.ts';
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

/** One page of a document, as `documents.page` answers it. */
export interface DocumentPage {
  documentId: string;
  title: string;
  /** 1-based, of `pages`. */
  page: number;
  pages: number;
  text: string;
  /** Whether OCR recognised this page's text from a scan (to be checked against it). */
  ocr: boolean;
}

/**
 * A page's start in the text, by its 1-based number, from a JSON array of starts (SQL). printf's
 * %d because a driver may bind the page as a real (libSQL's remote protocol sends every JavaScript
 * number so), and '$[1.0]' is no JSON path.
 */
const startOf = (page: string) => `json_extract(starts, printf('$[%d]', ${page} - 1))`;

/**
 * One page of a document `userId` may read (own, shared, published), cut out of the stored text
 * by the database at the page's stored start, so only that page leaves it: as fast for page 1,900
 * of 2,000 as for page 1. `not_found` for a document the reader may not see or that was removed;
 * `invalid_input`, in words, for a page past its end or a document whose text is still being
 * extracted.
 *
 * @example
 * await readVisiblePage(db, 'user-ada', { documentId, page: 1900 });
 * // { documentId, title, page: 1900, pages: 2000, text: '…', ocr: false }
 */
export async function readVisiblePage(
  db: Client,
  userId: string,
  input: { documentId: string; page: number },
): Promise<DocumentPage> {
  // SQL counts code points where JavaScript counts UTF-16 units: the starts SQL can use are
  // page_starts_cp, or page_starts where the two counts agree (no character outside the BMP).
  const rs = await db.execute({
    sql: `WITH doc AS (
            SELECT d.id, d.title, t.text, d.ocr_pages, d.pages,
                   coalesce(t.page_starts_cp,
                            CASE WHEN length(t.text) = d.characters THEN t.page_starts END) AS starts
              ${FROM_VISIBLE_WITH_TEXT} AND d.id = :doc)
          SELECT id, title, pages, starts IS NULL AS unknown,
                 EXISTS (SELECT 1 FROM json_each(doc.ocr_pages) WHERE value = :page) AS ocr,
                 CASE WHEN starts IS NULL OR :page > pages THEN NULL
                      WHEN :page = pages THEN substr(text, ${startOf(':page')} + 1)
                      ELSE substr(text, ${startOf(':page')} + 1, ${startOf(':page + 1')} - 2 - ${startOf(':page')})
                 END AS page_text
            FROM doc`,
    args: { user: userId, doc: input.documentId, page: input.page },
  });
  const r = rs.rows[0];
  if (!r) throw documentNotFound();
  const pages = Number(r.pages);
  if (pages === 0)
    throw new LibraryError(
      'invalid_input',
      'This document has no text yet: it is still being extracted; read it once it is done.',
    );
  if (input.page > pages)
    throw new LibraryError(
      'invalid_input',
      `page: the document has ${pages.toLocaleString('en')} page${pages === 1 ? '' : 's'}; page ${input.page.toLocaleString('en')} is past its end.`,
    );
  const page = { documentId: String(r.id), title: String(r.title), page: input.page, pages };
  const ocr = Number(r.ocr) === 1;
  if (Number(r.unknown) !== 1) return { ...page, text: String(r.page_text), ocr };
  return { ...page, text: await pageOfOlderRow(db, input), ocr };
}

/**
 * A page of a document stored before migration 023 with a character outside the BMP: read whole
 * once, its code-point starts kept (unless the text changed meanwhile), so the next read is cut
 * out by the database like any other.
 */
async function pageOfOlderRow(db: Client, input: { documentId: string; page: number }): Promise<string> {
  const rs = await db.execute({
    sql: `SELECT t.text, t.page_starts, d.characters FROM documents d JOIN document_texts t ON t.document_id = d.id
          WHERE d.id = ?`,
    args: [input.documentId],
  });
  const r = rs.rows[0];
  if (!r) throw documentNotFound();
  const text = String(r.text);
  const starts = (JSON.parse(String(r.page_starts)) as unknown[]).map(Number);
  const ends = [...starts.slice(1).map((s) => s - 2), text.length];
  const cp: number[] = [];
  let points = 0;
  starts.forEach((start, i) => {
    cp.push(points);
    points += codePoints(text.slice(start, ends[i])) + 2;
  });
  await db.execute({
    sql: `UPDATE document_texts SET page_starts_cp = ?
           WHERE document_id = ? AND page_starts_cp IS NULL AND page_starts = ?
             AND EXISTS (SELECT 1 FROM documents WHERE id = ? AND characters = ?)`,
    args: [
      JSON.stringify(cp),
      input.documentId,
      String(r.page_starts),
      input.documentId,
      Number(r.characters),
    ],
  });
  return text.slice(starts[input.page - 1], ends[input.page - 1]);
}
