/**
 * The documents' rows (SPEC §6b, §6c): who may read which document and how, adding, publishing,
 * sharing by account id and removing one, and the facts the app checks a document by. One access
 * rule serves the list and a single document alike: the owner, then a share, then a publication.
 */
import type { Client, InStatement, InValue } from '@libsql/client';
import type { DocumentSource } from '@sponge/contract';
import { chunkDocument } from '../search/chunks.ts';
import { assignMissingCitationKeys, citationKeyStatement } from './metadata.ts';
import { USAGE, live } from './rules.ts';
import type { DocumentOwner } from './rules.ts';
import type { LibraryQuotas } from './quotas.ts';

export type Access = 'owner' | 'shared' | 'public';
export type IndexState = 'extracting' | 'recognizing' | 'indexing' | 'ready' | 'failed';

/**
 * Where the document stands on its way to search (SPEC §6b): `extracting`, `done` of `total` pages
 * of an upload read (0 of 0 while it waits for its turn and until its page count is known; no text
 * yet); `recognizing`, `done` of `total` scanned pages read by OCR; `indexing`, `done` of `total`
 * chunks embedded; `ready`; `failed` with its reason. `note` says what OCR left out (a page cap or
 * a page past its time), or null.
 */
export interface IndexStatus {
  state: IndexState;
  reason: string | null;
  done: number;
  total: number;
  note: string | null;
}

export interface DocumentSummary {
  id: string;
  title: string;
  ownerId: string;
  ownerName: string;
  authors: string[];
  abstract: string;
  /** What the document is (SPEC §6d, documents/metadata.ts). */
  year: number | null;
  /** Lowercase, without `https://doi.org/`. */
  doi: string | null;
  /** '' when unknown. */
  venue: string;
  tags: string[];
  /**
   * Unique in the owner's library, never changed by an edit; '' while an upload is extracting, and
   * on the first read of a document written before migration 027 (it is given one then).
   */
  citationKey: string;
  access: Access;
  publishedAt: string | null;
  source: DocumentSource;
  pages: number;
  characters: number;
  createdAt: string;
  /**
   * The newest of: added, and for anyone but the owner, when it was shared with them or
   * published. What runs add to the owner's (an accepted run, a chat message) is the app's.
   */
  lastActivityAt: string;
  index: IndexStatus;
}

export interface DocumentRecord extends DocumentSummary {
  text: string;
  /** Offsets in `text` where each page starts (one entry, 0, for a text or Markdown document). */
  pageStarts: number[];
  /** Pages (1-based) whose text OCR recognised from a scan, to be checked against it. */
  ocrPages: number[];
  memoryInStagedRuns: boolean;
}

// One rule, used by list and get alike: owner first, then a share, then a publication.
const ACCESS_SQL = `CASE WHEN d.owner_id = :user THEN 'owner'
                         WHEN s.user_id IS NOT NULL THEN 'shared'
                         WHEN p.document_id IS NOT NULL THEN 'public' END`;

/** DocumentSummary.lastActivityAt. */
const LAST_ACTIVITY = `CASE WHEN d.owner_id = :user THEN d.created_at
  ELSE max(d.created_at, coalesce(s.created_at, ''), coalesce(p.published_at, '')) END`;

/**
 * A DocumentSummary as SQLite writes it, for `d` a document, `u` its owner, `s` the reader's
 * share and `p` its publication: parsed, it is the summary itself, so the owner's list of 10,000
 * crosses to JavaScript as one JSON text and nothing else. Read as row values turned into
 * summaries, each list of 10,000 left 20 MB of garbage behind, and twenty of them in a row took
 * the process's peak memory up by half a gigabyte (bench/README.md, the scale figure).
 * A subquery's JSON reaches its caller as text, hence the `json()` around each.
 */
const SUMMARY_JSON = `json_object(
  'id', d.id, 'title', d.title, 'ownerId', d.owner_id, 'ownerName', u.name,
  'authors', json(coalesce(CASE WHEN json_valid(d.authors) THEN
    CASE json_type(d.authors) WHEN 'array' THEN d.authors END END, '[]')),
  'abstract', d.abstract, 'year', d.year, 'doi', d.doi, 'venue', d.venue,
  'tags', json((SELECT json_group_array(t.tag)
                  FROM (SELECT tag FROM document_tags WHERE document_id = d.id ORDER BY position) t)),
  'citationKey', coalesce(d.citation_key, ''), 'access', ${ACCESS_SQL}, 'publishedAt', p.published_at,
  'source', d.source, 'pages', d.pages, 'characters', d.characters, 'createdAt', d.created_at,
  'lastActivityAt', ${LAST_ACTIVITY},
  'index', json(coalesce(
    (SELECT json_object('state', 'extracting', 'reason', NULL, 'done', coalesce(e.done, 0),
                        'total', coalesce(e.total, 0), 'note', NULL)
       FROM extraction_jobs e WHERE e.document_id = d.id),
    (SELECT json_object('state', 'recognizing', 'reason', NULL, 'done', coalesce(j.done, 0),
                        'total', json_array_length(j.pages), 'note', d.ocr_note)
       FROM ocr_jobs j WHERE j.document_id = d.id),
    json_object('state', d.index_state, 'reason', d.index_error, 'done', d.index_done,
                'total', d.index_total, 'note', d.ocr_note))))`;

/**
 * The documents `:user` may read, as `d` (with their owner as `u`): live, and theirs, shared with
 * them or published. Every read for a reader builds on it (documents/reading.ts too).
 */
export const FROM_VISIBLE = visibleFrom('');

/**
 * FROM_VISIBLE with each document's text as `t` (migration 028): only for the reads of one
 * document that need its text, never for a list.
 */
export const FROM_VISIBLE_WITH_TEXT = visibleFrom('JOIN document_texts t ON t.document_id = d.id');

/**
 * FROM_VISIBLE for a list: the reader's documents found from the reader — their own, the shares
 * to them, the published — where FROM_VISIBLE's `OR` makes SQLite walk every owner's live
 * documents to test each (one owner's read of one document is fast either way).
 */
const FROM_VISIBLE_LIST = visibleFrom(
  '',
  `d.id IN (SELECT id FROM documents WHERE owner_id = :user
            UNION ALL SELECT document_id FROM shares WHERE user_id = :user
            UNION ALL SELECT document_id FROM publications)`,
);
/** The reader's own documents (`FROM_VISIBLE`'s first reason). */
const FROM_OWN = visibleFrom('', 'd.owner_id = :user');
/** What others share with the reader or publish (its other two). */
const FROM_OTHERS = visibleFrom(
  '',
  `d.owner_id <> :user AND d.id IN (SELECT document_id FROM shares WHERE user_id = :user
                                    UNION ALL SELECT document_id FROM publications)`,
);

function visibleFrom(
  join: string,
  readable = '(d.owner_id = :user OR s.user_id IS NOT NULL OR p.document_id IS NOT NULL)',
): string {
  return `FROM documents d
  JOIN users u ON u.id = d.owner_id ${join}
  LEFT JOIN shares s ON s.document_id = d.id AND s.user_id = :user
  LEFT JOIN publications p ON p.document_id = d.id
  WHERE ${live('d')} AND ${readable}`;
}

/**
 * Every live document the user may read, with how they may read it, most recently active first.
 *
 * @example
 * const docs = await listVisibleDocuments(db, 'user-ada'); // [{ id, title, access: 'owner', index: { state: 'ready' … } }, …]
 */
export async function listVisibleDocuments(
  db: Client,
  userId: string,
  /** Only these of them (a search's hits): a library of thousands is not read for ten. */
  only?: readonly string[],
): Promise<DocumentSummary[]> {
  // The owner's own documents come in the list's order from `documents_listed` (migration 030),
  // unsorted: sorting 10,000 rows of metadata cost a third of the list's time. What others share
  // or publish is read beside them, in the same snapshot.
  const sql = only
    ? `SELECT ${asJson(`${FROM_VISIBLE_LIST} AND d.id IN (SELECT value FROM json_each(:only))`, LIST_ORDER)} AS others`
    : `SELECT ${asJson(FROM_OWN, OWN_ORDER)} AS own, ${asJson(FROM_OTHERS, LIST_ORDER)} AS others`;
  const rs = await db.execute({
    sql,
    args: { user: userId, ...(only ? { only: JSON.stringify(only) } : {}) },
  });
  const read = (list: unknown) => JSON.parse(typeof list === 'string' ? list : '[]') as DocumentSummary[];
  const own = read(rs.rows[0]?.own);
  const others = read(rs.rows[0]?.others);
  // Each comes in the list's order: the sort merges the two runs.
  const docs =
    own.length === 0 || others.length === 0 ? [...own, ...others] : [...own, ...others].sort(listOrder);
  giveMissingKeys(db, docs);
  return docs;
}

/** The summaries of `from` in `order`, as one JSON array. */
function asJson(from: string, order: string): string {
  return `(SELECT json_group_array(json(summary))
             FROM (SELECT ${SUMMARY_JSON} AS summary ${from} ORDER BY ${order}))`;
}

/** Most recently active first, then by title and id; the owner's own were active when added. */
const LIST_ORDER = `${LAST_ACTIVITY} DESC, d.title, d.id`;
const OWN_ORDER = 'd.created_at DESC, d.title, d.id';

/** Compares as SQLite's BINARY collation does, by the bytes of the UTF-8. */
const binary = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));

/** LIST_ORDER in JavaScript: for a list merged here, or whose activity the app moves (runs). */
export const listOrder = (
  x: Pick<DocumentSummary, 'lastActivityAt' | 'title' | 'id'>,
  y: Pick<DocumentSummary, 'lastActivityAt' | 'title' | 'id'>,
) => binary(y.lastActivityAt, x.lastActivityAt) || binary(x.title, y.title) || binary(x.id, y.id);

/** Documents whose keys are being given by this process (giveMissingKeys). */
const giving = new Set<string>();

/**
 * Gives the documents among `rows` written before citation keys existed (migration 027) theirs,
 * after the read that found them: a read never waits for a write (another process may hold the
 * database's write lock for a while), so such a document reads with the key '' once. Should the
 * write fail, the next read tries again.
 */
function giveMissingKeys(db: Client, docs: readonly DocumentSummary[]): void {
  // '' is no key: one is given as the document is added, or by this, never ''.
  const ids = docs
    .filter((d) => d.citationKey === '' && d.index.state !== 'extracting' && !giving.has(d.id))
    .map((d) => d.id);
  if (ids.length === 0) return;
  for (const id of ids) giving.add(id);
  void assignMissingCitationKeys(db, ids)
    .catch(() => undefined)
    .finally(() => {
      for (const id of ids) giving.delete(id);
    });
}

/** The document if the user may read it (owner, shared, public); null otherwise or when removed. */
export async function getVisibleDocument(
  db: Client,
  userId: string,
  documentId: string,
): Promise<DocumentRecord | null> {
  const rs = await db.execute({
    sql: `SELECT ${SUMMARY_JSON} AS summary, t.text, t.page_starts, d.ocr_pages, d.memory_in_staged_runs
          ${FROM_VISIBLE_WITH_TEXT} AND d.id = :doc`,
    args: { user: userId, doc: documentId },
  });
  const r = rs.rows[0];
  if (!r) return null;
  const summary = JSON.parse(String(r.summary)) as DocumentSummary;
  giveMissingKeys(db, [summary]);
  return {
    ...summary,
    text: String(r.text),
    pageStarts: parsePageStarts(r.page_starts),
    ocrPages: (JSON.parse(String(r.ocr_pages)) as unknown[]).map(Number),
    memoryInStagedRuns: Number(r.memory_in_staged_runs) === 1,
  };
}

/**
 * One of the owner's own live documents, with its text; null for anything else (shared with or
 * published to them, another's, removed, none), so the answer tells nothing about the rest.
 */
export async function getOwnDocument(
  db: Client,
  ownerId: string,
  documentId: string,
): Promise<DocumentRecord | null> {
  const doc = await getVisibleDocument(db, ownerId, documentId);
  return doc && doc.access === 'owner' ? doc : null;
}

/**
 * The titles of those of `documentIds` that are live documents (of `ownerId` only, when given):
 * what a transcript or a panel names a cited or reviewed document by while it stands.
 */
export async function liveTitles(
  db: Client,
  documentIds: Iterable<string>,
  options: { ownerId?: string } = {},
): Promise<Map<string, string>> {
  const ids = [...new Set(documentIds)];
  if (ids.length === 0) return new Map();
  const rs = await db.execute({
    sql: `SELECT id, title FROM documents
           WHERE ${live('documents')} AND (?1 IS NULL OR owner_id = ?1) AND id IN (SELECT value FROM json_each(?2))`,
    args: [options.ownerId ?? null, JSON.stringify(ids)],
  });
  return new Map(rs.rows.map((r) => [String(r.id), String(r.title)]));
}

function parsePageStarts(v: unknown): number[] {
  const a: unknown = JSON.parse(String(v));
  return Array.isArray(a) ? a.map(Number) : [0];
}

/** Ownership facts for checks (removed documents included, so callers can tell them apart). */
export interface DocumentOwnership extends DocumentOwner {
  /** Its text is still being extracted (an upload under way): it has no text yet. */
  extracting: boolean;
}

export async function getDocumentOwnership(
  db: Client,
  documentId: string,
): Promise<DocumentOwnership | null> {
  const rs = await db.execute({
    sql: `SELECT id, owner_id, removed_at, memory_in_staged_runs,
            EXISTS (SELECT 1 FROM extraction_jobs e WHERE e.document_id = documents.id) AS extracting
          FROM documents WHERE id = ?`,
    args: [documentId],
  });
  const r = rs.rows[0];
  if (!r) return null;
  return {
    id: String(r.id),
    ownerId: String(r.owner_id),
    removedAt: r.removed_at === null ? null : String(r.removed_at),
    memoryInStagedRuns: Number(r.memory_in_staged_runs) === 1,
    extracting: Number(r.extracting) === 1,
  };
}

export interface NewDocument {
  id: string;
  ownerId: string;
  title: string;
  authors: string[];
  abstract: string;
  /** The text of each page (one for a text or Markdown document); joined by a blank line. */
  pages: string[];
  source?: DocumentSource;
}

/**
 * How many characters SQL counts in `text`: code points, a surrogate pair as one (and, as the
 * driver stores a lone surrogate as U+FFFD, a lone one as one too).
 */
export function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return n;
}

/**
 * The stored text of pages and where each starts in it: in UTF-16 offsets as JavaScript counts
 * (`pageStarts`) and in code points as SQL counts (`pageStartsCp`, migration 023).
 */
export function joinPages(pages: readonly string[]): {
  text: string;
  pageStarts: number[];
  pageStartsCp: number[];
} {
  const pageStarts: number[] = [];
  const pageStartsCp: number[] = [];
  let offset = 0;
  let points = 0;
  for (const page of pages) {
    pageStarts.push(offset);
    pageStartsCp.push(points);
    offset += page.length + 2;
    points += codePoints(page) + 2;
  }
  return { text: pages.join('\n\n'), pageStarts, pageStartsCp };
}

/**
 * The rows of a new document, waiting for the indexer (state `indexing`): its row, then its text's
 * (migration 028), in one batch. Its chunk count is known from the start (`index_total`), so the
 * owner's chunk quota counts documents not indexed yet.
 */
function insertDocumentStatements(doc: NewDocument, now: Date): InStatement[] {
  return insertStatements(
    doc,
    documentChunkCount(doc),
    now,
    'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)',
    () => [],
  );
}

/**
 * The rows of a new document, written only if the owner's library stays within `quotas` with it:
 * one statement decides, so two uploads at once cannot both take the last room; the text's row
 * follows the document's. No row written by the first (0 rows affected) means a quota stood in
 * the way, and the second writes nothing either.
 */
export function insertDocumentWithinQuotasStatements(
  doc: NewDocument,
  now: Date,
  quotas: LibraryQuotas,
): InStatement[] {
  const chunks = documentChunkCount(doc);
  return insertStatements(
    doc,
    chunks,
    now,
    `SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?
       FROM (${USAGE}) AS usage
      WHERE usage.documents + 1 <= ? AND usage.characters + ? <= ? AND usage.chunks + ? <= ?`,
    (characters) => [doc.ownerId, quotas.documents, characters, quotas.characters, chunks, quotas.chunks],
  );
}

/** The chunks the indexer will cut the document into (search/chunks.ts). */
export function documentChunkCount(doc: Pick<NewDocument, 'title' | 'abstract' | 'pages'>): number {
  return chunkDocument(doc).length;
}

/**
 * The INSERT of a document row from `values` (VALUES or a SELECT), then `extraArgs` of its text
 * length; and the INSERT of its text, made only where the document's row was.
 */
function insertStatements(
  doc: NewDocument,
  chunks: number,
  now: Date,
  values: string,
  extraArgs: (characters: number) => InValue[],
): InStatement[] {
  const { text, pageStarts, pageStartsCp } = joinPages(doc.pages);
  return [
    {
      sql: `INSERT INTO documents (id, owner_id, title, authors, abstract, source, pages,
              characters, index_total, memory_in_staged_runs, created_at)
            ${values}`,
      args: [
        doc.id,
        doc.ownerId,
        doc.title,
        JSON.stringify(doc.authors),
        doc.abstract,
        doc.source ?? 'text',
        pageStarts.length,
        text.length,
        chunks,
        now.toISOString(),
        ...extraArgs(text.length),
      ],
    },
    insertTextStatement(doc.id, {
      text,
      pageStarts: JSON.stringify(pageStarts),
      pageStartsCp: JSON.stringify(pageStartsCp),
    }),
  ];
}

/** A document's text row, written in the batch that writes its document, only where that was. */
export function insertTextStatement(
  documentId: string,
  stored: { text: string; pageStarts: string; pageStartsCp: string | null },
): InStatement {
  return {
    sql: `INSERT INTO document_texts (document_id, text, page_starts, page_starts_cp)
          SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ?)`,
    args: [documentId, stored.text, stored.pageStarts, stored.pageStartsCp, documentId],
  };
}

/** A document's rows with its citation key (the app's demo library, tools and tests add so). */
export async function insertDocument(db: Client, doc: NewDocument, now: Date): Promise<void> {
  await db.batch(
    [...insertDocumentStatements(doc, now), citationKeyStatement({ ...doc, year: null })],
    'write',
  );
}

/** Idempotent: returns the first publication time. */
export async function publishDocument(db: Client, documentId: string, now: Date): Promise<string> {
  await db.execute({
    sql: `INSERT INTO publications (document_id, published_at) VALUES (?, ?) ON CONFLICT (document_id) DO NOTHING`,
    args: [documentId, now.toISOString()],
  });
  const rs = await db.execute({
    sql: 'SELECT published_at FROM publications WHERE document_id = ?',
    args: [documentId],
  });
  return String(rs.rows[0]?.published_at);
}

/**
 * Removal: the text, its chunks, their vectors and keywords are deleted in one batch (the database runs
 * with secure_delete, and the caller checkpoints the WAL, so they are gone from the files as
 * forgotten notes are). The row stays, with its title, so runs keep a target; no one can see or
 * use the document any more. The owner's library version moves, so every API process drops the
 * vectors from its in-memory index before its next search. `alsoInBatch`: the app's own
 * statements that must go with it, all or nothing (Sponge: quotes of its text in the citations
 * of agent replies).
 */
export async function removeDocument(
  db: Client,
  documentId: string,
  now: Date,
  alsoInBatch: readonly InStatement[] = [],
): Promise<string> {
  await db.batch(
    [
      {
        sql: `UPDATE documents SET removed_at = ?, abstract = '', authors = '[]', pages = 0,
                characters = 0, index_state = 'failed', index_error = 'removed', index_done = 0, index_total = 0,
                year = NULL, doi = NULL, venue = '', content_sha256 = NULL
              WHERE id = ? AND ${live('documents')}`,
        args: [now.toISOString(), documentId],
      },
      { sql: 'DELETE FROM document_texts WHERE document_id = ?', args: [documentId] },
      { sql: 'DELETE FROM document_tags WHERE document_id = ?', args: [documentId] },
      { sql: 'DELETE FROM document_chunks WHERE document_id = ?', args: [documentId] },
      // A scan still waiting for OCR: the job and the PDF it kept (migration 012).
      { sql: 'DELETE FROM ocr_jobs WHERE document_id = ?', args: [documentId] },
      // The leases on its OCR or indexing (migration 022): the process at work on it stops at its
      // next write or renewal instead of reading or embedding on.
      { sql: 'DELETE FROM work_leases WHERE document_id = ?', args: [documentId] },
      // Its keywords too (migration 011; search/keyword-index.ts): the index and the spans.
      {
        sql: `DELETE FROM document_keywords
              WHERE rowid IN (SELECT id FROM document_chunk_spans WHERE document_id = ?)`,
        args: [documentId],
      },
      { sql: 'DELETE FROM document_chunk_spans WHERE document_id = ?', args: [documentId] },
      ...alsoInBatch,
      bumpLibraryVersionStatement(documentId),
    ],
    'write',
  );
  const rs = await db.execute({ sql: 'SELECT removed_at FROM documents WHERE id = ?', args: [documentId] });
  return String(rs.rows[0]?.removed_at);
}

/** Moves the library version of the document's owner. */
function bumpLibraryVersionStatement(documentId: string): InStatement {
  return {
    sql: `INSERT INTO library_versions (owner_id, version) VALUES ((SELECT owner_id FROM documents WHERE id = ?), 1)
          ON CONFLICT (owner_id) DO UPDATE SET version = version + 1`,
    args: [documentId],
  };
}

/** Whether staged runs on the document get working memory (the owner's setting, SPEC §7). */
export async function setMemoryInStagedRuns(db: Client, documentId: string, on: boolean): Promise<void> {
  await db.execute({
    sql: 'UPDATE documents SET memory_in_staged_runs = ? WHERE id = ?',
    args: [on ? 1 : 0, documentId],
  });
}
