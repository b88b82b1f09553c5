/**
 * The search index's rows in the application database: chunk vectors (`document_chunks`, a
 * derived table sized for the embedding adapter) and keywords (keyword-index.ts), each document's
 * indexing state, and each owner's library version. libSQL holds the truth; every API process keeps
 * an in-memory index rebuilt from it (search.ts).
 *
 * A document is indexed by one API process at a time, whichever took its lease (work-lease.ts);
 * every write of its indexing is made only while that process still holds it.
 */
import type { Client, InStatement } from '@libsql/client';
import { applyMigrations } from '@oh/memory';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { LibrarySchema } from '../migrations.ts';
import type { Chunk } from './chunks.ts';
import { splitPages } from './chunks.ts';
import { deleteKeywordStatements, writeKeywordStatements } from './keyword-index.ts';
import {
  WORK_LEASE_MS,
  freeSql,
  heldArgs,
  heldSql,
  releaseStatement,
  renewStatement,
} from '../work-lease.ts';
import type { Lease } from '../work-lease.ts';
import { LIVE_DOCUMENT, OWNER_SEARCHABLE, live, searchable } from '../documents/rules.ts';
import { parseStringArray } from '../documents/metadata.ts';

const held = heldSql('index');

/**
 * Makes `document_chunks` fit the adapter: applies the schema's migrations again (the app's whole
 * list, or `LIBRARY_ALONE`), now with the adapter's dimension, so the derived
 * `005_document_chunks_sized` builds the table (or rebuilds it, for another dimension or shape).
 * A document called ready whose chunks for this model or whose keywords are gone (a rebuilt
 * table, another model) goes back to indexing, which refills them (keywords alone cost no
 * embedding).
 *
 * @example
 * await applyMigrations(db, 'app', APP_MIGRATIONS);
 * await prepareDocumentIndex(db, adapter, { namespace: 'app', migrations: APP_MIGRATIONS });
 */
export async function prepareDocumentIndex(
  db: Client,
  adapter: EmbeddingAdapter,
  schema: LibrarySchema,
  now?: () => Date,
): Promise<void> {
  await applyMigrations(db, schema.namespace, schema.migrations, now, { dimensions: adapter.dimensions });
  await db.execute({
    sql: `UPDATE documents SET index_state = 'indexing', index_error = NULL, index_done = 0
          WHERE ${searchable('documents')}
            AND (NOT EXISTS (SELECT 1 FROM document_chunks c WHERE c.document_id = documents.id AND c.model = ?)
              OR NOT EXISTS (SELECT 1 FROM document_chunk_spans s WHERE s.document_id = documents.id))`,
    args: [adapter.id],
  });
}

export interface DocumentToIndex {
  id: string;
  ownerId: string;
  title: string;
  abstract: string;
  pages: string[];
}

/**
 * Takes the oldest document waiting for indexing, not in `skip`, that no other worker holds, with
 * its lease: one statement, so two workers looking at once cannot both take it. A document whose
 * worker's lease lapsed is taken over (its stored chunks are not embedded again: storedChunks).
 */
export async function claimDocumentToIndex(
  db: Client,
  holder: string,
  now: Date,
  skip: ReadonlySet<string>,
): Promise<DocumentToIndex | null> {
  const claimed = await db.execute({
    sql: `INSERT INTO work_leases (work, document_id, holder, until_ms)
          SELECT 'index', id, :holder, :until FROM documents
          WHERE index_state = 'indexing' AND ${live('documents')}
            AND id NOT IN (SELECT value FROM json_each(:skip))
            AND NOT EXISTS (SELECT 1 FROM ocr_jobs o WHERE o.document_id = documents.id)
            AND NOT EXISTS (SELECT 1 FROM extraction_jobs e WHERE e.document_id = documents.id)
            AND ${freeSql('index', 'documents.id')}
          ORDER BY created_at, id LIMIT 1
          ON CONFLICT (work, document_id) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
          RETURNING document_id`,
    args: {
      holder,
      now: now.getTime(),
      until: now.getTime() + WORK_LEASE_MS,
      skip: JSON.stringify([...skip]),
    },
  });
  const id = claimed.rows[0]?.document_id;
  if (id === undefined || id === null) return null;
  const rs = await db.execute({
    sql: `SELECT d.id, d.owner_id, d.title, d.abstract, t.text, t.page_starts
          FROM documents d JOIN document_texts t ON t.document_id = d.id WHERE d.id = ?`,
    args: [String(id)],
  });
  const r = rs.rows[0];
  if (!r) return null;
  const pageStarts = (JSON.parse(String(r.page_starts)) as unknown[]).map(Number);
  return {
    id: String(r.id),
    ownerId: String(r.owner_id),
    title: String(r.title),
    abstract: String(r.abstract),
    pages: splitPages(String(r.text), pageStarts),
  };
}

/**
 * Chunk numbers already stored for this content and model (a resumed indexing skips them), and
 * which of them have their keywords too (the others get only those written).
 */
export async function storedChunks(
  db: Client,
  documentId: string,
  digest: string,
  model: string,
): Promise<{ vectors: Set<number>; keywords: Set<number> }> {
  const rs = await db.execute({
    sql: `SELECT c.chunk, EXISTS (SELECT 1 FROM document_keywords k WHERE k.rowid = s.id) AS keywords
          FROM document_chunks c
          LEFT JOIN document_chunk_spans s ON s.document_id = c.document_id AND s.chunk = c.chunk
          WHERE c.document_id = ? AND c.digest = ? AND c.model = ?`,
    args: [documentId, digest, model],
  });
  const vectors = new Set<number>();
  const keywords = new Set<number>();
  for (const r of rs.rows) {
    vectors.add(Number(r.chunk));
    if (Number(r.keywords) === 1) keywords.add(Number(r.chunk));
  }
  return { vectors, keywords };
}

/** Keys a document's chunks are written under, and the indexer writing them (its lease's holder). */
export interface ChunkKey {
  id: string;
  ownerId: string;
  digest: string;
  model: string;
  holder: string;
}

function leaseOf(doc: ChunkKey): Lease {
  return { work: 'index', documentId: doc.id, holder: doc.holder };
}

/** The condition every write of the document's indexing is made under: its lease is the writer's. */
function heldBy(doc: ChunkKey): { sql: string; args: [string, string] } {
  return { sql: held, args: heldArgs(leaseOf(doc)) };
}

function vectorBytes(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * One batch of embedded chunks, their keywords and the progress they make, atomically, renewing
 * the lease. Nothing is written for a document removed meanwhile, or by an indexer whose lease
 * went to another: every insert is conditional on both. False when the lease is no longer the
 * writer's (the indexer stops).
 */
export async function writeChunks(
  db: Client,
  doc: ChunkKey,
  chunks: ReadonlyArray<{ chunk: Chunk; vector: Float32Array }>,
  progress: { done: number; total: number },
  now: Date,
): Promise<boolean> {
  const own = heldBy(doc);
  const statements: InStatement[] = chunks.flatMap(({ chunk, vector }) => [
    {
      sql: `INSERT OR REPLACE INTO document_chunks (document_id, chunk, page, text, digest, model, embedding)
            SELECT ?, ?, ?, ?, ?, ?, vector32(?)
            WHERE ${LIVE_DOCUMENT} AND ${own.sql}`,
      args: [
        doc.id,
        chunk.chunk,
        chunk.page,
        chunk.text,
        doc.digest,
        doc.model,
        vectorBytes(vector),
        doc.id,
        ...own.args,
      ],
    },
    ...writeKeywordStatements(doc, chunk, own),
  ]);
  statements.push(
    {
      sql: `UPDATE documents SET index_done = ?, index_total = ? WHERE id = ? AND index_state = 'indexing' AND ${own.sql}`,
      args: [progress.done, progress.total, doc.id, ...own.args],
    },
    renewStatement(leaseOf(doc), now),
  );
  const results = await db.batch(statements, 'write');
  return (results.at(-1)?.rowsAffected ?? 0) > 0;
}

/** Keywords alone, for chunks whose vectors are stored already (a keyword index rebuilt); false as writeChunks. */
export async function writeKeywords(
  db: Client,
  doc: ChunkKey,
  chunks: readonly Chunk[],
  now: Date,
): Promise<boolean> {
  const results = await db.batch(
    [
      ...chunks.flatMap((chunk) => writeKeywordStatements(doc, chunk, heldBy(doc))),
      renewStatement(leaseOf(doc), now),
    ],
    'write',
  );
  return (results.at(-1)?.rowsAffected ?? 0) > 0;
}

/**
 * Every chunk is in: stale chunks go, the document is ready, its owner's version moves and the
 * lease is given up; only while the lease is the writer's.
 */
export async function markReady(db: Client, doc: ChunkKey, total: number): Promise<void> {
  const own = heldBy(doc);
  await db.batch(
    [
      {
        sql: `DELETE FROM document_chunks WHERE document_id = ? AND (chunk >= ? OR digest != ? OR model != ?)
                AND ${own.sql}`,
        args: [doc.id, total, doc.digest, doc.model, ...own.args],
      },
      ...deleteKeywordStatements(`document_id = ? AND chunk >= ? AND ${own.sql}`, [
        doc.id,
        total,
        ...own.args,
      ]),
      {
        sql: `UPDATE documents SET index_state = 'ready', index_error = NULL, index_done = ?, index_total = ?
              WHERE id = ? AND ${live('documents')} AND ${own.sql}`,
        args: [total, total, doc.id, ...own.args],
      },
      // As a removal moves it (documents/documents.ts), under the lease.
      {
        sql: `INSERT INTO library_versions (owner_id, version)
              SELECT owner_id, 1 FROM documents WHERE id = ? AND ${own.sql}
              ON CONFLICT (owner_id) DO UPDATE SET version = version + 1`,
        args: [doc.id, ...own.args],
      },
      releaseStatement(leaseOf(doc)),
    ],
    'write',
  );
}

/** The document failed to index, with the reason its owner sees; only while the lease is the writer's. */
export async function markFailed(db: Client, lease: Lease, reason: string): Promise<void> {
  await db.batch(
    [
      {
        sql: `UPDATE documents SET index_state = 'failed', index_error = ? WHERE id = ? AND ${live('documents')} AND ${held}`,
        args: [reason.slice(0, 500), lease.documentId, ...heldArgs(lease)],
      },
      releaseStatement(lease),
    ],
    'write',
  );
}

/** Sends a failed document back to the indexer; false when it is not the owner's failed document. */
export async function requeue(db: Client, documentId: string): Promise<boolean | 'no_text'> {
  // A document without any text (a scan OCR found nothing in) cannot be indexed into anything:
  // sent back, it would come out "ready" and empty, so it stays failed with its reason.
  const rs = await db.execute({
    sql: `UPDATE documents SET index_state = 'indexing', index_error = NULL, index_done = 0
          WHERE id = ? AND ${live('documents')} AND index_state = 'failed'
            AND EXISTS (SELECT 1 FROM document_texts t WHERE t.document_id = documents.id
                          AND length(trim(t.text, ' ' || char(9) || char(10) || char(12) || char(13))) > 0)
          RETURNING id`,
    args: [documentId],
  });
  if (rs.rows.length > 0) return true;
  const failedEmpty = await db.execute({
    sql: `SELECT 1 FROM documents WHERE id = ? AND ${live('documents')} AND index_state = 'failed'`,
    args: [documentId],
  });
  return failedEmpty.rows.length > 0 ? 'no_text' : false;
}

/** The owner's library version: it moves whenever their searchable chunks change. */
export async function libraryVersion(db: Client, ownerId: string): Promise<number> {
  const rs = await db.execute({
    sql: 'SELECT version FROM library_versions WHERE owner_id = ?',
    args: [ownerId],
  });
  return rs.rows[0] ? Number(rs.rows[0].version) : 0;
}

/** The owner's searchable documents: live and ready. */
export async function readyDocumentIds(db: Client, ownerId: string): Promise<string[]> {
  const rs = await db.execute({
    sql: `SELECT id FROM ${OWNER_SEARCHABLE}`,
    args: [ownerId],
  });
  return rs.rows.map((r) => String(r.id));
}

/**
 * The owner's searchable documents with a tag (as tags are kept: any case, without `#`), from
 * migration 027's index on the folded tag.
 */
export async function taggedDocuments(db: Client, ownerId: string, tag: string): Promise<Set<string>> {
  const folded = tag.trim().replace(/^#+/, '').trim().toLowerCase();
  const rs = await db.execute({
    sql: `SELECT t.document_id FROM document_tags t CROSS JOIN documents d ON d.id = t.document_id
          WHERE t.folded = ? AND d.owner_id = ? AND ${searchable('d')}`,
    args: [folded, ownerId],
  });
  return new Set(rs.rows.map((r) => String(r.document_id)));
}

/** The vectors of some documents' chunks for one model, grouped by document. */
export async function loadVectors(
  db: Client,
  documentIds: readonly string[],
  model: string,
): Promise<Map<string, Array<{ chunk: number; vector: Float32Array }>>> {
  const byDoc = new Map<string, Array<{ chunk: number; vector: Float32Array }>>();
  if (documentIds.length === 0) return byDoc;
  const rs = await db.execute({
    sql: `SELECT document_id, chunk, embedding FROM document_chunks
          WHERE model = ? AND document_id IN (SELECT value FROM json_each(?))`,
    args: [model, JSON.stringify(documentIds)],
  });
  for (const r of rs.rows) {
    const id = String(r.document_id);
    let list = byDoc.get(id);
    if (!list) byDoc.set(id, (list = []));
    list.push({ chunk: Number(r.chunk), vector: toFloat32(r.embedding) });
  }
  return byDoc;
}

function toFloat32(v: unknown): Float32Array {
  if (v instanceof ArrayBuffer) return new Float32Array(v.slice(0));
  if (ArrayBuffer.isView(v))
    return new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
  throw new TypeError('document_chunks.embedding is not a blob');
}

export interface Passage {
  documentId: string;
  chunk: number;
  page: number;
  text: string;
  title: string;
  /** The passage's span in the document's text (see Chunk). */
  start: number;
  end: number;
  /** What its document is (SPEC §6d). */
  document: HitDocument;
}

/** What a hit says its document is, beside its title (SPEC §6d; the abstract is not repeated). */
export interface HitDocument {
  authors: string[];
  year: number | null;
  doi: string | null;
  venue: string;
  tags: string[];
  citationKey: string;
}

/**
 * The passages of some hits, re-checked against the database: only chunks of live documents of
 * this owner come back, whatever the in-memory index said.
 */
export async function loadPassages(
  db: Client,
  ownerId: string,
  hits: ReadonlyArray<{ documentId: string; chunk: number }>,
): Promise<Map<string, Passage>> {
  const out = new Map<string, Passage>();
  if (hits.length === 0) return out;
  // CROSS JOIN fixes the loop order: one primary-key lookup per hit. Left to the planner, it
  // walked every chunk of the owner's documents instead (measured: 40 ms at 10k chunks).
  const rs = await db.execute({
    sql: `SELECT c.document_id, c.chunk, c.page, c.text, d.title, s.start, s.end,
            d.authors, d.year, d.doi, d.venue, d.citation_key,
            (SELECT json_group_array(t.tag) FROM (SELECT tag FROM document_tags
              WHERE document_id = d.id ORDER BY position) t) AS tags
          FROM json_each(?) AS h
          CROSS JOIN document_chunks c ON c.document_id = json_extract(h.value, '$[0]') AND c.chunk = json_extract(h.value, '$[1]')
          CROSS JOIN documents d ON d.id = c.document_id
          LEFT JOIN document_chunk_spans s ON s.document_id = c.document_id AND s.chunk = c.chunk
          WHERE d.owner_id = ? AND ${searchable('d')}`,
    args: [JSON.stringify(hits.map((h) => [h.documentId, h.chunk])), ownerId],
  });
  for (const r of rs.rows) {
    const p: Passage = {
      documentId: String(r.document_id),
      chunk: Number(r.chunk),
      page: Number(r.page),
      text: String(r.text),
      title: String(r.title),
      start: Number(r.start ?? 0),
      end: Number(r.end ?? 0),
      document: {
        authors: parseStringArray(r.authors),
        year: r.year === null ? null : Number(r.year),
        doi: r.doi === null ? null : String(r.doi),
        venue: String(r.venue),
        tags: parseStringArray(r.tags),
        citationKey: r.citation_key === null ? '' : String(r.citation_key),
      },
    };
    out.set(`${p.documentId}#${p.chunk}`, p);
  }
  return out;
}
