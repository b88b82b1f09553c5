/**
 * `@sponge/library`: Sponge's library (SPEC §6b, §6c) as a domain of its own — documents and who
 * may read them, uploads read on threads (PDF text, OCR of scans), the keyword and vector indexes
 * with their background indexer, hybrid search, reading passages and checking quotes. It runs on
 * a libSQL client the app hands in, on tables the app's migration list takes from
 * `LIBRARY_MIGRATIONS`; it knows nothing of HTTP or tRPC, and every refusal is a `LibraryError`
 * with a stable reason. This file is the whole public API: what it does not export is private.
 *
 * The types tagged `@public` are those of what the library takes and returns. Few are imported by
 * name, but an app's declarations must be able to name them from here: the API's AppRouter type
 * is inferred from procedures that return them, and its build fails where one cannot be named
 * (TS2742, TS4023). The unused-code check (knip) cannot see that use, hence the tag.
 */

// The library as one unit: adding, uploads, the indexer, OCR and search, wired together.
export { createLibrary, pastedDocument } from './library.ts';
/** @public */
export type { AddedDocument, Library, NewLibraryDocument, UploadFile } from './library.ts';
export { LibraryError, isLibraryError } from './errors.ts';
export type { LibraryReason } from './errors.ts';

// Its tables: the migration entries the app's list takes, the library alone, and the index.
export { LIBRARY_MIGRATIONS } from './migrations.ts';
export type { LibrarySchema } from './migrations.ts';
export { addOwner, openLibraryDatabase } from './alone.ts';
export { prepareDocumentIndex } from './search/index-store.ts';

// Documents: who may read which, adding one directly, publishing, removing, the app's checks.
export {
  getDocumentOwnership,
  getOwnDocument,
  getVisibleDocument,
  insertDocument,
  listOrder,
  listVisibleDocuments,
  liveTitles,
  publishDocument,
  removeDocument,
  setMemoryInStagedRuns,
} from './documents/documents.ts';
/** @public */
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
/** @public */
export type { LibraryQuotas } from './documents/quotas.ts';
// What a document is (SPEC §6d): what a caller says of it, and the owner's edit of it.
/** @public */
export type { CleanMetadata, MetadataInput } from './documents/metadata.ts';
/** @public */
export type { DocumentPatch } from './documents/update.ts';

// References (SPEC §6d): an import from a reference manager, and citations out.
export { importFromForm } from './references/import.ts';
/** @public */
export type { ImportResult } from './references/import.ts';
export { citeDocuments } from './references/cite.ts';

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
/** @public */
export type { NewInvite, ShareEntry, ShareState, ShareView } from './documents/sharing.ts';

// Reading: a passage at a time, one page, what a document is made of.
export { readOwnPassage, readVisiblePage } from './documents/reading.ts';
/** @public */
export type { DocumentPage, PassageRequest } from './documents/reading.ts';
export { documentOutline } from './documents/outline.ts';
/** @public */
export type { OutlineEntry } from './documents/outline.ts';
// Judging what a reply cites: a quote on its page, a note the session holds, support kept or not.
export { judgeCitations, nameAt } from './documents/citations.ts';
export type { StoredCitation } from './documents/citations.ts';

// Search and its indexes.
/** @public */
export type {
  DocumentHit,
  KeywordCandidate,
  LibrarySearch,
  Ranked,
  SearchLists,
  SearchMode,
  SearchOptions,
} from './search/search.ts';
/** @public */
export type { Indexer, IndexerLog } from './search/indexer.ts';
export { OwnerVectorIndex } from './search/vector-index.ts';
export { repairLibrary, verifyLibrary } from './search/verify.ts';
export type { LibraryVerification } from './search/verify.ts';
// The floor and the scores' weights the relevance set measured for an embedding model, if it did.
export { calibrationFor } from './search/calibration.ts';
/** @public */
export type { SearchCalibration } from './search/calibration.ts';
/** @public */
export type { OcrSettings, Recognizer } from './ocr/recognizer.ts';

// What the app's tests of uploads watch: the reading threads alive in this process.
export { livePdfThreads } from './extract/pdf-thread.ts';
export { liveOcrThreads } from './ocr/ocr-thread.ts';
