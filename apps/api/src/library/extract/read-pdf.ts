/**
 * Reads a PDF's text, page by page, with pdf.js (through unpdf). This runs on a thread of its own
 * (pdf-worker.ts): a hostile or broken file can make pdf.js slow or hungry, and the thread can be
 * stopped and its memory capped where the API's own event loop could not.
 *
 * Loaded by that thread with Node's type stripping: erasable TypeScript only (no enums,
 * namespaces or parameter properties), and type-only imports from packages.
 */
import { getDocumentProxy } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import type { DocumentReason } from '@sponge/contract';
import { MESSAGES } from './messages.ts';
import { cleanPdfText, hasText } from './text.ts';

export interface PdfJob {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
}

export type PdfOutcome =
  /** `scanned`: the pages without a text layer (1-based), for OCR to read later (library/ocr/). */
  | { ok: true; pages: string[]; scanned: number[]; title: string | null }
  | { ok: false; reason: DocumentReason; message: string };

const refuse = (reason: DocumentReason, message: string): PdfOutcome => ({ ok: false, reason, message });

/**
 * The PDF's text, or why it cannot be had. Every failure of pdf.js on the file becomes an outcome
 * rather than a throw: whatever pdf.js throws on a document (its own exception classes, a
 * TypeError deep in a broken object graph) is the document's fault, not ours.
 */
export async function readPdf(job: PdfJob): Promise<PdfOutcome> {
  let pdf: PDFDocumentProxy;
  try {
    pdf = await getDocumentProxy(job.bytes, {
      // pdf.js prints "Warning: …" for every oddity it recovers from; the outcome says enough.
      verbosity: 0,
    });
  } catch (error) {
    return failure(error);
  }
  try {
    return await readOpened(pdf, job);
  } catch (error) {
    return failure(error);
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

async function readOpened(pdf: PDFDocumentProxy, job: PdfJob): Promise<PdfOutcome> {
  // The page count is in the page tree's root: known before any page is parsed, so a 50,000-page
  // file is refused before it costs more than opening.
  const count = pdf.numPages;
  if (count === 0) return refuse('invalid_document', MESSAGES.noPages);
  if (count > job.maxPages) return refuse('too_large', MESSAGES.tooManyPages(count, job.maxPages));

  // One page at a time (unpdf's extractText asks for all pages at once): memory stays at one
  // page's content, and reading stops as soon as the text passes the limit.
  const pages: string[] = [];
  let chars = 0;
  for (let n = 1; n <= count; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    page.cleanup();
    // Items end with hasEOL where pdf.js saw the line end; keeping it keeps the lines.
    let raw = '';
    for (const item of content.items) if ('str' in item) raw += item.hasEOL ? `${item.str}\n` : item.str;
    const text = cleanPdfText(raw);
    chars += text.length;
    if (chars > job.maxChars) return refuse('too_large', MESSAGES.pdfTooLong(job.maxChars));
    pages.push(text);
  }
  // A page without a text layer (a scan) is not refused: OCR reads it in the background.
  const scanned = pages.flatMap((text, i) => (hasText(text) ? [] : [i + 1]));
  return { ok: true, pages, scanned, title: await readTitle(pdf) };
}

/** The Info dictionary's Title, else XMP's dc:title; null when neither is a string. */
async function readTitle(pdf: PDFDocumentProxy): Promise<string | null> {
  try {
    const { info, metadata } = await pdf.getMetadata();
    const fromInfo: unknown = (info as Record<string, unknown> | undefined)?.Title;
    if (typeof fromInfo === 'string' && hasText(fromInfo)) return fromInfo;
    const fromXmp: unknown = metadata?.get('dc:title');
    return typeof fromXmp === 'string' ? fromXmp : null;
  } catch {
    // A broken Info dictionary costs the title, not a document whose pages read fine.
    return null;
  }
}

function failure(error: unknown): PdfOutcome {
  // pdf.js's PasswordException: a user password is needed (or was wrong). The bundle carries two
  // copies of its exception classes (its display and worker halves) and rebuilds exceptions by
  // name between them, so the name is the reliable test.
  if ((error as { name?: unknown } | null)?.name === 'PasswordException')
    return refuse('invalid_document', MESSAGES.passwordProtected);
  return refuse('invalid_document', MESSAGES.damaged);
}
