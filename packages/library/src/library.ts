/**
 * The owner's library as one unit the API holds (SPEC §6b): adding documents, uploads with their
 * document in view while the text is extracted, the background indexer and the per-owner search
 * index, wired so that a document becoming ready refreshes its owner's index.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { SPONGE_LIMITS, cleanLine } from '@sponge/contract';
import type { DocumentSource } from '@sponge/contract';
import {
  documentChunkCount,
  getDocumentOwnership,
  joinPages,
  getVisibleDocument,
  insertDocumentWithinQuotasStatements,
} from './documents/documents.ts';
import type { DocumentRecord, IndexStatus } from './documents/documents.ts';
import {
  cleanMetadata,
  contentSha256,
  describeStatements,
  duplicateError,
  findDuplicate,
  mergeMetadata,
  refusingDuplicates,
} from './documents/metadata.ts';
import type { CleanMetadata, MetadataInput } from './documents/metadata.ts';
import { libraryUsage, quotaError } from './documents/quotas.ts';
import { updateDocument } from './documents/update.ts';
import type { DocumentPatch } from './documents/update.ts';
import type { LibraryQuotas } from './documents/quotas.ts';
import { LIVE_DOCUMENT } from './documents/rules.ts';
import { LibraryError, documentNotFound } from './errors.ts';
import { extractDocument } from './extract/extract.ts';
import { DocumentRejected } from './extract/index.ts';
import type { ExtractedDocument } from './extract/index.ts';
import { formatCount } from './extract/messages.ts';
import { MAX_PDF_THREADS } from './extract/pdf-thread.ts';
import { normaliseLines } from './extract/text.ts';
import { DEFAULT_LIBRARY_QUOTAS, DEFAULT_OCR_LIMITS, DEFAULT_UPLOAD_QUEUE } from './limits.ts';
import { DEFAULT_OCR_LANGUAGES, resolveOcrLanguages } from './ocr/languages.ts';
import { OCR_MESSAGES } from './ocr/messages.ts';
import { insertOcrJobStatement } from './ocr/ocr-store.ts';
import { createRecognizer } from './ocr/recognizer.ts';
import type { OcrSettings, Recognizer } from './ocr/recognizer.ts';
import { requeue } from './search/index-store.ts';
import { createIndexer } from './search/indexer.ts';
import type { Indexer, IndexerLog } from './search/indexer.ts';
import { createLibrarySearch } from './search/search.ts';
import type { LibrarySearch } from './search/search.ts';
import {
  EXTRACTION_BEAT_MS,
  EXTRACTION_PROGRESS_MS,
  EXTRACTION_STALE_MS,
  beginExtractionStatements,
  discardExtraction,
  finishExtractionStatements,
  sweepStaleExtractions,
  writeExtractionProgress,
} from './uploads/extraction-store.ts';
import { createQueueLedger } from './uploads/queue-ledger.ts';
import { createExtractionQueue } from './uploads/upload-queue.ts';
import type { ExtractionQueue } from './uploads/upload-queue.ts';

/** An uploaded file as the library takes it: the form read and checked, not yet extracted. */
export interface UploadFile {
  bytes: Uint8Array;
  filename: string;
  mediaType: string;
  /** The form's title field, cleaned; undefined when none was given. */
  title: string | undefined;
  /** The title from the file's name: the document's while its text is extracted, and after it when the file has none of its own. */
  fallbackTitle: string;
}

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
  /**
   * What the caller says the document is (an import's entry): its title and authors win over
   * the fields above, and its year, DOI, venue, abstract and tags are kept (SPEC §6d).
   */
  metadata?: MetadataInput;
  /** A PDF's pages without a text layer (1-based), and the file, for OCR (library/ocr/). */
  scan?: { pdf: Uint8Array; pages: number[] };
}

/**
 * A document pasted as text or Markdown (`documents.add`) as the library stores it: its lines
 * cleaned as an uploaded text file's are, without the blank space around it.
 */
export function pastedDocument(input: {
  title: string;
  authors?: string[] | undefined;
  format?: 'text' | 'markdown' | undefined;
  text: string;
}): NewLibraryDocument {
  return {
    title: input.title,
    authors: input.authors ?? [],
    source: input.format ?? 'text',
    pages: [normaliseLines(input.text).trim()],
  };
}

export interface Library {
  indexer: Indexer;
  /** Reads scanned pages in the background, then hands the document to the indexer. */
  recognizer: Recognizer;
  search: LibrarySearch;
  /** Whose uploaded PDF is read next (SPEC §6b "Fair and bounded"). */
  uploads: ExtractionQueue;
  /**
   * Stores a document for its owner and queues it for indexing; `quota` (nothing stored) when
   * the owner's library would pass a quota with it, `duplicate` (with `existingId`, nothing
   * stored) when the owner has a live document of the same text or DOI. Per-document limits are
   * checked by the caller.
   */
  add(ownerId: string, doc: NewLibraryDocument, now: Date): Promise<AddedDocument>;
  /**
   * Adds an uploaded file (SPEC §6b). Its document is stored at once, without text, and reads as
   * `extracting` (page n of m as a PDF's thread reads it) while the file waits for its turn in
   * `uploads` and is read; then it gets its text and goes on as an added document does. Any
   * refusal or failure, the request ending (`signal`: `aborted`) or the owner removing the
   * document meanwhile (`not_found`) deletes it again: nothing is left behind. A file refused for
   * what it is: `invalid_document`, `no_text` or `too_large`; the queue full: `busy`. The same
   * file (SHA-256, checked before it is read) or DOI (after) as a live document of the owner's:
   * `duplicate` with `existingId`. `metadata` (an import's entry) wins over what the file says.
   */
  upload(
    ownerId: string,
    file: UploadFile,
    options?: { signal?: AbortSignal; metadata?: MetadataInput },
  ): Promise<AddedDocument>;
  /**
   * Sends one of the owner's documents whose indexing failed back to the indexer: its indexing
   * state now (null if removed meanwhile). `not_found` for anything but the owner's own live document; `invalid_input`, in
   * words, for one still extracting, one with no text at all, and one that did not fail.
   */
  reindex(ownerId: string, documentId: string): Promise<IndexStatus | null>;
  /**
   * The owner's edit of what a document is (SPEC §6d), answered with the document as it now
   * stands: documents/update.ts says what each refusal is. A changed title or abstract is indexed
   * again.
   */
  update(ownerId: string, documentId: string, patch: DocumentPatch): Promise<DocumentRecord>;
  /** Deletes the documents of uploads that processes which died left extracting; how many. */
  sweepExtractions(): Promise<number>;
  /** `quota` when the owner's library is already full, before an upload is read at all. */
  checkRoom(ownerId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The library on an application database whose schema it is part of (its migrations applied, and
 * `prepareDocumentIndex` run for `adapter`).
 *
 * @example
 * const library = createLibrary({ db, adapter, log });
 * const { id } = await library.add('user-ada', { title: 'Notes', authors: [], source: 'text', pages: ['…'] }, new Date());
 * await library.indexer.idle();
 * const hits = await library.search.search('user-ada', 'kelp forests', 10);
 * await library.close();
 */
export function createLibrary(options: {
  db: Client;
  adapter: EmbeddingAdapter;
  log: IndexerLog;
  quotas?: LibraryQuotas;
  uploadQueue?: { maxWaiting: number; maxWaitSeconds: number; readSeconds: number };
  /** OCR's languages and limits (OCR_LANGUAGES, OCR_MAX_PAGES, OCR_PAGE_SECONDS); default English. */
  ocr?: OcrSettings;
  /**
   * EMBEDDINGS_SIMILARITY_FLOOR: from which similarity search finds a passage by meaning alone, for
   * an adapter whose floor was not measured (a measured one wins; search/calibration.ts).
   */
  similarityFloor?: number;
  /**
   * The app's own tables whose rows (by `document_id`) an owner may tie to a document while its
   * upload is still extracting: they go with a refused upload, as the library's own shares and
   * publication do (Sponge: `document_profiles`).
   */
  attachedTables?: readonly string[];
  /** The clock uploads are stamped with (and stale ones judged by), and OCR's and indexing's leases; tests move it. */
  now?: () => Date;
}): Library {
  const now = options.now ?? (() => new Date());
  const search = createLibrarySearch(options);
  // The owner's library version moves with every ready document, so search re-syncs by itself;
  // nothing to do on ready here.
  const indexer = createIndexer({ ...options, now });
  const ocr = options.ocr ?? defaultOcrSettings();
  const recognizer = createRecognizer({
    db: options.db,
    settings: ocr,
    log: options.log,
    now,
    onRecognised: () => indexer.kick(),
  });
  const quotas = options.quotas ?? DEFAULT_LIBRARY_QUOTAS;
  const queue = options.uploadQueue ?? DEFAULT_UPLOAD_QUEUE;
  const readMs = queue.readSeconds * 1000;
  const uploads = createExtractionQueue({
    slots: MAX_PDF_THREADS,
    maxWaiting: queue.maxWaiting,
    maxWaitMs: queue.maxWaitSeconds * 1000,
    jobTimeoutMs: readMs,
  });
  // What one process's queue cannot see: the same rules over every process on the database.
  const ledger = createQueueLedger({
    db: options.db,
    now,
    maxWaiting: queue.maxWaiting,
    maxWaitMs: queue.maxWaitSeconds * 1000,
    jobTimeoutMs: readMs,
  });
  // Uploads under way: close() waits for each to store or delete its document.
  const uploading = new Set<Promise<unknown>>();
  const attached = options.attachedTables ?? [];
  const sweepExtractions = () => sweepStaleExtractions(options.db, now(), attached);
  // Another process's upload is only taken for dead once it has gone unbeaten for the stale time:
  // looking again at that pace deletes a dead one within twice that.
  const sweeper = setInterval(() => {
    sweepExtractions().catch((err: unknown) =>
      options.log.warn({ err }, 'sweeping uploads left by a stopped process failed'),
    );
  }, EXTRACTION_STALE_MS);
  sweeper.unref();

  async function upload(
    ownerId: string,
    file: UploadFile,
    signal: AbortSignal | undefined,
    metadata: MetadataInput | undefined,
  ): Promise<AddedDocument> {
    // The same file again is refused before it is read or queued (SPEC §6d): nothing is stored.
    const sha256 = contentSha256(file.bytes);
    const same = await findDuplicate(options.db, ownerId, { sha256 });
    if (same) throw duplicateError(same);
    let begun: { id: string; tracker: ExtractionTracker } | undefined;
    // Aborted when the document is gone (removed by its owner): reading it on is wasted.
    const gone = new AbortController();
    const stop = signal ? AbortSignal.any([signal, gone.signal]) : gone.signal;
    try {
      let extracted;
      try {
        extracted = await extractDocument(
          { bytes: file.bytes, filename: file.filename, mediaType: file.mediaType },
          {
            timeoutMs: readMs,
            begin: async (source) => {
              const id = newDocumentId();
              const title = file.title ?? file.fallbackTitle;
              const [rs] = await refusingDuplicates(options.db, ownerId, { sha256 }, () =>
                options.db.batch(
                  beginExtractionStatements({ id, ownerId, title, source, sha256 }, now(), quotas),
                  'write',
                ),
              );
              if (!rs) throw new Error('the database answered a batch with no results');
              if (rs.rowsAffected === 0) {
                const usage = await libraryUsage(options.db, ownerId);
                throw quotaError(quotas, usage, { characters: 1, chunks: 1 });
              }
              begun = { id, tracker: trackExtraction(id, () => gone.abort(documentNotFound())) };
            },
            schedule: async (read) => {
              if (!begun) throw new Error('a PDF was scheduled before its document was stored');
              const { id } = begun;
              await ledger.admit(id, ownerId, uploads.stats().running < MAX_PDF_THREADS);
              return uploads.run(
                ownerId,
                async (signal) => {
                  await ledger.claim(id, ownerId, signal);
                  try {
                    return await read(signal);
                  } finally {
                    await ledger.release(id).catch((err: unknown) =>
                      // It stops counting once its row is deleted, or no longer beaten.
                      options.log.warn({ err, documentId: id }, 'leaving the extraction queue failed'),
                    );
                  }
                },
                stop,
              );
            },
            onProgress: (done, total) => begun?.tracker.progress(done, total),
          },
        );
      } catch (err) {
        if (gone.signal.aborted) throw gone.signal.reason;
        if (signal?.aborted) throw clientGone();
        throw err instanceof DocumentRejected ? new LibraryError(err.reason, err.message) : err;
      }
      const doc = uploadedDocument(extracted, file, metadata);
      if (!begun) throw new Error('an upload was read without its document being stored');
      await begun.tracker.stop();
      const sameDoi = await findDuplicate(options.db, ownerId, { doi: doc.metadata.doi }, begun.id);
      if (sameDoi) throw duplicateError(sameDoi);
      // Nobody is left to hear that it was added.
      if (signal?.aborted) throw clientGone();
      return await finishUpload(begun.id, ownerId, doc);
    } catch (err) {
      if (begun) {
        await begun.tracker.stop();
        await discardExtraction(options.db, begun.id, attached).catch((e: unknown) =>
          // Left extracting: a sweep deletes it once it has gone unbeaten for the stale time.
          options.log.warn({ err: e, documentId: begun?.id }, 'deleting a refused upload failed'),
        );
      }
      throw err;
    }
  }

  /** The extracted text into the upload's document, which then goes on to OCR or indexing. */
  async function finishUpload(id: string, ownerId: string, doc: UploadedDocument): Promise<AddedDocument> {
    const characters = documentCharacters(doc.pages);
    if (characters > SPONGE_LIMITS.documentChars)
      throw new LibraryError(
        'too_large',
        `The document has more than ${formatCount(SPONGE_LIMITS.documentChars)} characters of text.`,
      );
    const abstract = doc.metadata.abstract ?? '';
    const row = {
      id,
      ownerId,
      title: doc.title,
      authors: doc.authors,
      abstract,
      source: doc.source,
      pages: doc.pages,
    };
    const scanned = doc.scan ? scanJob(id, ownerId, doc.scan, ocr.maxPages, now()) : [];
    const added = { sql: 'NOT EXISTS (SELECT 1 FROM extraction_jobs WHERE document_id = ?)', args: [id] };
    const described = describeStatements({ ...row, sha256: null, metadata: doc.metadata }, added);
    const [rs] = await refusingDuplicates(
      options.db,
      ownerId,
      { doi: doc.metadata.doi },
      () => options.db.batch([...finishExtractionStatements(row, quotas), ...described, ...scanned], 'write'),
      id,
    );
    if (!rs) throw new Error('the database answered a batch with no results');
    if (rs.rowsAffected === 0) {
      const live = await options.db.execute({ sql: `SELECT ${LIVE_DOCUMENT} AS live`, args: [id] });
      // Removed by its owner while its text was read.
      if (!Number(live.rows[0]?.live)) throw documentNotFound();
      const usage = await libraryUsage(options.db, ownerId);
      // The document itself is counted already: the quota named is what it would add.
      throw quotaError(
        quotas,
        { ...usage, documents: usage.documents - 1 },
        { characters, chunks: documentChunkCount({ title: doc.title, abstract, pages: doc.pages }) },
      );
    }
    if (scanned.length > 0) recognizer.kick();
    else indexer.kick();
    return { id, title: doc.title, pages: doc.pages.length, characters };
  }

  /**
   * Writes an extraction's progress at most every EXTRACTION_PROGRESS_MS, the newest figures
   * winning, and beats its job row every EXTRACTION_BEAT_MS meanwhile. `onGone` is called when
   * the document is found gone.
   */
  function trackExtraction(id: string, onGone: () => void): ExtractionTracker {
    let latest = { done: 0, total: 0 };
    let dirty = false;
    let stopped = false;
    let lastWrite = -Infinity;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let writing: Promise<void> | undefined;
    const write = () => {
      timer = undefined;
      if (stopped) return;
      dirty = false;
      lastWrite = performance.now();
      writing = writeExtractionProgress(options.db, id, latest, now())
        .then(
          (alive) => {
            if (!alive) onGone();
          },
          (err: unknown) => options.log.warn({ err, documentId: id }, 'writing upload progress failed'),
        )
        .finally(() => {
          writing = undefined;
          if (dirty) schedule();
        });
    };
    const schedule = () => {
      if (stopped || timer !== undefined || writing !== undefined) return;
      timer = setTimeout(write, Math.max(0, lastWrite + EXTRACTION_PROGRESS_MS - performance.now()));
    };
    const beat = setInterval(() => {
      dirty = true;
      schedule();
    }, EXTRACTION_BEAT_MS);
    beat.unref();
    return {
      progress(done, total) {
        latest = { done, total };
        dirty = true;
        schedule();
      },
      async stop() {
        stopped = true;
        clearInterval(beat);
        clearTimeout(timer);
        await writing;
      },
    };
  }

  return {
    indexer,
    recognizer,
    search,
    uploads,
    async add(ownerId, doc, now) {
      const id = newDocumentId();
      const metadata = cleanMetadata(doc.metadata);
      const title = metadata.title ?? doc.title;
      const authors = metadata.authors ?? doc.authors;
      const row = { id, ownerId, title, authors, abstract: metadata.abstract ?? '', pages: doc.pages };
      const by = { sha256: contentSha256(joinPages(doc.pages).text), doi: metadata.doi ?? null };
      const same = await findDuplicate(options.db, ownerId, by);
      if (same) throw duplicateError(same);
      const scanned = doc.scan ? scanJob(id, ownerId, doc.scan, ocr.maxPages, now) : [];
      const [rs] = await refusingDuplicates(options.db, ownerId, by, () =>
        options.db.batch(
          [
            ...insertDocumentWithinQuotasStatements({ ...row, source: doc.source }, now, quotas),
            ...describeStatements({ ...row, sha256: by.sha256, metadata }),
            ...scanned,
          ],
          'write',
        ),
      );
      if (!rs) throw new Error('the database answered a batch with no results');
      const characters = documentCharacters(doc.pages);
      if (rs.rowsAffected === 0) {
        const usage = await libraryUsage(options.db, ownerId);
        throw quotaError(quotas, usage, { characters, chunks: documentChunkCount(row) });
      }
      if (scanned.length > 0) recognizer.kick();
      else indexer.kick();
      return { id, title, pages: doc.pages.length, characters };
    },
    upload(ownerId, file, opts = {}) {
      const p = upload(ownerId, file, opts.signal, opts.metadata);
      const settled = p.catch(() => undefined).finally(() => uploading.delete(settled));
      uploading.add(settled);
      return p;
    },
    sweepExtractions,
    async update(ownerId, documentId, patch) {
      const { document, reindex } = await updateDocument(options.db, ownerId, documentId, patch, quotas);
      if (reindex) indexer.kick();
      return document;
    },
    async reindex(ownerId, documentId) {
      const owned = await getDocumentOwnership(options.db, documentId);
      if (!owned || owned.removedAt !== null || owned.ownerId !== ownerId) throw documentNotFound();
      if (owned.extracting)
        throw new LibraryError(
          'invalid_input',
          'This document has no text yet: it is still being extracted, then indexed.',
        );
      const queued = await requeue(options.db, documentId);
      if (queued === 'no_text')
        throw new LibraryError(
          'invalid_input',
          'This document has no text to index: neither its text layer nor OCR found any.',
        );
      if (!queued)
        throw new LibraryError(
          'invalid_input',
          'documentId: only a document whose indexing failed can be indexed again.',
        );
      indexer.kick();
      // Null only when removed meanwhile.
      return (await getVisibleDocument(options.db, ownerId, documentId))?.index ?? null;
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
      clearInterval(sweeper);
      await uploads.close();
      await Promise.all(uploading);
      await recognizer.stop();
      await indexer.stop();
      search.close();
    },
  };
}

/** An upload's document once its file is read, with what the file and the caller say it is. */
type UploadedDocument = NewLibraryDocument & { metadata: CleanMetadata };

/**
 * The extracted file as a document: its title is the caller's (an import's entry, then the title
 * field), else what the PDF says (its metadata, then its Title), else the file name's.
 */
function uploadedDocument(
  extracted: ExtractedDocument,
  file: UploadFile,
  given: MetadataInput | undefined,
): UploadedDocument {
  // What the PDF says (extract/, SPEC §6d) is cleaned as the caller's is: it comes from the file.
  const metadata = mergeMetadata(extracted.metadata, { ...given, title: given?.title ?? file.title });
  // A PDF's own title and a file name lose control and bidi characters as a typed title does
  // (SPEC §6c); the title field was cleaned by its schema.
  const pdfTitle = extracted.title === null ? '' : cleanLine(extracted.title).trim();
  const title = (metadata.title ?? (pdfTitle || file.fallbackTitle)).slice(0, SPONGE_LIMITS.titleChars);
  // Scanned pages are read by OCR after the upload has answered (library/ocr/), from the file.
  const scan = extracted.scanned.length > 0 ? { pdf: file.bytes, pages: extracted.scanned } : undefined;
  return {
    title,
    authors: metadata.authors ?? [],
    source: extracted.source,
    pages: extracted.pages,
    metadata,
    ...(scan ? { scan } : {}),
  };
}

interface ExtractionTracker {
  progress(done: number, total: number): void;
  /** No more writes; resolves once the one under way, if any, has ended. */
  stop(): Promise<void>;
}

/** What an upload whose request was closed answers (nobody reads it). */
const clientGone = () =>
  new LibraryError('aborted', 'The upload was closed by its client before its text was read.');

/** A new document's id: a readable prefix and a UUID. */
const newDocumentId = () => `doc_${randomUUID().replace(/-/g, '')}`;

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
function documentCharacters(pages: readonly string[]): number {
  return pages.reduce((n, p) => n + p.length, 0) + 2 * Math.max(0, pages.length - 1);
}
