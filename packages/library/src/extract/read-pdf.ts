/**
 * Reads a PDF's text, page by page, with pdf.js (through unpdf). This runs on a thread of its own
 * (pdf-worker.ts): a hostile or broken file can make pdf.js slow or hungry, and the thread can be
 * stopped and its memory capped where the API's own event loop could not.
 *
 * Loaded by that thread with Node's type stripping: erasable TypeScript only (no enums,
 * namespaces or parameter properties), and type-only imports from packages.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocumentProxy } from 'unpdf';
import type { PDFDocumentProxy } from 'unpdf/pdfjs';
import type { DocumentReason } from '@sponge/contract';
import { assemblePages, layoutPage } from './layout.ts';
import type { PageText } from './layout.ts';
import { paperMetadata, typesetLines } from './metadata.ts';
import type { PaperMetadata, TypesetLine } from './metadata.ts';
import { MESSAGES } from './messages.ts';
import { cleanPdfText, hasText } from './text.ts';

export interface PdfJob {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
}

export type PdfOutcome =
  /**
   * `scanned`: the pages without a text layer (1-based), for OCR to read later (library/ocr/);
   * `metadata`: what the file says the paper is (metadata.ts).
   */
  | { ok: true; pages: string[]; scanned: number[]; metadata: PaperMetadata }
  | { ok: false; reason: DocumentReason; message: string };

/**
 * pdf.js's character maps and standard fonts, from the pdfjs-dist installed beside unpdf (the
 * same pdf.js version unpdf bundles): read from disk, never fetched. Without the CMaps a font
 * keyed by a CMap (UniJIS-UTF16-H, GBK-EUC-H, …: common in Japanese, Chinese and Korean papers)
 * yields no text at all. Paths, not file: URLs: pdf.js reads them with fs.readFile.
 */
const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const PDFJS_DATA = {
  cMapUrl: `${join(PDFJS_DIR, 'cmaps')}/`,
  cMapPacked: true,
  standardFontDataUrl: `${join(PDFJS_DIR, 'standard_fonts')}/`,
};

const refuse = (reason: DocumentReason, message: string): PdfOutcome => ({ ok: false, reason, message });

/** Pages read so far of the file's page count: once the count is known (0 of it), then per page. */
export type PdfProgress = (done: number, total: number) => void;

/**
 * The PDF's text, or why it cannot be had. Every failure of pdf.js on the file becomes an outcome
 * rather than a throw: whatever pdf.js throws on a document (its own exception classes, a
 * TypeError deep in a broken object graph) is the document's fault, not ours.
 */
export async function readPdf(job: PdfJob, onProgress?: PdfProgress): Promise<PdfOutcome> {
  let pdf: PDFDocumentProxy;
  try {
    pdf = await getDocumentProxy(job.bytes, {
      // pdf.js prints "Warning: …" for every oddity it recovers from; the outcome says enough.
      verbosity: 0,
      ...PDFJS_DATA,
    });
  } catch (error) {
    return failure(error);
  }
  try {
    return await readOpened(pdf, job, onProgress);
  } catch (error) {
    return failure(error);
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

async function readOpened(pdf: PDFDocumentProxy, job: PdfJob, onProgress?: PdfProgress): Promise<PdfOutcome> {
  // The page count is in the page tree's root: known before any page is parsed, so a 50,000-page
  // file is refused before it costs more than opening.
  const count = pdf.numPages;
  if (count === 0) return refuse('invalid_document', MESSAGES.noPages);
  if (count > job.maxPages) return refuse('too_large', MESSAGES.tooManyPages(count, job.maxPages));
  onProgress?.(0, count);

  // One page at a time (unpdf's extractText asks for all pages at once): memory stays at one
  // page's content, and reading stops as soon as the text passes the limit.
  const laidOut: PageText[] = [];
  let firstPageLines: TypesetLine[] = [];
  let chars = 0;
  for (let n = 1; n <= count; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    page.cleanup();
    // In reading order (layout.ts); counted with its head and foot, which may yet be dropped.
    const items = content.items.filter((item) => 'str' in item);
    const laid = layoutPage(items);
    // Where the title is typeset: the only page whose font sizes are kept.
    if (n === 1) firstPageLines = typesetLines(items);
    chars += [laid.head, ...laid.paragraphs, laid.foot].filter((t) => t !== null).join('\n\n').length;
    if (chars > job.maxChars) return refuse('too_large', MESSAGES.pdfTooLong(job.maxChars));
    laidOut.push(laid);
    onProgress?.(n, count);
  }
  const pages = assemblePages(laidOut).map(cleanPdfText);
  // A page without a text layer (a scan) is not refused: OCR reads it in the background.
  const scanned = pages.flatMap((text, i) => (hasText(text) ? [] : [i + 1]));
  return { ok: true, pages, scanned, metadata: await readMetadata(pdf, firstPageLines, pages) };
}

/** What the Info dictionary, XMP and the first pages say the paper is. */
async function readMetadata(
  pdf: PDFDocumentProxy,
  firstPageLines: TypesetLine[],
  pages: string[],
): Promise<PaperMetadata> {
  let info: Record<string, unknown> = {};
  let xmp: Record<string, unknown> = {};
  try {
    const read = await pdf.getMetadata();
    info = (read.info as Record<string, unknown> | undefined) ?? {};
    // pdf.js's XMP iterates as [name, value] pairs (typed `any`); null when the file has none.
    const properties = read.metadata as Iterable<[string, unknown]> | null;
    xmp = properties ? Object.fromEntries(properties) : {};
  } catch {
    // A broken Info dictionary or XMP packet costs what it held, not a document whose pages read
    // fine: the pages' text still gives what it can.
  }
  return paperMetadata({ info, xmp, firstPageLines, pages: pages.slice(0, 2) });
}

function failure(error: unknown): PdfOutcome {
  // pdf.js's PasswordException: a user password is needed (or was wrong). The bundle carries two
  // copies of its exception classes (its display and worker halves) and rebuilds exceptions by
  // name between them, so the name is the reliable test.
  if ((error as { name?: unknown } | null)?.name === 'PasswordException')
    return refuse('invalid_document', MESSAGES.passwordProtected);
  return refuse('invalid_document', MESSAGES.damaged);
}
