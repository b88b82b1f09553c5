/**
 * `documents.search` by meaning (issue 6): the caller's readable documents (owned, shared,
 * public) are chunked (abstract and text by paragraph, at most ~800 characters a chunk, each
 * prefixed with the title), embedded with the same adapter as note recall and kept in `document_chunks` in the
 * application database, tied to the digest of the content they came from.
 *
 * The index is derived data: a document whose stored digest (or model) differs from its current
 * content is re-embedded lazily, right before a search that may rank it. Only documents the caller
 * may read are ever looked up, so a private document of someone else is never ranked.
 */
import { createHash } from 'node:crypto';
import type { Client, InStatement } from '@libsql/client';
import { applyMigrations } from '@oh/memory';
import type { EmbeddingAdapter } from '@oh/memory';
import type { Access } from './documents.ts';
import { APP_MIGRATIONS } from './migrations.ts';

export const DOCUMENT_CHUNKS_TABLE = 'document_chunks';
export const CHUNK_CHARS = 800;
const SNIPPET_CHARS = 240;

export interface SearchableDocument {
  id: string;
  title: string;
  abstract: string;
  text: string;
}

export interface DocumentHit {
  id: string;
  title: string;
  /** Cosine similarity of the best chunk, 0..1 (documents scoring ≤ 0 are left out). */
  score: number;
  access: Access;
  /** The best-matching chunk's text, shortened. */
  snippet?: string;
}

/** The namespace app.ts migrates APP_MIGRATIONS under. */
const APP_NAMESPACE = 'app';

/**
 * Makes `document_chunks` fit the adapter: applies the app's migrations again, now with the
 * adapter's dimension, so the derived `005_document_chunks_sized` builds the table (or rebuilds
 * it, when the dimension on record is another one). Vectors are derived data: a rebuilt table
 * is refilled lazily by the next search.
 */
export async function prepareDocumentIndex(db: Client, adapter: EmbeddingAdapter, now?: () => Date): Promise<void> {
  await applyMigrations(db, APP_NAMESPACE, APP_MIGRATIONS, now, { dimensions: adapter.dimensions });
}

export function documentDigest(d: SearchableDocument): string {
  return createHash('sha256').update(JSON.stringify([d.title, d.abstract, d.text]), 'utf8').digest('hex');
}

/**
 * One chunk per paragraph (the abstract first) of at most `CHUNK_CHARS`; an overlong paragraph is
 * cut at sentences, then hard. Paragraphs are not packed together: a short on-topic paragraph
 * keeps its meaning instead of being diluted by its neighbours.
 */
export function chunkDocument(d: SearchableDocument): string[] {
  const paragraphs = [d.abstract, ...d.text.split(/\n\s*\n/)].map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p !== '');
  const pieces: string[] = [];
  for (const p of paragraphs) {
    if (p.length <= CHUNK_CHARS) {
      pieces.push(p);
      continue;
    }
    let current = '';
    for (const sentence of p.split(/(?<=[.!?])\s+/)) {
      for (let i = 0; i < sentence.length; i += CHUNK_CHARS) {
        const part = sentence.slice(i, i + CHUNK_CHARS);
        if (current !== '' && current.length + 1 + part.length > CHUNK_CHARS) {
          pieces.push(current);
          current = part;
        } else current = current === '' ? part : `${current} ${part}`;
      }
    }
    if (current !== '') pieces.push(current);
  }
  return pieces.length > 0 ? pieces : [''];
}

const chunkText = (title: string, body: string) => (body === '' ? title : `${title}\n${body}`);

/** Re-embeds every given document whose stored chunks are missing, stale or of another model. */
export async function ensureDocumentsIndexed(db: Client, adapter: EmbeddingAdapter, docs: SearchableDocument[]): Promise<number> {
  if (docs.length === 0) return 0;
  const rs = await db.execute({
    sql: `SELECT document_id, digest, model FROM ${DOCUMENT_CHUNKS_TABLE}
          WHERE chunk = 0 AND document_id IN (SELECT value FROM json_each(?))`,
    args: [JSON.stringify(docs.map((d) => d.id))],
  });
  const stored = new Map(rs.rows.map((r) => [String(r.document_id), { digest: String(r.digest), model: String(r.model) }]));
  const todo = docs
    .map((d) => ({ doc: d, digest: documentDigest(d) }))
    .filter(({ doc, digest }) => {
      const s = stored.get(doc.id);
      return s === undefined || s.digest !== digest || s.model !== adapter.id;
    });
  if (todo.length === 0) return 0;
  const chunked = todo.map((t) => ({ ...t, chunks: chunkDocument(t.doc) }));
  const texts = chunked.flatMap((t) => t.chunks.map((c) => chunkText(t.doc.title, c)));
  const vectors = await adapter.embed(texts);
  if (vectors.length !== texts.length) throw new Error(`embedding adapter ${adapter.id} returned ${vectors.length} vectors for ${texts.length} texts`);
  const statements: InStatement[] = [];
  let i = 0;
  for (const t of chunked) {
    statements.push({ sql: `DELETE FROM ${DOCUMENT_CHUNKS_TABLE} WHERE document_id = ?`, args: [t.doc.id] });
    t.chunks.forEach((_, n) => {
      const v = vectors[i++]!;
      statements.push({
        sql: `INSERT INTO ${DOCUMENT_CHUNKS_TABLE} (document_id, chunk, digest, model, embedding) VALUES (?, ?, ?, ?, vector32(?))`,
        args: [t.doc.id, n, t.digest, adapter.id, new Uint8Array(v.buffer, v.byteOffset, v.byteLength)],
      });
    });
  }
  await db.batch(statements, 'write');
  return todo.length;
}

/** Every live document (for indexing the seeded library at start). */
export async function indexAllDocuments(db: Client, adapter: EmbeddingAdapter): Promise<number> {
  const rs = await db.execute('SELECT id, title, abstract, text FROM documents WHERE removed_at IS NULL');
  return ensureDocumentsIndexed(db, adapter, rs.rows.map(toSearchable));
}

function toSearchable(r: Record<string, unknown>): SearchableDocument {
  return { id: String(r.id), title: String(r.title), abstract: String(r.abstract), text: String(r.text) };
}

/** The documents the user may read (owned, shared, published), with their content. */
async function readableDocuments(db: Client, userId: string): Promise<Array<SearchableDocument & { access: Access }>> {
  const rs = await db.execute({
    sql: `SELECT d.id, d.title, d.abstract, d.text,
                 CASE WHEN d.owner_id = :user THEN 'owner'
                      WHEN s.user_id IS NOT NULL THEN 'shared'
                      WHEN p.document_id IS NOT NULL THEN 'public' END AS access
          FROM documents d
          LEFT JOIN shares s ON s.document_id = d.id AND s.user_id = :user
          LEFT JOIN publications p ON p.document_id = d.id
          WHERE d.removed_at IS NULL
            AND (d.owner_id = :user OR s.user_id IS NOT NULL OR p.document_id IS NOT NULL)`,
    args: { user: userId },
  });
  return rs.rows.map((r) => ({ ...toSearchable(r), access: String(r.access) as Access }));
}

function snippetOf(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length <= SNIPPET_CHARS ? flat : `${flat.slice(0, SNIPPET_CHARS - 1).trimEnd()}…`;
}

/** Ranks the caller's readable documents against `query` by the best chunk's cosine similarity. */
export async function searchReadableDocuments(
  db: Client,
  adapter: EmbeddingAdapter,
  userId: string,
  query: string,
  limit: number,
): Promise<DocumentHit[]> {
  const docs = await readableDocuments(db, userId);
  if (docs.length === 0) return [];
  await ensureDocumentsIndexed(db, adapter, docs);
  const [q] = await adapter.embed([query]);
  if (!q) return [];
  const byId = new Map(docs.map((d) => [d.id, { doc: d, digest: documentDigest(d) }]));
  const rs = await db.execute({
    sql: `SELECT document_id, chunk, digest, 1 - vector_distance_cos(embedding, vector32(?)) AS score
          FROM ${DOCUMENT_CHUNKS_TABLE}
          WHERE model = ? AND document_id IN (SELECT value FROM json_each(?))`,
    args: [new Uint8Array(q.buffer, q.byteOffset, q.byteLength), adapter.id, JSON.stringify([...byId.keys()])],
  });
  const best = new Map<string, { score: number; chunk: number }>();
  for (const r of rs.rows) {
    const id = String(r.document_id);
    const entry = byId.get(id);
    // Only chunks of the content as it is now (a concurrent edit re-indexes on the next search).
    if (!entry || String(r.digest) !== entry.digest) continue;
    const score = Number(r.score);
    if (!Number.isFinite(score)) continue;
    const prev = best.get(id);
    if (!prev || score > prev.score) best.set(id, { score, chunk: Number(r.chunk) });
  }
  const hits: DocumentHit[] = [];
  for (const [id, { score, chunk }] of best) {
    if (score <= 0) continue;
    const { doc } = byId.get(id)!;
    const chunks = chunkDocument(doc);
    const body = chunks[chunk] ?? '';
    hits.push({
      id,
      title: doc.title,
      score: Math.min(1, Math.round(score * 1e6) / 1e6),
      access: doc.access,
      ...(body !== '' ? { snippet: snippetOf(body) } : {}),
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.title.localeCompare(b.title)).slice(0, limit);
}
