/**
 * An upload's rows while its text is extracted (migration 013, SPEC §6b): the document row is
 * stored as soon as the file is in, without text, beside an `extraction_jobs` row that makes it
 * read as `extracting` (`done` of `total` pages), so every tab of the owner's library sees it
 * coming. The indexer, OCR, search, reindex and runs leave it alone while the job row exists.
 *
 * The upload then either fills the row in and deletes the job in one batch (the document goes on
 * as any added document does: OCR or indexing), or deletes both: a refused upload leaves nothing
 * behind. The request beats the job's `alive_at` while it lives; one nobody beat for
 * EXTRACTION_STALE_MS was left by a process that died, with its request, and is swept away.
 * Several API processes may share the database, so a process never sweeps a job merely because
 * it did not start it.
 */
import type { Client, InStatement } from '@libsql/client';
import type { DocumentSource } from '@sponge/contract';
import { documentChunkCount, insertTextStatement, joinPages } from '../documents/documents.ts';
import type { LibraryQuotas } from '../documents/quotas.ts';
import { LIVE_DOCUMENT, USAGE, live } from '../documents/rules.ts';

/**
 * How often a live extraction beats its job row (progress writes beat it too). Not measured: a
 * beat is one small write; the period only has to be well inside EXTRACTION_STALE_MS.
 */
export const EXTRACTION_BEAT_MS = 5_000;

/**
 * A job not beaten for this long belongs to a process that died. Six beats: a process whose
 * writes wait behind a busy database for a while is not taken for dead. The price is how long a
 * dead process's upload stays in view after a restart: at most this plus a sweep period.
 */
export const EXTRACTION_STALE_MS = 30_000;

/** The least time between two progress writes of one extraction. */
export const EXTRACTION_PROGRESS_MS = 250;

/**
 * The library's tables holding rows of a document while it is extracting, besides its own: its
 * text's (empty until it is read) and what its owner may have tied to it meanwhile. The app's own
 * such tables (`attached`) are passed to the functions that delete them.
 */
const ATTACHED = [
  'document_texts',
  'shares',
  'share_invites',
  'email_shares',
  'publications',
  'document_tags',
] as const;

/**
 * The document of an upload whose text is about to be extracted, and its job row: written only if
 * the owner's library has room for one more document (checked as `checkRoom` checks it, in the
 * same statement, so two uploads at once cannot both take the last place). The document has no
 * pages and an empty text until `finishExtractionStatements`. Inserted (1 row) or not (0): check
 * the first result's `rowsAffected`.
 */
export function beginExtractionStatements(
  doc: { id: string; ownerId: string; title: string; source: DocumentSource; sha256: string },
  now: Date,
  quotas: LibraryQuotas,
): InStatement[] {
  const at = now.toISOString();
  return [
    {
      // The file's SHA-256 from the start: the same file uploaded meanwhile is refused as a duplicate.
      sql: `INSERT INTO documents (id, owner_id, title, authors, abstract, source, pages, characters,
              index_total, memory_in_staged_runs, created_at, content_sha256)
            SELECT ?, ?, ?, '[]', '', ?, 0, 0, 0, 0, ?, ?
              FROM (${USAGE}) AS usage
             WHERE usage.documents + 1 <= ? AND usage.characters + 1 <= ? AND usage.chunks + 1 <= ?`,
      args: [
        doc.id,
        doc.ownerId,
        doc.title,
        doc.source,
        at,
        doc.sha256,
        doc.ownerId,
        quotas.documents,
        quotas.characters,
        quotas.chunks,
      ],
    },
    insertTextStatement(doc.id, { text: '', pageStarts: '[]', pageStartsCp: null }),
    {
      sql: `INSERT INTO extraction_jobs (document_id, done, total, started_at, alive_at)
            SELECT ?, 0, 0, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ?)`,
      args: [doc.id, at, at, doc.id],
    },
  ];
}

/**
 * Progress (and a beat): `done` of `total` pages read. False when the document is gone (removed
 * by its owner, or swept): the extraction may stop, its upload will answer not found.
 */
export async function writeExtractionProgress(
  db: Client,
  documentId: string,
  progress: { done: number; total: number },
  now: Date,
): Promise<boolean> {
  const rs = await db.execute({
    sql: `UPDATE extraction_jobs SET done = ?, total = ?, alive_at = ?
          WHERE document_id = ? AND ${LIVE_DOCUMENT}`,
    args: [progress.done, progress.total, now.toISOString(), documentId, documentId],
  });
  return rs.rowsAffected > 0;
}

/**
 * The extracted text goes into the document, and its job row goes, if the owner's library stays
 * within its characters and chunks quotas with it (the document itself was counted when it was
 * begun) and the document still stands. The first statement decides: it deletes the job row
 * (1 row affected) or does nothing (0: a quota, or the document was removed meanwhile), and every
 * statement after it acts only once the job row is gone. `after` (the OCR job, for a scan) runs
 * in the same batch, so no indexer pass sees the document between the two.
 */
export function finishExtractionStatements(
  doc: {
    id: string;
    ownerId: string;
    title: string;
    authors: string[];
    abstract: string;
    source: DocumentSource;
    pages: string[];
  },
  quotas: LibraryQuotas,
): InStatement[] {
  const { text, pageStarts, pageStartsCp } = joinPages(doc.pages);
  const chunks = documentChunkCount(doc);
  const finished = 'NOT EXISTS (SELECT 1 FROM extraction_jobs WHERE document_id = ?)';
  return [
    {
      // The owner's usage without this document's own counts (0 and 0 while it extracts).
      sql: `DELETE FROM extraction_jobs WHERE document_id = ?
              AND ${LIVE_DOCUMENT}
              AND (SELECT usage.characters - d.characters + ? <= ? AND usage.chunks - d.index_total + ? <= ?
                     FROM (${USAGE}) AS usage, documents d WHERE d.id = ?)`,
      args: [doc.id, doc.id, text.length, quotas.characters, chunks, quotas.chunks, doc.ownerId, doc.id],
    },
    {
      sql: `UPDATE documents SET title = ?, authors = ?, abstract = ?, source = ?, pages = ?, characters = ?,
              index_state = 'indexing', index_error = NULL, index_done = 0, index_total = ?
            WHERE id = ? AND ${live('documents')} AND ${finished}`,
      args: [
        doc.title,
        JSON.stringify(doc.authors),
        doc.abstract,
        doc.source,
        pageStarts.length,
        text.length,
        chunks,
        doc.id,
        doc.id,
      ],
    },
    {
      sql: `UPDATE document_texts SET text = ?, page_starts = ?, page_starts_cp = ?
            WHERE document_id = ? AND ${LIVE_DOCUMENT} AND ${finished}`,
      args: [text, JSON.stringify(pageStarts), JSON.stringify(pageStartsCp), doc.id, doc.id, doc.id],
    },
  ];
}

/**
 * A refused or failed upload leaves nothing behind: its document (also when its owner removed it
 * meanwhile), what the owner tied to it while it was extracting (shares, a publication, profiles),
 * and its job row. Only while the job row stands: a document whose extraction finished is never
 * touched.
 */
export async function discardExtraction(
  db: Client,
  documentId: string,
  attached: readonly string[] = [],
): Promise<void> {
  const extracting = 'EXISTS (SELECT 1 FROM extraction_jobs WHERE document_id = ?)';
  await db.batch(
    [
      ...[...ATTACHED, ...attached].map((table) => ({
        sql: `DELETE FROM ${table} WHERE document_id = ? AND ${extracting}`,
        args: [documentId, documentId],
      })),
      { sql: `DELETE FROM documents WHERE id = ? AND ${extracting}`, args: [documentId, documentId] },
      { sql: 'DELETE FROM extraction_jobs WHERE document_id = ?', args: [documentId] },
    ],
    'write',
  );
}

/**
 * Deletes the uploads left by processes that died (jobs not beaten since `now` minus
 * EXTRACTION_STALE_MS) with their documents; returns how many.
 */
export async function sweepStaleExtractions(
  db: Client,
  now: Date,
  attached: readonly string[] = [],
): Promise<number> {
  const cutoff = new Date(now.getTime() - EXTRACTION_STALE_MS).toISOString();
  const stale = 'SELECT document_id FROM extraction_jobs WHERE alive_at < ?';
  const results = await db.batch(
    [
      ...[...ATTACHED, ...attached].map((table) => ({
        sql: `DELETE FROM ${table} WHERE document_id IN (${stale})`,
        args: [cutoff],
      })),
      { sql: `DELETE FROM documents WHERE id IN (${stale})`, args: [cutoff] },
      { sql: 'DELETE FROM extraction_jobs WHERE alive_at < ?', args: [cutoff] },
    ],
    'write',
  );
  return results.at(-1)?.rowsAffected ?? 0;
}
