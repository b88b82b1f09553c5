/**
 * What an owner reads when an upload is refused (SPEC §6b). One place, so the main thread and the
 * PDF thread say the same thing in the same words.
 *
 * Loaded by the PDF thread with Node's type stripping: erasable TypeScript only (no enums,
 * namespaces or parameter properties).
 */

/** 2000000 → "2,000,000", the way the contract's own messages write limits. */
export function formatCount(n: number): string {
  return n.toLocaleString('en');
}

export const MESSAGES = {
  notADocument: 'This file is not a PDF, plain text or Markdown document.',
  emptyText: 'This file has no text.',
  passwordProtected: 'This PDF is password-protected; remove the password and upload it again.',
  damaged: 'This PDF is damaged or incomplete and cannot be read.',
  noPages: 'This PDF has no pages.',
  noTextLayer: 'This PDF has no text layer — scanned pages need OCR first.',
  outOfMemory: 'This PDF needs more memory to read than an upload may use.',
  tooSlow: (timeoutMs: number) =>
    `This PDF took too long to read (more than ${formatCount(timeoutMs / 1000)} seconds); ` +
    'it may be damaged or unusually complex.',
  tooManyPages: (pages: number, limit: number) =>
    `This PDF has ${formatCount(pages)} pages; the limit is ${formatCount(limit)}.`,
  /** The PDF thread stops reading at the limit, so it cannot say how far past it the text goes. */
  pdfTooLong: (limit: number) =>
    `This PDF has more than ${formatCount(limit)} characters of text; the limit is ${formatCount(limit)}.`,
  textTooLong: (chars: number, limit: number) =>
    `This document has ${formatCount(chars)} characters; the limit is ${formatCount(limit)}.`,
} as const;
