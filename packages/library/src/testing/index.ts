/**
 * `@sponge/library/testing`: what tests of the apps and the bench take from the library's test
 * helpers. Source only, never built (tsconfig.build.json leaves this folder out), never loaded by
 * product code. The library's own tests import the helpers of this folder directly (a fresh
 * database of the library alone, PDFs of given page boxes and small scans).
 *
 * - a fresh database of the library alone, a libSQL server with TEST_DATABASES=sqld (reviewed
 *   knowledge's tests stand on it);
 * - the relevance set and its measures (relevance/README.md);
 * - the words OCR writes on a document, to compare with, and how long an upload's extraction may
 *   go unbeaten before it is taken for a dead process's.
 */
export { OCR_MESSAGES } from '../ocr/messages.ts';
export { openTestDatabase } from './database.ts';
export { EXTRACTION_STALE_MS } from '../uploads/extraction-store.ts';
export { documentRanking, loadRelevanceSet, score } from './relevance-set.ts';
export type { JudgedQuery, QueryKind, Scores } from './relevance-set.ts';
