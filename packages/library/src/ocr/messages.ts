/**
 * What an owner reads about OCR (SPEC §6b): in the document's state and on its page. One place,
 * so the OCR thread, the store and the tests say the same thing.
 *
 * Loaded by the OCR thread with Node's type stripping: erasable TypeScript only.
 */
export const OCR_MESSAGES = {
  /** The document page's mark on a page whose text came from OCR. */
  recognised: 'text recognised by OCR — check it against the scan',
  noText:
    'No text found: this PDF has no text layer, and OCR found no text in its pages either (a blank or unreadable scan).',
  pageCap: (limit: number, pages: number) =>
    `OCR stopped after ${limit} ${limit === 1 ? 'page' : 'pages'} (OCR_MAX_PAGES); ${pages - limit} more scanned ${pages - limit === 1 ? 'page was' : 'pages were'} not read.`,
  pageTimeout: (pages: readonly number[], seconds: number) =>
    `OCR gave up on ${pages.length === 1 ? 'page' : 'pages'} ${pages.join(', ')} after ${seconds} s each (OCR_PAGE_SECONDS).`,
  pageFailed: (pages: readonly number[]) =>
    `OCR could not render ${pages.length === 1 ? 'page' : 'pages'} ${pages.join(', ')}.`,
  /** The limits of page-fit.ts, in the words of a person holding the paper. */
  pageSize: (pages: readonly number[]) =>
    `OCR did not read ${pages.length === 1 ? 'page' : 'pages'} ${pages.join(', ')}: ` +
    `${pages.length === 1 ? 'its size is' : 'their sizes are'} not one a PDF page may have ` +
    '(3 points to 200 inches a side).',
  pageMemory: (pages: readonly number[]) =>
    `OCR gave up on ${pages.length === 1 ? 'page' : 'pages'} ${pages.join(', ')}: reading ` +
    `${pages.length === 1 ? 'it' : 'them'} needed more memory than OCR may use.`,
  /** Nothing found, and not every page was read: the notes after it say which and why. */
  noTextUnread: 'No text found: this PDF has no text layer, and OCR could not read all of its pages.',
} as const;
