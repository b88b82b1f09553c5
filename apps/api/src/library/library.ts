/**
 * The owner's library as one unit the API holds (SPEC §6b): adding documents, the background
 * indexer and the per-owner search index, wired so that a document becoming ready refreshes its
 * owner's index.
 */
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { DocumentSource } from '@sponge/contract';

import { documentChunkCount, insertDocumentWithinQuotasStatement, libraryUsage } from '../data/documents.ts';
import type { LibraryQuotas, LibraryUsage } from '../data/documents.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../tokens.ts';
import { DEFAULT_TIMEOUT_MS } from './extract/extract.ts';
import { MAX_PDF_THREADS } from './extract/pdf-thread.ts';
import { formatCount } from './extract/messages.ts';
import {
  DEFAULT_LIBRARY_QUOTAS,
  DEFAULT_OCR_LIMITS,
  DEFAULT_UPLOAD_QUEUE,
  DEFAULT_UPLOADS_IN_FLIGHT,
} from './limits.ts';
import { createIndexer } from './indexer.ts';
import type { Indexer, IndexerLog } from './indexer.ts';
import { createLibrarySearch } from './search.ts';
import type { LibrarySearch } from './search.ts';
import { DEFAULT_OCR_LANGUAGES, resolveOcrLanguages } from './ocr/languages.ts';
import { OCR_MESSAGES } from './ocr/messages.ts';
import { insertOcrJobStatement } from './ocr/ocr-store.ts';
import { createRecognizer } from './ocr/recognizer.ts';
import type { OcrSettings, Recognizer } from './ocr/recognizer.ts';
import { createExtractionQueue } from './upload-queue.ts';
import type { ExtractionQueue } from './upload-queue.ts';
import { createUploadsInFlight } from './uploads-in-flight.ts';
import type { UploadsInFlight } from './uploads-in-flight.ts';

export type { LibraryQuotas };

export interface AddedDocument {
  id: string;
  title: string;
  pages: number;
  characters: number;
}

export interface NewLibraryDocument {
  title: string;
  authors: string[];
  source: DocumentSource;
  pages: string[];
  /** A PDF's pages without a text layer (1-based), and the file, for OCR (library/ocr/). */
  scan?: { pdf: Uint8Array; pages: number[] };
}

export interface Library {
  indexer: Indexer;
  /** Reads scanned pages in the background, then hands the document to the indexer. */
  recognizer: Recognizer;
  search: LibrarySearch;
  /** Whose uploaded PDF is read next (SPEC §6b "Fair and bounded"). */
  uploads: ExtractionQueue;
  /** The cap on upload bodies being received at once (server.ts asks it). */
  inFlight: UploadsInFlight;
  /**
   * Stores a document for its owner and queues it for indexing; 429 `quota` (nothing stored) when
   * the owner's library would pass a quota with it. Per-document limits are checked by the caller.
   */
  add(ownerId: string, doc: NewLibraryDocument, now: Date): Promise<AddedDocument>;
  /** 429 `quota` when the owner's library is already full, before an upload is read at all. */
  checkRoom(ownerId: string): Promise<void>;
  close(): Promise<void>;
}

export function createLibrary(options: {
  db: Client;
  adapter: EmbeddingAdapter;
  log: IndexerLog;
  quotas?: LibraryQuotas;
  uploadQueue?: { maxWaiting: number; maxWaitSeconds: number };
  uploadsInFlight?: number;
  /** OCR's languages and limits (OCR_LANGUAGES, OCR_MAX_PAGES, OCR_PAGE_SECONDS); default English. */
  ocr?: OcrSettings;
}): Library {
  const search = createLibrarySearch(options);
  // The owner's library version moves with every ready document, so search re-syncs by itself;
  // nothing to do on ready here.
  const indexer = createIndexer(options);
  const ocr = options.ocr ?? defaultOcrSettings();
  const recognizer = createRecognizer({
    db: options.db,
    settings: ocr,
    log: options.log,
    onRecognised: () => indexer.kick(),
  });
  const quotas = options.quotas ?? DEFAULT_LIBRARY_QUOTAS;
  const queue = options.uploadQueue ?? DEFAULT_UPLOAD_QUEUE;
  const uploads = createExtractionQueue({
    slots: MAX_PDF_THREADS,
    maxWaiting: queue.maxWaiting,
    maxWaitMs: queue.maxWaitSeconds * 1000,
    jobTimeoutMs: DEFAULT_TIMEOUT_MS,
  });
  return {
    indexer,
    recognizer,
    search,
    uploads,
    inFlight: createUploadsInFlight(options.uploadsInFlight ?? DEFAULT_UPLOADS_IN_FLIGHT),
    async add(ownerId, doc, now) {
      const id = newId('doc');
      const row = { id, ownerId, title: doc.title, authors: doc.authors, abstract: '', pages: doc.pages };
      const scanned = doc.scan ? scanJob(id, ownerId, doc.scan, ocr.maxPages, now) : [];
      const [rs] = await options.db.batch(
        [insertDocumentWithinQuotasStatement({ ...row, source: doc.source }, now, quotas), ...scanned],
        'write',
      );
      if (!rs) throw new Error('the database answered a batch with no results');
      const characters = documentCharacters(doc.pages);
      if (rs.rowsAffected === 0) {
        const usage = await libraryUsage(options.db, ownerId);
        throw quotaError(quotas, usage, { characters, chunks: documentChunkCount(row) });
      }
      if (scanned.length > 0) recognizer.kick();
      else indexer.kick();
      return { id, title: doc.title, pages: doc.pages.length, characters };
    },
    async checkRoom(ownerId) {
      // Nothing added can fit once a quota is reached; the add itself checks the exact sums.
      const usage = await libraryUsage(options.db, ownerId);
      if (
        usage.documents >= quotas.documents ||
        usage.characters >= quotas.characters ||
        usage.chunks >= quotas.chunks
      )
        throw quotaError(quotas, usage, { characters: 1, chunks: 1 });
    },
    async close() {
      await uploads.close();
      await recognizer.stop();
      await indexer.stop();
      search.close();
    },
  };
}

/** 429 `quota`, naming the first limit the new document would pass (SPEC §9). */
function quotaError(
  quotas: LibraryQuotas,
  usage: LibraryUsage,
  adding: { characters: number; chunks: number },
): ApiError {
  const message =
    usage.documents + 1 > quotas.documents
      ? `Your library holds ${formatCount(usage.documents)} documents; the limit is ${formatCount(quotas.documents)} documents. Remove one to add another.`
      : usage.characters + adding.characters > quotas.characters
        ? `Your library holds ${formatCount(usage.characters)} characters of text; with this document it would pass the limit of ${formatCount(quotas.characters)} characters.`
        : `Your library holds ${formatCount(usage.chunks)} search passages (chunks); with this document's ${formatCount(adding.chunks)} it would pass the limit of ${formatCount(quotas.chunks)} chunks.`;
  return new ApiError({ code: 'TOO_MANY_REQUESTS', reason: 'quota', message });
}

/** The OCR job's rows for a document with scanned pages: at most `maxPages` of them are read. */
function scanJob(
  documentId: string,
  ownerId: string,
  scan: { pdf: Uint8Array; pages: number[] },
  maxPages: number,
  now: Date,
) {
  const pages = scan.pages.slice(0, maxPages);
  const note = scan.pages.length > maxPages ? OCR_MESSAGES.pageCap(maxPages, scan.pages.length) : null;
  return insertOcrJobStatement({ documentId, ownerId, pdf: scan.pdf, pages, note }, now);
}

/** English and the default limits, when the caller (a test, the bench) gives no configuration. */
function defaultOcrSettings(): OcrSettings {
  const resolved = resolveOcrLanguages(DEFAULT_OCR_LANGUAGES);
  if (!resolved.ok) throw new Error(`OCR: ${resolved.problems.join('; ')}`);
  return { languages: resolved.languages, ...DEFAULT_OCR_LIMITS };
}

/** Characters of a document's stored text (pages joined by a blank line), without joining them. */
export function documentCharacters(pages: readonly string[]): number {
  return pages.reduce((n, p) => n + p.length, 0) + 2 * Math.max(0, pages.length - 1);
}
