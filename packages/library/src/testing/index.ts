/**
 * `@sponge/library/testing`: helpers for tests of the library and of the apps that use it. Source
 * only, never built (tsconfig.build.json leaves this folder out), never loaded by product code.
 *
 * - a fresh database of the library alone (a temp file, or a libSQL server with
 *   TEST_DATABASES=sqld);
 * - PDFs with pages of given boxes and small scans, for the PDF and OCR threads;
 * - the relevance set and its measures (relevance/README.md);
 * - the words OCR writes on a document, to compare with, and how long an upload's extraction may
 *   go unbeaten before it is taken for a dead process's.
 */
export { openTestDatabase } from './database.ts';
export type { TestDatabase } from './database.ts';
export { makePageBoxPdf, makeSmallScanPdf } from './page-box-pdf.ts';
export type { PageBox } from './page-box-pdf.ts';
export { OCR_MESSAGES } from '../ocr/messages.ts';
export { EXTRACTION_STALE_MS } from '../uploads/extraction-store.ts';
export {
  documentRanking,
  formatTable,
  loadRelevanceSet,
  ndcgAt,
  reciprocalRankAt,
  score,
  successAt,
} from './relevance-set.ts';
export type { JudgedQuery, QueryKind, RelevanceDocument, RelevanceSet, Scores } from './relevance-set.ts';
