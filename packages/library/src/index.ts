/**
 * `@sponge/library`: Sponge's library (SPEC §6b, §6c) as a domain of its own — documents and who
 * may read them, uploads read on threads (PDF text, OCR of scans), the keyword and vector indexes
 * with their background indexer, hybrid search, reading passages and checking quotes. It runs on
 * a libSQL client the app hands in, on tables the app's migration list takes from
 * `LIBRARY_MIGRATIONS`; it knows nothing of HTTP or tRPC, and every refusal is a `LibraryError`
 * with a stable reason. This file is the whole public API: what it does not export is private.
 */

// The library as one unit: adding, uploads, the indexer, OCR and search, wired together.
export { createLibrary } from './library.ts';
export type { AddedDocument, Library, NewLibraryDocument, UploadFile } from './library.ts';
export { LIBRARY_REASONS, LibraryError, isLibraryError } from './errors.ts';
export type { LibraryReason } from './errors.ts';

// Its tables: the migration entries the app's list takes, the library alone, and the index.
export { LIBRARY_ALONE, LIBRARY_MIGRATIONS } from './migrations.ts';
export type { LibrarySchema } from './migrations.ts';
export { addOwner, openLibraryDatabase } from './alone.ts';
export { prepareDocumentIndex } from './search/index-store.ts';

// Documents: who may read which, adding one directly, publishing, removing, the app's checks.
export {
  getDocumentOwnership,
  getOwnDocument,
  getVisibleDocument,
  insertDocument,
  joinPages,
  listVisibleDocuments,
  liveTitles,
  publishDocument,
  removeDocument,
  setMemoryInStagedRuns,
} from './documents/documents.ts';
export type {
  Access,
  DocumentOwnership,
  DocumentRecord,
  DocumentSummary,
  IndexState,
  IndexStatus,
  NewDocument,
} from './documents/documents.ts';
export { documentSql } from './documents/rules.ts';
export type { DocumentOwner } from './documents/rules.ts';
export type { LibraryQuotas } from './documents/quotas.ts';

// Sharing: by account id at once; by email once the owner confirms or an invitation is used.
export {
  acceptInvite,
  confirmShare,
  inviteToShare,
  listShareViews,
  listShares,
  shareByEmail,
  shareDocument,
} from './documents/sharing.ts';
export type { NewInvite, ShareEntry, ShareState, ShareView } from './documents/sharing.ts';

// Reading: a passage at a time, what a document is made of, whether a quote is on a page.
export { readOwnPassage, readPassage } from './documents/reading.ts';
export type { PassageRequest } from './documents/reading.ts';
export { documentOutline } from './documents/outline.ts';
export type { OutlineEntry } from './documents/outline.ts';
export { quoteForm, quoteOnPage } from './documents/quotes.ts';

// Search and its indexes.
export type { DocumentHit, LibrarySearch, SearchMode, SearchOptions } from './search/search.ts';
export { EMBED_BATCH } from './search/indexer.ts';
export type { Indexer, IndexerLog } from './search/indexer.ts';
export { OwnerVectorIndex } from './search/vector-index.ts';
export { repairLibrary, verifyLibrary } from './search/verify.ts';
export type { LibraryVerification } from './search/verify.ts';

// Settings an app's configuration reads (also from the light entry `@sponge/library/settings`).
export {
  DEFAULT_LIBRARY_QUOTAS,
  DEFAULT_OCR_LIMITS,
  DEFAULT_UPLOAD_QUEUE,
  parseOcrLanguages,
  resolveOcrLanguages,
} from './settings.ts';
export type { OcrLanguage } from './settings.ts';
export type { OcrSettings, Recognizer } from './ocr/recognizer.ts';

// What the app's tests of uploads watch: the reading threads alive in this process.
export { livePdfThreads } from './extract/pdf-thread.ts';
export { liveOcrThreads } from './ocr/ocr-thread.ts';
