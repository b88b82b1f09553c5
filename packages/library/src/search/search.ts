/**
 * `documents.search` (SPEC §6b, §6d): ranks only the caller's own documents, hybrid by default: the
 * keyword index (keyword-index.ts, FTS5 BM25) and the vector index each rank candidates, and
 * reciprocal rank fusion (k = 60, the vector list weighted by VECTOR_WEIGHT) merges the two lists.
 * It can say no: a hit comes back only when its passage holds a content word of the query or its
 * similarity reaches a floor, and a query that finds nothing substantial gets `[]` (chooseHits);
 * a hit's score is the calibrated chance that it is relevant (calibration.ts). Across the library
 * the lists are of documents (each document's best chunk, as vector search has always answered)
 * and a hit is a document with its best passage; within one document (`documentId`) they are of
 * chunks, and every hit is a passage of it. The passage shown is the chunk of the list that ranked the
 * document higher (the keyword one on a tie: it holds the terms). `keyword` and `vector` modes
 * rank with one list alone (the relevance test compares the three).
 *
 * Each API process keeps
 * one in-memory vector index per owner (vector-index.ts), filled from `document_chunks` and
 * checked against the owner's library version before every search, so a document another
 * process indexed or removed is reflected at once. The database stays the truth: passages are
 * read back from it, re-checking owner and state, and the index can always be rebuilt.
 *
 * Chosen by measurement (bench/src/figures/document-search.ts): an SQL scan with
 * `vector_distance_cos` grows linearly with the owner's chunks; an in-memory HNSW graph does not.
 */
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import {
  libraryVersion,
  loadPassages,
  loadVectors,
  readyDocumentIds,
  taggedDocuments,
} from './index-store.ts';
import type { HitDocument } from './index-store.ts';
import {
  COMMON_TERMS_FROM,
  contentTerms,
  countTerms,
  indexedRows,
  matchedWords,
  queryTerms,
  searchKeywords,
  termWeights,
  termsHeld,
} from './keyword-index.ts';
import { OwnerVectorIndex } from './vector-index.ts';
import { hitScore, searchCalibration } from './calibration.ts';
import type { SearchCalibration } from './calibration.ts';
import { searchable } from '../documents/rules.ts';

export interface DocumentHit extends HitDocument {
  /** The document (`id` and `documentId` are the same; `id` is what the web has always read). */
  id: string;
  documentId: string;
  title: string;
  /**
   * 0..1: the chance that a reader asking the query judges this document relevant, estimated from
   * the share of the query's content words its best keyword passage holds and its best passage's
   * similarity (the words alone for a model without a measured calibration), calibrated on the
   * relevance set (calibration.ts). 0.9 means about 9 in 10 such
   * hits were relevant there; a hit holding one common word of the query scores a few hundredths.
   * Hits are ordered by the fusion, so a score may be below the next hit's.
   */
  score: number;
  access: 'owner';
  /** The best-matching passage, its page (1-based) and its chunk number. */
  passage: string;
  page: number;
  chunk: number;
  /** The passage's span in the document's text ([0, 0) for a passage of the abstract). */
  start: number;
  end: number;
  /**
   * The passage's words that matched the query's content words, as the passage spells them
   * ("bleached" for "bleaching"), for highlighting; empty for a passage found by meaning alone.
   */
  terms: string[];
}

export type SearchMode = 'keyword' | 'vector' | 'hybrid';

export interface SearchOptions {
  /** Narrows to one of the owner's documents (another's finds nothing); hits are then its passages. */
  documentId?: string;
  /** Narrows to the owner's documents with this tag, as tags are kept (normalised, any case). */
  tag?: string;
  /** `hybrid` unless told. */
  mode?: SearchMode;
}

/** Reciprocal rank fusion's constant: a list's rank r counts 1 / (RRF_K + r). */
export const RRF_K = 60;

/**
 * What a vector rank counts for beside a keyword rank in the fused sum (weighted RRF). Measured on
 * the relevance set (relevance/, 48 judged queries) with the local hashing adapter: 0.2 to 0.33
 * keep hybrid at keyword's 1.000 MRR@10 on exact-term queries and above both methods on the
 * descriptive ones; 0.4 and 0.5 leave exact-term MRR@10 at 0.979 (a keyword first dropped to
 * second by another document's vector first), and 1 (plain RRF) at 0.938. A better embedding
 * model deserves a higher weight: measure it again with the relevance figure when changing it.
 */
export const VECTOR_WEIGHT = 0.3;

/**
 * Candidates each list ranks before fusion (documents across the library, chunks in one document).
 * Not measured: deeper lists let a document ranked low by one method but high by the other rise.
 */
const CANDIDATES = 100;

/** Keyword chunks ranked to find the best chunks of `CANDIDATES` documents. Not measured. */
const KEYWORD_CHUNKS = 400;

export interface LibrarySearch {
  search(ownerId: string, query: string, limit: number, options?: SearchOptions): Promise<DocumentHit[]>;
  /**
   * The two lists a search chooses its hits from (chooseHits), unfused: the relevance test
   * measures the floor and the calibration from them.
   */
  lists(ownerId: string, query: string, options?: SearchOptions): Promise<SearchLists>;
  /** Drops an owner's in-memory index (it is rebuilt on their next search). */
  forget(ownerId: string): void;
  /** Resolves when the owner's index holds every vector it loaded in its graph (bench, tests). */
  settled(ownerId: string): Promise<void>;
  close(): void;
}

interface OwnerEntry {
  version: number;
  index: OwnerVectorIndex;
  /** An ongoing sync, shared by searches that arrive meanwhile. */
  syncing: Promise<void> | null;
  /** Searches between picking this entry and reading its index: it is not dropped meanwhile. */
  inUse: number;
}

/**
 * Documents whose vectors are read in one query while an index fills. Not measured: more is fewer
 * queries and a longer single read for the first search after the library grew.
 */
const LOAD_DOCUMENTS_PER_QUERY = 50;

/**
 * Vectors kept in memory across owners before the least recently searched owners are dropped
 * (they are rebuilt from the database on their next search). Measured: a built index of 200,000
 * vectors takes 0.95–1.02 KB a vector of the process (vector-index.ts), so this default bounds the
 * indexes near 400 MiB.
 */
const DEFAULT_MAX_VECTORS = 400_000;

export function createLibrarySearch(options: {
  db: Client;
  adapter: EmbeddingAdapter;
  /** See DEFAULT_MAX_VECTORS; an owner being searched is always kept. */
  maxVectors?: number;
  /** The floor and the scores' meaning for the adapter (calibration.ts); the measured one unless told. */
  calibration?: SearchCalibration;
  /** EMBEDDINGS_SIMILARITY_FLOOR: the floor for an adapter without a measured one (searchCalibration). */
  similarityFloor?: number;
  log?: { warn(details: object, message: string): void };
}): LibrarySearch {
  const { db, adapter } = options;
  const maxVectors = options.maxVectors ?? DEFAULT_MAX_VECTORS;
  const chosen = searchCalibration(adapter.id, options.similarityFloor);
  const calibration = options.calibration ?? chosen.calibration;
  if (options.calibration === undefined && chosen.warning)
    options.log?.warn({ adapter: adapter.id }, chosen.warning);
  const owners = new Map<string, OwnerEntry>();

  function entryOf(ownerId: string): OwnerEntry {
    let entry = owners.get(ownerId);
    if (entry) owners.delete(ownerId);
    else
      entry = {
        version: -1,
        index: new OwnerVectorIndex({
          dimensions: adapter.dimensions,
          onBuildError: (err) =>
            options.log?.warn({ err, ownerId }, 'building a search index failed; searching it exactly'),
        }),
        syncing: null,
        inUse: 0,
      };
    owners.set(ownerId, entry); // most recently used last
    let held = 0;
    for (const e of owners.values()) held += e.index.size;
    for (const [id, old] of owners) {
      if (held <= maxVectors || id === ownerId) break;
      if (old.inUse > 0) continue; // a search is using it right now
      held -= old.index.size;
      owners.delete(id);
      old.index.close();
    }
    return entry;
  }

  /** Brings the owner's index to the library version read first (a later change re-syncs). */
  async function sync(ownerId: string, entry: OwnerEntry): Promise<void> {
    const version = await libraryVersion(db, ownerId);
    if (version === entry.version) return;
    const ready = new Set(await readyDocumentIds(db, ownerId));
    for (const id of entry.index.documentIds()) if (!ready.has(id)) entry.index.removeDocument(id);
    const missing = [...ready].filter((id) => !entry.index.hasDocument(id));
    for (let i = 0; i < missing.length; i += LOAD_DOCUMENTS_PER_QUERY) {
      const vectors = await loadVectors(db, missing.slice(i, i + LOAD_DOCUMENTS_PER_QUERY), adapter.id);
      for (const [id, chunks] of vectors) entry.index.addDocument(id, chunks);
    }
    entry.version = version;
  }

  async function current(ownerId: string, entry: OwnerEntry): Promise<OwnerEntry> {
    while (entry.syncing) await entry.syncing;
    entry.syncing = sync(ownerId, entry).finally(() => {
      entry.syncing = null;
    });
    await entry.syncing;
    return entry;
  }

  /** The vector list: each document's best chunk across the library, or one document's chunks. */
  async function vectorList(
    ownerId: string,
    query: string,
    options: SearchOptions,
    only: ReadonlySet<string> | undefined,
  ): Promise<Ranked[]> {
    if (options.documentId !== undefined) {
      const [[q], vectors] = await Promise.all([
        adapter.embed([query]),
        ownsReady(ownerId, options.documentId).then((owned) =>
          owned ? loadVectors(db, [options.documentId!], adapter.id) : new Map<string, never[]>(),
        ),
      ]);
      const chunks = vectors.get(options.documentId) ?? [];
      if (!q) return [];
      return chunks
        .map(({ chunk, vector }) => ({ documentId: options.documentId!, chunk, score: cosine(q, vector) }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || a.chunk - b.chunk)
        .slice(0, CANDIDATES);
    }
    const entry = entryOf(ownerId);
    entry.inUse++;
    try {
      const [, [q]] = await Promise.all([current(ownerId, entry), adapter.embed([query])]);
      if (!q || entry.index.size === 0) return [];
      return entry.index.search(q, CANDIDATES, only).filter((h) => h.score > 0);
    } finally {
      entry.inUse--;
    }
  }

  /** The keyword list: documents by their best chunk, or one document's chunks. */
  async function keywordList(
    ownerId: string,
    query: string,
    options: SearchOptions,
    only: ReadonlySet<string> | undefined,
  ): Promise<KeywordCandidate[]> {
    const { documentId } = options;
    const terms = queryTerms(query);
    const content = contentTerms(terms);
    // Counted once: the ranking's choice of terms (a large library) and the content terms' weights.
    const rows = await indexedRows(db);
    const known = await countTerms(db, rows < COMMON_TERMS_FROM ? content : terms, rows);
    const chunks = await searchKeywords(
      db,
      ownerId,
      query,
      documentId ? CANDIDATES : KEYWORD_CHUNKS,
      documentId,
      known,
      only,
    );
    let ranked = chunks;
    if (documentId === undefined) {
      const seen = new Set<string>();
      ranked = ranked.filter((h) => !seen.has(h.documentId) && seen.add(h.documentId)).slice(0, CANDIDATES);
    }
    const weights = termWeights(known, content);
    const held = await termsHeld(
      db,
      ranked.map((h) => h.row),
      content,
      known,
    );
    const total = weights.reduce((a, b) => a + b, 0);
    return ranked.map((h) => {
      const terms = [...(held.get(h.row) ?? [])];
      return {
        documentId: h.documentId,
        chunk: h.chunk,
        score: -h.bm25,
        held: terms.length,
        share: total > 0 ? terms.reduce((a, i) => a + weights[i]!, 0) / total : 0,
      };
    });
  }

  async function lists(ownerId: string, query: string, options: SearchOptions = {}): Promise<SearchLists> {
    const mode = options.mode ?? 'hybrid';
    // A tag narrows both lists to the owner's documents that have it (a document asked for too).
    const only = options.tag === undefined ? undefined : await taggedDocuments(db, ownerId, options.tag);
    if (only && (only.size === 0 || (options.documentId !== undefined && !only.has(options.documentId))))
      return { keyword: [], vector: [] };
    const [vector, keyword] = await Promise.all([
      mode === 'keyword' ? [] : vectorList(ownerId, query, options, only),
      mode === 'vector' ? [] : keywordList(ownerId, query, options, only),
    ]);
    return { keyword, vector };
  }

  async function ownsReady(ownerId: string, documentId: string): Promise<boolean> {
    const rs = await db.execute({
      sql: `SELECT 1 FROM documents WHERE id = ? AND owner_id = ? AND ${searchable('documents')}`,
      args: [documentId, ownerId],
    });
    return rs.rows.length > 0;
  }

  return {
    lists,
    async search(ownerId, query, limit, options = {}) {
      const mode = options.mode ?? 'hybrid';
      const { keyword, vector } = await lists(ownerId, query, options);
      const top = chooseHits(keyword, vector, {
        perChunk: options.documentId !== undefined,
        mode,
        calibration,
      }).slice(0, limit);
      const [passages, words] = await Promise.all([
        loadPassages(db, ownerId, top),
        matchedWords(db, top, contentTerms(queryTerms(query))),
      ]);
      const out: DocumentHit[] = [];
      for (const h of top) {
        const p = passages.get(`${h.documentId}#${h.chunk}`);
        if (!p) continue; // removed or re-indexed since the index was read
        out.push({
          id: h.documentId,
          documentId: h.documentId,
          title: p.title,
          ...p.document,
          score: h.score,
          access: 'owner',
          passage: p.text,
          page: p.page,
          chunk: p.chunk,
          start: p.start,
          end: p.end,
          terms: words.get(`${h.documentId}#${h.chunk}`) ?? [],
        });
      }
      return out;
    },
    async settled(ownerId) {
      await owners.get(ownerId)?.index.whenBuilt();
    },
    forget(ownerId) {
      const entry = owners.get(ownerId);
      if (!entry) return;
      owners.delete(ownerId);
      entry.index.close();
    },
    close() {
      for (const entry of owners.values()) entry.index.close();
      owners.clear();
    },
  };
}

/** The keyword list and the vector list of one search, each best first. */
export interface SearchLists {
  keyword: KeywordCandidate[];
  /** `score` is the passage's cosine similarity to the query (> 0). */
  vector: Ranked[];
}

/** A candidate of one list, best first; `score` only orders within its list. */
export interface Ranked {
  documentId: string;
  chunk: number;
  score: number;
}

/** A candidate of the keyword list, with how much of the query it holds. */
export interface KeywordCandidate extends Ranked {
  /** How many of the query's content terms (contentTerms) the chunk holds. */
  held: number;
  /** Their share of the content terms' weight (termWeights), 0..1. */
  share: number;
}

/**
 * A passage holding at least this many of the query's content words, or at least this share of
 * their weight, shows that the library treats what the query asks (see chooseHits). Chosen with
 * the floor on the relevance set: requiring 3 words lost descriptive queries (success@3 0.833 →
 * 0.792); the share is what lets a query of one rare term, or a rare term beside a common one
 * ("dataset GSE10123"), be found by that term alone.
 */
const SUBSTANTIAL_WORDS = 2;
const SUBSTANTIAL_SHARE = 0.5;

/**
 * What comes back, in what order and with what score (SPEC §6d). A candidate comes back when its
 * passage holds a content word of the query (a keyword match: function words never count) or its
 * similarity reaches the calibration's floor — and only when the query found something
 * substantial: some passage holding two of its content words or half their weight, or one at the
 * floor. Otherwise the answer is empty: a word in no document (ETXTBSY), or a question about
 * nothing in the library that shares only a common word with it ("bread", "home"), finds nothing.
 * Order is reciprocal rank fusion of both lists as they came (a passage under the floor still
 * moves its document up by its vector rank); the score is the calibrated chance of relevance.
 */
export function chooseHits(
  keyword: readonly KeywordCandidate[],
  vector: readonly Ranked[],
  options: { perChunk: boolean; mode: SearchMode; calibration: SearchCalibration },
): Ranked[] {
  const { perChunk, mode, calibration } = options;
  const key = (h: Ranked) => (perChunk ? `${h.documentId}#${h.chunk}` : h.documentId);
  const matched = keyword.filter((h) => h.held > 0);
  const near = vector.filter((h) => h.score >= calibration.floor);
  const substantial =
    near.length > 0 || matched.some((h) => h.held >= SUBSTANTIAL_WORDS || h.share >= SUBSTANTIAL_SHARE);
  if (!substantial) return [];
  const kept = new Set([...matched.map(key), ...near.map(key)]);
  const share = new Map(matched.map((h) => [key(h), h.share]));
  const similarity = new Map(vector.map((h) => [key(h), h.score]));
  const lists = mode === 'keyword' ? [matched] : mode === 'vector' ? [vector] : [matched, vector];
  return fuse(lists, perChunk, mode === 'hybrid' ? [1, VECTOR_WEIGHT] : [1])
    .filter((h) => kept.has(key(h)))
    .map((h) => ({
      ...h,
      score: hitScore(calibration, share.get(key(h)) ?? 0, similarity.get(key(h)) ?? 0),
    }));
}

/**
 * Reciprocal rank fusion of lists (best first) of documents (`perChunk` false: one entry each)
 * or of chunks. Each entry keeps the chunk of the list that ranked it highest (the earlier list
 * on a tie); its score is the fused sum, which only orders (a rank says nothing of how well a
 * passage matches: second in both lists is second however weak both lists are).
 */
export function fuse(
  lists: ReadonlyArray<readonly Ranked[]>,
  perChunk: boolean,
  weights: readonly number[] = lists.map(() => 1),
): Ranked[] {
  const fused = new Map<string, { hit: Ranked; sum: number; best: number }>();
  lists.forEach((list, l) => {
    const weight = weights[l] ?? 1;
    list.forEach((h, i) => {
      const key = perChunk ? `${h.documentId}#${h.chunk}` : h.documentId;
      const rank = i + 1;
      const held = fused.get(key);
      if (!held) fused.set(key, { hit: h, sum: weight / (RRF_K + rank), best: rank });
      else {
        held.sum += weight / (RRF_K + rank);
        if (rank < held.best) {
          held.hit = h;
          held.best = rank;
        }
      }
    });
  });
  return [...fused.values()]
    .sort(
      (a, b) =>
        b.sum - a.sum ||
        a.best - b.best ||
        (a.hit.documentId < b.hit.documentId ? -1 : a.hit.documentId > b.hit.documentId ? 1 : 0) ||
        a.hit.chunk - b.hit.chunk,
    )
    .map(({ hit, sum }) => ({ documentId: hit.documentId, chunk: hit.chunk, score: sum }));
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa > 0 && bb > 0 ? dot / Math.sqrt(aa * bb) : 0;
}
