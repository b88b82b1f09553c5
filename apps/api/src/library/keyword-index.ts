/**
 * The keyword index of the library (SPEC §6b): SQLite FTS5 with BM25 over the chunks, in the
 * application database beside the vectors (tables: migration 011). It is derived data, written in
 * the same batch as a chunk's vector (index-store.ts writeChunks) and removed with it.
 *
 * User text never reaches FTS5 as syntax: it is cut at whitespace, and each piece holding a letter
 * or digit becomes one quoted phrase, the phrases joined by OR. FTS5 cuts a phrase into tokens as
 * it cut the passages, so "10.1038/nature21707" must match 10 · 1038 · nature21707 in a row, and
 * --max-pages max · pages in a row, while "8 DHW" finds passages with 8 and DHW (BM25 ranks those
 * with both, and with the rarer one, first).
 */
import type { Client, InStatement } from '@libsql/client';
import type { Chunk } from './chunks.ts';

/** Whitespace-separated pieces of a query searched at most (the rest are ignored). */
export const MAX_QUERY_TERMS = 32;

/** A piece of a query is searched only if FTS5 would find a token in it. */
const HAS_TOKEN = /[\p{L}\p{N}]/u;

/** The query's pieces as the user wrote them, without punctuation at their ends (for highlighting). */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  for (const piece of query.split(/\s+/u)) {
    const term = piece.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (HAS_TOKEN.test(term) && !terms.some((t) => t.toLowerCase() === term.toLowerCase())) terms.push(term);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/** A quoted FTS5 phrase: the only syntax user text ever appears in. */
function phrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** A single token naming an owner or a document in `scope` (hex never splits, never stems). */
export function scopeToken(kind: 'o' | 'd', id: string): string {
  return `${kind}${Buffer.from(id, 'utf8').toString('hex')}0`;
}

/**
 * The MATCH expression for a query in one owner's library (and one document of it): null when
 * the query holds nothing to search for.
 */
export function matchQuery(
  query: string | readonly string[],
  ownerId: string,
  documentId?: string,
): string | null {
  const terms = typeof query === 'string' ? queryTerms(query) : query;
  if (terms.length === 0) return null;
  const scope = [
    scopeToken('o', ownerId),
    ...(documentId === undefined ? [] : [scopeToken('d', documentId)]),
  ];
  return `scope : (${scope.map(phrase).join(' AND ')}) AND text : (${terms.map(phrase).join(' OR ')})`;
}

/** Adds one chunk (replacing it) to the keyword index, if its document still stands. */
export function writeKeywordStatements(doc: { id: string; ownerId: string }, chunk: Chunk): InStatement[] {
  return [
    ...deleteKeywordStatements('document_id = ? AND chunk = ?', [doc.id, chunk.chunk]),
    {
      sql: `INSERT INTO document_chunk_spans (document_id, chunk, start, end)
            SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ? AND removed_at IS NULL)`,
      args: [doc.id, chunk.chunk, chunk.start, chunk.end, doc.id],
    },
    {
      sql: `INSERT INTO document_keywords (rowid, text, scope)
            SELECT id, ?, ? FROM document_chunk_spans WHERE document_id = ? AND chunk = ?`,
      args: [chunk.text, `${scopeToken('o', doc.ownerId)} ${scopeToken('d', doc.id)}`, doc.id, chunk.chunk],
    },
  ];
}

/** Removes the keyword entries of the chunks `where` selects in document_chunk_spans. */
export function deleteKeywordStatements(where: string, args: Array<string | number>): InStatement[] {
  return [
    {
      sql: `DELETE FROM document_keywords WHERE rowid IN (SELECT id FROM document_chunk_spans WHERE ${where})`,
      args,
    },
    { sql: `DELETE FROM document_chunk_spans WHERE ${where}`, args },
  ];
}

/**
 * From this many indexed chunks on, a search ranks by its rarer terms only. Scoring rows is the
 * keyword search's whole cost (measured, 50k chunks: three terms in 41k rows each, 71 ms to rank,
 * 1.7 ms per term to count up to 25k rows), and the most common terms are worth least: FTS5's BM25
 * gives a term in half the rows or more an idf of 1e-6 (log((N - n + 0.5) / (n + 0.5)) ≤ 0,
 * floored), so it adds nothing to any score. Below this size everything is ranked. Not tuned.
 */
export const COMMON_TERMS_FROM = 10_000;

/**
 * Rows the ranked terms may match together in a large library: terms are taken rarest first while
 * their rows fit, and one matching more alone is left out (the vector list still ranks by the
 * query's meaning). Chosen so that ranking stays within the search's 30 ms at 100k chunks
 * (bench/README.md, the `library` figure); it trades away the least informative terms.
 */
export const RANKED_ROWS = 12_000;

/**
 * The terms worth ranking by (all of them in a small library; see above). Rows are counted over
 * every owner's chunks, as FTS5 counts them for BM25's idf: one owner's ranking depends on how
 * common a term is in the whole table (a coarse statistic, never a passage or a document).
 */
export async function rankingTerms(db: Client, terms: readonly string[]): Promise<string[]> {
  // The largest id bounds the rows from above at no cost (counting 100k rows is not free). Too high
  // a bound is safe: the drop rule then only takes terms in more than half the rows all the same.
  const rows = Number((await db.execute('SELECT max(id) AS n FROM document_chunk_spans')).rows[0]!.n ?? 0);
  if (rows < COMMON_TERMS_FROM) return [...terms];
  // Counting stops at the bound: a rare term costs its few rows, a common one the bound.
  const bound = Math.min(Math.ceil(rows / 2), RANKED_ROWS + 1);
  const rs = await db.execute({
    sql: `SELECT ${terms
      .map(
        (_, i) =>
          `(SELECT count(*) FROM (SELECT 1 FROM document_keywords WHERE document_keywords MATCH ? LIMIT ${bound})) AS c${i}`,
      )
      .join(', ')}`,
    args: terms.map((t) => `text : (${phrase(t)})`),
  });
  const counted = terms
    .map((term, i) => ({ term, n: Number(rs.rows[0]![`c${i}`]) }))
    .filter((t) => t.n < bound)
    .sort((a, b) => a.n - b.n);
  const kept = new Set<string>();
  let matched = 0;
  for (const { term, n } of counted) {
    if (matched + n > RANKED_ROWS) break;
    matched += n;
    kept.add(term);
  }
  return terms.filter((t) => kept.has(t));
}

export interface KeywordHit {
  documentId: string;
  chunk: number;
  /** BM25 as FTS5 gives it: lower is better (negative). */
  bm25: number;
}

/**
 * The owner's best-matching chunks of ready documents, best first: at most `depth` chunks are
 * ranked (chunks of documents being re-indexed are ranked too, then left out).
 */
export async function searchKeywords(
  db: Client,
  ownerId: string,
  query: string,
  depth: number,
  documentId?: string,
): Promise<KeywordHit[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const match = matchQuery(await rankingTerms(db, terms), ownerId, documentId);
  if (match === null) return [];
  // The scope column weighs nothing: only the passage's terms rank it.
  const rs = await db.execute({
    sql: `SELECT s.document_id, s.chunk, k.score FROM (
            SELECT rowid, bm25(document_keywords, 1.0, 0.0) AS score FROM document_keywords
            WHERE document_keywords MATCH ? ORDER BY score LIMIT ?
          ) k
          CROSS JOIN document_chunk_spans s ON s.id = k.rowid
          CROSS JOIN documents d ON d.id = s.document_id
          WHERE d.owner_id = ? AND d.index_state = 'ready' AND d.removed_at IS NULL
          ORDER BY k.score, s.document_id, s.chunk`,
    args: [match, depth, ownerId],
  });
  return rs.rows.map((r) => ({
    documentId: String(r.document_id),
    chunk: Number(r.chunk),
    bm25: Number(r.score),
  }));
}

/**
 * The terms of `query` found in a passage, spelt as the passage spells them (case aside), for
 * highlighting: each whole term, or failing that its stem without a plural ending.
 */
export function matchedTerms(query: string, passage: string): string[] {
  const found: string[] = [];
  for (const term of queryTerms(query)) {
    const forms = [term, term.replace(/(?:es|s)$/iu, '')].filter((f) => HAS_TOKEN.test(f));
    for (const form of forms) {
      const m = new RegExp(escapeRegExp(form), 'iu').exec(passage);
      if (m) {
        if (!found.includes(m[0])) found.push(m[0]);
        break;
      }
    }
  }
  return found;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
