/**
 * `documents.search` (SPEC §6b): ranks only the caller's own documents, hybrid by default: the
 * keyword index (keyword-index.ts, FTS5 BM25) and the vector index each rank candidates, and
 * reciprocal rank fusion (k = 60, the vector list weighted by VECTOR_WEIGHT) merges the two lists. Across the library the lists are of
 * documents (each document's best chunk, as vector search has always answered) and a hit is a
 * document with its best passage; within one document (`documentId`) they are of chunks, and
 * every hit is a passage of it. The passage shown is the chunk of the list that ranked the
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
import { libraryVersion, loadPassages, loadVectors, readyDocumentIds } from './index-store.ts';
import { matchedTerms, searchKeywords } from './keyword-index.ts';
import { OwnerVectorIndex } from './vector-index.ts';
import { searchable } from '../documents/rules.ts';

export interface DocumentHit {
  /** The document (`id` and `documentId` are the same; `id` is what the web has always read). */
  id: string;
  documentId: string;
  title: string;
  /**
   * 0..1, higher is better. Hybrid: the fused score scaled so that first in both lists is 1;
   * keyword: the same for one list; vector: the passage's cosine similarity (≤ 0 left out).
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
  /** The query's terms found in the passage, as it spells them (for highlighting). */
  terms: string[];
}

export type SearchMode = 'keyword' | 'vector' | 'hybrid';

export interface SearchOptions {
  /** Narrows to one of the owner's documents (another's finds nothing); hits are then its passages. */
  documentId?: string;
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
 * (they are rebuilt from the database on their next search). Measured: a built 100k-chunk index
 * takes about 200 MiB of the process, so this default bounds the indexes near 800 MiB.
 */
const DEFAULT_MAX_VECTORS = 400_000;

export function createLibrarySearch(options: {
  db: Client;
  adapter: EmbeddingAdapter;
  /** See DEFAULT_MAX_VECTORS; an owner being searched is always kept. */
  maxVectors?: number;
  log?: { warn(details: object, message: string): void };
}): LibrarySearch {
  const { db, adapter } = options;
  const maxVectors = options.maxVectors ?? DEFAULT_MAX_VECTORS;
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
  async function vectorList(ownerId: string, query: string, options: SearchOptions): Promise<Ranked[]> {
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
      return entry.index.search(q, CANDIDATES).filter((h) => h.score > 0);
    } finally {
      entry.inUse--;
    }
  }

  /** The keyword list: documents by their best chunk, or one document's chunks. */
  async function keywordList(ownerId: string, query: string, options: SearchOptions): Promise<Ranked[]> {
    const { documentId } = options;
    const chunks = await searchKeywords(
      db,
      ownerId,
      query,
      documentId ? CANDIDATES : KEYWORD_CHUNKS,
      documentId,
    );
    const ranked = chunks.map((h) => ({ documentId: h.documentId, chunk: h.chunk, score: -h.bm25 }));
    if (documentId !== undefined) return ranked;
    const seen = new Set<string>();
    return ranked.filter((h) => !seen.has(h.documentId) && seen.add(h.documentId)).slice(0, CANDIDATES);
  }

  async function ownsReady(ownerId: string, documentId: string): Promise<boolean> {
    const rs = await db.execute({
      sql: `SELECT 1 FROM documents WHERE id = ? AND owner_id = ? AND ${searchable('documents')}`,
      args: [documentId, ownerId],
    });
    return rs.rows.length > 0;
  }

  return {
    async search(ownerId, query, limit, options = {}) {
      const mode = options.mode ?? 'hybrid';
      const [vector, keyword] = await Promise.all([
        mode === 'keyword' ? [] : vectorList(ownerId, query, options),
        mode === 'vector' ? [] : keywordList(ownerId, query, options),
      ]);
      const perChunk = options.documentId !== undefined;
      const fused =
        mode === 'vector'
          ? vector.map((h) => ({ ...h, score: Math.min(1, Math.round(h.score * 1e6) / 1e6) }))
          : mode === 'keyword'
            ? fuse([keyword], perChunk)
            : fuse([keyword, vector], perChunk, [1, VECTOR_WEIGHT]);
      const top = fused.slice(0, limit);
      const passages = await loadPassages(db, ownerId, top);
      const out: DocumentHit[] = [];
      for (const h of top) {
        const p = passages.get(`${h.documentId}#${h.chunk}`);
        if (!p) continue; // removed or re-indexed since the index was read
        out.push({
          id: h.documentId,
          documentId: h.documentId,
          title: p.title,
          score: h.score,
          access: 'owner',
          passage: p.text,
          page: p.page,
          chunk: p.chunk,
          start: p.start,
          end: p.end,
          terms: matchedTerms(query, p.text),
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

/** A candidate of one list, best first; `score` only orders within its list. */
interface Ranked {
  documentId: string;
  chunk: number;
  score: number;
}

/**
 * Reciprocal rank fusion of lists (best first) of documents (`perChunk` false: one entry each)
 * or of chunks. Each entry keeps the chunk of the list that ranked it highest (the earlier list
 * on a tie); its score is the fused sum scaled so that first in every list is 1.
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
  const top = lists.reduce((sum, _, l) => sum + (weights[l] ?? 1), 0) / (RRF_K + 1);
  return [...fused.values()]
    .sort(
      (a, b) =>
        b.sum - a.sum ||
        a.best - b.best ||
        (a.hit.documentId < b.hit.documentId ? -1 : a.hit.documentId > b.hit.documentId ? 1 : 0) ||
        a.hit.chunk - b.hit.chunk,
    )
    .map(({ hit, sum }) => ({ ...hit, score: Math.round((sum / top) * 1e6) / 1e6 }));
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
