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
 *
 * Each row's `scope` holds an owner token and a document token. A search in one document matches
 * within its document token; a search across a library matches within the owner's token, unless
 * the owner holds nearly every row (see searchKeywords). Either way the ranked rows are joined to
 * the owner's ready documents in SQL, so another owner's chunk never comes back.
 */
import type { Client, InStatement } from '@libsql/client';
import { isStopWord } from '@oh/embeddings';
import type { Chunk } from './chunks.ts';
import { LIVE_DOCUMENT, OWNER_SEARCHABLE, searchable } from '../documents/rules.ts';

/** Whitespace-separated pieces of a query searched at most (the rest are ignored). */
const MAX_QUERY_TERMS = 32;

/** A piece of a query is searched only if FTS5 would find a token in it. */
const HAS_TOKEN = /[\p{L}\p{N}]/u;

/** The query's pieces as the user wrote them, without punctuation at their ends (for highlighting). */
export function queryTerms(query: string): string[] {
  const terms: string[] = [];
  // FTS5 reads a NUL as the end of its query ("unterminated string"): it separates pieces here.
  for (const piece of query.replaceAll('\u0000', ' ').split(/\s+/u)) {
    const term = piece.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (HAS_TOKEN.test(term) && !terms.some((t) => t.toLowerCase() === term.toLowerCase())) terms.push(term);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/**
 * The terms that say what a query is about: its terms (queryTerms) without function words, or all
 * of them when every one is a function word ("The Who"). The function words are those the local
 * embedding adapter's features leave out: they neither make a passage a keyword hit nor are marked
 * in it (they still rank, where BM25 gives them an idf worth counting).
 */
export function contentTerms(terms: readonly string[]): string[] {
  const content = terms.filter((t) => !isStopWord(t.toLowerCase()));
  return content.length > 0 ? content : [...terms];
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
 * The MATCH expression for a query's terms, within every token of `scope` (scopeToken; none: the
 * whole table). Null when the query holds nothing to search for.
 */
export function matchQuery(query: string | readonly string[], scope: readonly string[] = []): string | null {
  const terms = typeof query === 'string' ? queryTerms(query) : query;
  if (terms.length === 0) return null;
  const text = `text : (${terms.map(phrase).join(' OR ')})`;
  return scope.length === 0 ? text : `scope : (${scope.map(phrase).join(' AND ')}) AND ${text}`;
}

/**
 * Adds one chunk (replacing it) to the keyword index, if its document still stands and `onlyIf`
 * holds (the indexer's lease on the document, work-lease.ts): each statement checks it, so none
 * of them is made by a writer whose lease went to another.
 */
export function writeKeywordStatements(
  doc: { id: string; ownerId: string },
  chunk: Chunk,
  onlyIf: { sql: string; args: readonly string[] },
): InStatement[] {
  return [
    ...deleteKeywordStatements(`document_id = ? AND chunk = ? AND ${onlyIf.sql}`, [
      doc.id,
      chunk.chunk,
      ...onlyIf.args,
    ]),
    {
      sql: `INSERT INTO document_chunk_spans (document_id, chunk, start, end)
            SELECT ?, ?, ?, ? WHERE ${LIVE_DOCUMENT}
              AND ${onlyIf.sql}`,
      args: [doc.id, chunk.chunk, chunk.start, chunk.end, doc.id, ...onlyIf.args],
    },
    {
      sql: `INSERT INTO document_keywords (rowid, text, scope)
            SELECT id, ?, ? FROM document_chunk_spans WHERE document_id = ? AND chunk = ? AND ${onlyIf.sql}`,
      args: [
        chunk.text,
        `${scopeToken('o', doc.ownerId)} ${scopeToken('d', doc.id)}`,
        doc.id,
        chunk.chunk,
        ...onlyIf.args,
      ],
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
 * (bench/README.md, the `library` figure); it trades away the least informative terms. BM25 costs
 * about 0.55 µs a row (it reads each row's size and positions; measured at 100k chunks, a term in
 * 10k rows: 5.5–6 ms to rank, 0.3 ms to count), so these rows cost 6–7 ms at most.
 */
export const RANKED_ROWS = 12_000;

/**
 * The terms worth ranking by (all of them in a small library; see above). Rows are counted over
 * every owner's chunks, as FTS5 counts them for BM25's idf: one owner's ranking depends on how
 * common a term is in the whole table (a coarse statistic, never a passage or a document).
 */
export async function rankingTerms(
  db: Client,
  terms: readonly string[],
  rows?: number,
  known?: TermCounts,
): Promise<string[]> {
  rows ??= await indexedRows(db);
  if (rows < COMMON_TERMS_FROM) return [...terms];
  const { bound, counts } =
    known && terms.every((t) => known.counts.has(t)) ? known : await countTerms(db, terms, rows);
  const counted = terms
    .map((term) => ({ term, n: counts.get(term)! }))
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

/**
 * Where counting a term's rows stops: a rare term costs its few rows, a common one the bound. In a
 * small index every count is exact; from COMMON_TERMS_FROM rows on, a term in half the rows or in
 * more than RANKED_ROWS is as good as common.
 */
function countBound(rows: number): number {
  return rows < COMMON_TERMS_FROM ? rows + 1 : Math.min(Math.ceil(rows / 2), RANKED_ROWS + 1);
}

/** Rows of the index (INDEXED_ROWS). */
export async function indexedRows(db: Client): Promise<number> {
  return Number((await db.execute(`SELECT ${INDEXED_ROWS} AS n`)).rows[0]!.n ?? 0);
}

/** How many rows of the whole index some terms match, each counted up to `bound` (countBound). */
export interface TermCounts {
  rows: number;
  bound: number;
  counts: ReadonlyMap<string, number>;
}

/**
 * Counts the rows each term matches, once per search: rankingTerms and termWeights both read it
 * (at 100k chunks three common terms cost about 2.5 ms to count).
 */
export async function countTerms(db: Client, terms: readonly string[], rows?: number): Promise<TermCounts> {
  rows ??= await indexedRows(db);
  const bound = countBound(rows);
  const unique = [...new Set(terms)];
  const counts = new Map<string, number>();
  if (unique.length === 0) return { rows, bound, counts };
  const rs = await db.execute({
    sql: `SELECT ${unique
      .map(
        (_, i) =>
          `(SELECT count(*) FROM (SELECT 1 FROM document_keywords WHERE document_keywords MATCH ? LIMIT ${bound})) AS c${i}`,
      )
      .join(', ')}`,
    args: unique.map((t) => `text : (${phrase(t)})`),
  });
  unique.forEach((t, i) => counts.set(t, Number(rs.rows[0]![`c${i}`])));
  return { rows, bound, counts };
}

/**
 * What each of a query's content terms weighs in telling passages apart: its inverse document
 * frequency over the whole index, ln(1 + (N − n + 0.5) / (n + 0.5)) for a term in n of N rows
 * (BM25's, the form that is never negative), counted as FTS5 counts for BM25 (every owner's rows:
 * a coarse statistic, never a passage). A term in no row weighs most.
 */
export function termWeights(known: TermCounts, terms: readonly string[]): number[] {
  return terms.map((t) => {
    const n = known.counts.get(t) ?? 0;
    return Math.log(1 + (Math.max(known.rows, n) - n + 0.5) / (n + 0.5));
  });
}

/**
 * Below this many of its rows per chunk asked about, a term's rows are walked and kept when asked
 * about; from it on, each chunk is looked up by its row. Measured at 100k chunks (the `library`
 * figure's library): a look-up costs about 17 µs, walking a term's rows about 0.1 µs a row.
 */
const WALK_ROWS_PER_CHUNK = 100;

/**
 * Which of `terms` each of some chunks (their rows in the index) holds, as FTS5 matches them:
 * tokenized and stemmed as the passages were, so "bleaching" is held by a passage saying
 * "bleached". A rare term's rows are walked; a common one's looked up chunk by chunk (`known`).
 */
export async function termsHeld(
  db: Client,
  rows: readonly number[],
  terms: readonly string[],
  known: TermCounts,
): Promise<Map<number, Set<number>>> {
  const held = new Map<number, Set<number>>();
  if (rows.length === 0 || terms.length === 0) return held;
  const ids = JSON.stringify(rows);
  const walk = (t: string) => (known.counts.get(t) ?? known.bound) < WALK_ROWS_PER_CHUNK * rows.length;
  const rs = await db.execute({
    sql: terms
      .map((t, i) =>
        walk(t)
          ? `SELECT ${i} AS term, rowid AS row FROM document_keywords
             WHERE document_keywords MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`
          : `SELECT ${i} AS term, h.value AS row FROM json_each(?) h
             CROSS JOIN document_keywords k ON k.rowid = h.value WHERE document_keywords MATCH ?`,
      )
      .join(' UNION ALL '),
    args: terms.flatMap((t) => (walk(t) ? [`text : (${phrase(t)})`, ids] : [ids, `text : (${phrase(t)})`])),
  });
  for (const r of rs.rows) {
    const row = Number(r.row);
    let set = held.get(row);
    if (!set) held.set(row, (set = new Set()));
    set.add(Number(r.term));
  }
  return held;
}

/**
 * Rows in the keyword index, at most: the largest span id bounds them at no cost (counting 100k
 * rows is not free). Too high a bound is safe: rankingTerms then only drops terms in more than half
 * the rows all the same, and searchKeywords keeps the owner's token.
 */
const INDEXED_ROWS = '(SELECT max(id) FROM document_chunk_spans)';

interface LibrarySize {
  rows: number;
  owned: number;
}

/**
 * Whether a match across the owner's library leaves the owner's scope token out (UNSCOPED_SHARE):
 * the rows matched that are not the owner's are then ranked too, and dropped by the join.
 */
const unscoped = ({ rows, owned }: LibrarySize) => owned > 0 && owned >= UNSCOPED_SHARE * rows;

/**
 * The rows (INDEXED_ROWS), and how many of them are the owner's chunks of ready documents, summed
 * over the documents' `index_total` from documents_searchable (migration 014), which covers it.
 */
async function librarySize(db: Client, ownerId: string): Promise<LibrarySize> {
  const rs = await db.execute({
    sql: `SELECT ${INDEXED_ROWS} AS rows,
            (SELECT coalesce(sum(index_total), 0) FROM ${OWNER_SEARCHABLE}) AS owned`,
    args: [ownerId],
  });
  return { rows: Number(rs.rows[0]!.rows ?? 0), owned: Number(rs.rows[0]!.owned) };
}

/**
 * Across a library, the owner's scope token is left out of the match when the owner holds at least
 * this share of the rows. Measured at 100k chunks of one owner: ranking a term in 10k rows took
 * 10.3 ms within the owner's token and 6.1 ms without it. The token is in every one of the owner's
 * rows, so FTS5 walks its whole doclist twice, to intersect it with the terms and to count it for
 * BM25's idf (2.9 ms alone), whatever the terms: a cost in proportion to the owner's chunks, that
 * buys nothing when nearly every row is theirs. Left out, the other rows that match are ranked too
 * and then dropped by the join, a cost in proportion to them. The share is not tuned: it keeps
 * the fallback rare (with the owner's rows spread as the others', 2 × depth rows ranked hold
 * about 1.5 × depth of theirs).
 */
export const UNSCOPED_SHARE = 0.75;

export interface KeywordHit {
  documentId: string;
  chunk: number;
  /** The chunk's row in the index (termsHeld). */
  row: number;
  /** BM25 as FTS5 gives it: lower is better (negative). */
  bm25: number;
}

/**
 * The owner's best-matching chunks of ready documents, best first: at most `depth` of them. Only
 * the owner's chunks of ready documents come back, whichever way the rows were matched (chunks of
 * documents being re-indexed are ranked too, then left out).
 */
export async function searchKeywords(
  db: Client,
  ownerId: string,
  query: string,
  depth: number,
  documentId?: string,
  known?: TermCounts,
  only?: ReadonlySet<string>,
): Promise<KeywordHit[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const { rows, owned } = await librarySize(db, ownerId);
  const ranked = await rankingTerms(db, terms, rows, known);
  if (ranked.length === 0) return [];
  // One document: its own token is selective (its chunks only), and the join checks the owner.
  if (documentId !== undefined)
    return rankOwned(db, matchQuery(ranked, [scopeToken('d', documentId)])!, depth, ownerId, depth);
  if (only !== undefined) return rankAmong(db, ranked, ownerId, depth, only, { rows, owned });
  // Rows that may be someone else's, or chunks of the owner's documents not ready (an upper bound).
  const others = Math.max(0, rows - owned);
  if (unscoped({ rows, owned })) {
    // At most `others` of the rows ranked are not the owner's, so ranking depth + others holds
    // the owner's best `depth`. Each row more costs the join about 1.2 µs (measured), so the
    // ranking goes no deeper than 2 × depth: then either `depth` of the owner's are among them,
    // or every match was ranked, or the owner's token is needed after all (ranked again with it).
    const deep = Math.min(depth + others, 2 * depth);
    const match = matchQuery(ranked)!;
    const hits = await rankOwned(db, match, deep, ownerId, depth);
    if (hits.length === depth || (await countMatches(db, match, deep)) < deep) return hits;
  }
  return rankOwned(db, matchQuery(ranked, [scopeToken('o', ownerId)])!, depth, ownerId, depth);
}

/**
 * Documents one match names by their tokens when a search is narrowed to some of the owner's
 * documents (a tag). Not measured: each token is one more posting list to merge; more documents
 * are ranked in several matches of this many, merged by score. The owner's token is not in these
 * matches: the documents' own tokens say as much (the join checks the owner), and the owner's is
 * in every one of their rows, a doclist of a million entries in a library of a million chunks.
 */
const SCOPED_DOCUMENTS = 256;

/**
 * How much deeper than `depth` the owner's own ranking goes, at most, to find the best chunks of
 * many tagged documents among the owner's. Measured with 100k chunks in 10k documents: 5,000
 * tagged took 133 ms in matches of 256 documents, the owner's ranking a few milliseconds.
 */
const WIDE_RANKING = 20;

/**
 * What each way costs, so a tag takes the cheaper one: matches within the tagged documents' tokens
 * about 25 µs a document (measured: 5,000 tagged of 10k documents, 100k chunks, 133 ms; 1,000 of
 * 10,000 documents, a million chunks, 23 ms), the owner's wide ranking about 7.5 µs a row ranked
 * at a million chunks (8,000 rows: 60 ms; less in a smaller index, which only favours it more).
 */
const TAGGED_DOCUMENT_US = 25;
const WIDE_ROW_US = 7.5;

/**
 * The owner's best `depth` chunks among the documents `only` (SearchOptions.tag). When they are
 * many and that is cheaper (wideRanking), the owner's own ranking is read deep enough to hold
 * about twice `depth` of theirs: if it holds `depth` (or every match), those are the best. Else
 * only their chunks are ranked, in matches of SCOPED_DOCUMENTS documents' tokens: BM25 weighs the
 * scope column 0 and takes its statistics from the whole table, so the scores of several matches
 * compare and their merge is exact.
 */
async function rankAmong(
  db: Client,
  terms: readonly string[],
  ownerId: string,
  depth: number,
  only: ReadonlySet<string>,
  size: LibrarySize,
): Promise<KeywordHit[]> {
  const wanted = await wideRanking(db, ownerId, depth, only);
  if (wanted > 0) {
    // As searchKeywords ranks the owner's library: without the owner's token when nearly every
    // row is theirs, a little deeper for the others' rows the join drops.
    const open = unscoped(size);
    const ranked = open ? Math.min(wanted + Math.max(0, size.rows - size.owned), 2 * wanted) : wanted;
    const match = matchQuery(terms, open ? [] : [scopeToken('o', ownerId)])!;
    const theirs = (await rankOwned(db, match, ranked, ownerId, ranked)).filter((h) =>
      only.has(h.documentId),
    );
    if (theirs.length >= depth || (await countMatches(db, match, ranked)) < ranked)
      return theirs.slice(0, depth);
  }
  // Each match ranks rows alone; only the best `depth` of all of them are joined to their
  // documents, once (a join costs about 3 µs a row at a million chunks, measured).
  const ids = [...only];
  const ranked: Array<{ row: number; score: number }> = [];
  for (let i = 0; i < ids.length; i += SCOPED_DOCUMENTS) {
    const documents = ids.slice(i, i + SCOPED_DOCUMENTS).map((id) => phrase(scopeToken('d', id)));
    const rs = await db.execute({
      sql: `SELECT rowid, bm25(document_keywords, 1.0, 0.0) AS score FROM document_keywords
            WHERE document_keywords MATCH ? ORDER BY score LIMIT ?`,
      args: [`scope : (${documents.join(' OR ')}) AND ${matchQuery(terms)!}`, depth],
    });
    for (const r of rs.rows) ranked.push({ row: Number(r.rowid), score: Number(r.score) });
  }
  ranked.sort((a, b) => a.score - b.score);
  // Rows tied with the last kept are kept too: the join orders ties as every ranking here does.
  const last = ranked[depth - 1]?.score ?? Number.POSITIVE_INFINITY;
  return ownedRows(
    db,
    ranked.filter((r) => r.score <= last),
    ownerId,
    depth,
  );
}

/** The owner's ready documents' best `depth` of some rows ranked already, in the ranking's order. */
async function ownedRows(
  db: Client,
  ranked: ReadonlyArray<{ row: number; score: number }>,
  ownerId: string,
  depth: number,
): Promise<KeywordHit[]> {
  if (ranked.length === 0) return [];
  const rs = await db.execute({
    sql: `SELECT s.document_id, s.chunk, s.id, json_extract(k.value, '$[1]') AS score
          FROM json_each(?) k
          CROSS JOIN document_chunk_spans s ON s.id = json_extract(k.value, '$[0]')
          CROSS JOIN documents d ON d.id = s.document_id
          WHERE d.owner_id = ? AND ${searchable('d')}
          ORDER BY score, s.document_id, s.chunk
          LIMIT ?`,
    args: [JSON.stringify(ranked.map((r) => [r.row, r.score])), ownerId, depth],
  });
  return rs.rows.map((r) => ({
    documentId: String(r.document_id),
    chunk: Number(r.chunk),
    row: Number(r.id),
    bm25: Number(r.score),
  }));
}

/**
 * Rows of the owner's own ranking that hold about twice `depth` of the documents `only`, when
 * ranking those is cheaper than matching within their tokens (TAGGED_DOCUMENT_US); else 0.
 */
async function wideRanking(
  db: Client,
  ownerId: string,
  depth: number,
  only: ReadonlySet<string>,
): Promise<number> {
  if (only.size <= SCOPED_DOCUMENTS) return 0;
  const rs = await db.execute({ sql: `SELECT count(*) AS n FROM ${OWNER_SEARCHABLE}`, args: [ownerId] });
  const rows = depth * Math.min(WIDE_RANKING, Math.ceil((2 * Number(rs.rows[0]!.n)) / only.size));
  return only.size * TAGGED_DOCUMENT_US > rows * WIDE_ROW_US ? rows : 0;
}

/**
 * The best `ranked` rows of a match by BM25, joined to the owner's ready documents: their best
 * `depth` chunks. The scope column weighs nothing, so a scope in the match changes no score.
 */
async function rankOwned(
  db: Client,
  match: string,
  ranked: number,
  ownerId: string,
  depth: number,
): Promise<KeywordHit[]> {
  // The documents' check is answered from documents_searchable (owner_id, id), without reading
  // the documents' rows.
  const rs = await db.execute({
    sql: `SELECT s.document_id, s.chunk, s.id, k.score FROM (
            SELECT rowid, bm25(document_keywords, 1.0, 0.0) AS score FROM document_keywords
            WHERE document_keywords MATCH ? ORDER BY score LIMIT ?
          ) k
          CROSS JOIN document_chunk_spans s ON s.id = k.rowid
          CROSS JOIN documents d ON d.id = s.document_id
          WHERE d.owner_id = ? AND ${searchable('d')}
          ORDER BY k.score, s.document_id, s.chunk
          LIMIT ?`,
    args: [match, ranked, ownerId, depth],
  });
  return rs.rows.map((r) => ({
    documentId: String(r.document_id),
    chunk: Number(r.chunk),
    row: Number(r.id),
    bm25: Number(r.score),
  }));
}

/** Rows a match finds, counted up to `bound` (a term's rows cost about 0.03 µs each). */
async function countMatches(db: Client, match: string, bound: number): Promise<number> {
  const rs = await db.execute({
    sql: 'SELECT count(*) AS n FROM (SELECT 1 FROM document_keywords WHERE document_keywords MATCH ? LIMIT ?)',
    args: [match, bound],
  });
  return Number(rs.rows[0]!.n);
}

/**
 * Pages (FTS5's 4 KB) one step of the keyword index's merge writes: each step is a short write
 * transaction of its own, so other writers wait for a step, never for the whole merge. Not
 * measured; the whole merge of a million chunks took 5.6 s as one 'optimize' (measured).
 */
const MERGE_PAGES = 1_000;

/**
 * One step of merging the keyword index's b-trees into one (FTS5's 'merge' command): the first
 * step of a merge puts every b-tree on one level, so all of them are merged, the next ones go on
 * with it. True while a step found work; FTS5 tells by the changes the command made.
 */
export async function mergeKeywordsStep(db: Client, first: boolean): Promise<boolean> {
  const [before, , after] = await db.batch(
    [
      'SELECT total_changes() AS n',
      {
        sql: "INSERT INTO document_keywords (document_keywords, rank) VALUES ('merge', ?)",
        args: [first ? -MERGE_PAGES : MERGE_PAGES],
      },
      'SELECT total_changes() AS n',
    ],
    'write',
  );
  return Number(after!.rows[0]!.n) - Number(before!.rows[0]!.n) >= 2;
}

/**
 * What highlight() puts around a matched word: control characters, which text documents are stripped
 * of. Should a PDF's text hold one, a marked word is cut wrong, never more: the words are only marked.
 */
const OPEN = '\u0001';
const CLOSE = '\u0002';

/**
 * The words of each passage that match the query's content terms, spelt as the passage spells them
 * ("bleached" for "bleaching", "DHW" for "dhw"), for highlighting: FTS5's own highlight() marks the
 * tokens its match found, so what is marked is what matched. Passages that hold none are left out.
 */
export async function matchedWords(
  db: Client,
  passages: ReadonlyArray<{ documentId: string; chunk: number }>,
  terms: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const match = matchQuery(terms);
  if (passages.length === 0 || match === null) return out;
  const rs = await db.execute({
    sql: `SELECT s.document_id, s.chunk, highlight(document_keywords, 0, ?, ?) AS marked
          FROM json_each(?) AS h
          CROSS JOIN document_chunk_spans s
            ON s.document_id = json_extract(h.value, '$[0]') AND s.chunk = json_extract(h.value, '$[1]')
          CROSS JOIN document_keywords ON document_keywords.rowid = s.id
          WHERE document_keywords MATCH ?`,
    args: [OPEN, CLOSE, JSON.stringify(passages.map((p) => [p.documentId, p.chunk])), match],
  });
  for (const r of rs.rows) {
    const words: string[] = [];
    // Each piece after an opening mark holds a matched word up to its closing mark.
    for (const piece of String(r.marked).split(OPEN).slice(1)) {
      const word = piece.split(CLOSE)[0]!;
      if (word !== '' && !words.some((w) => w.toLowerCase() === word.toLowerCase())) words.push(word);
    }
    out.set(`${String(r.document_id)}#${Number(r.chunk)}`, words);
  }
  return out;
}
