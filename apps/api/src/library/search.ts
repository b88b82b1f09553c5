/**
 * `documents.search` (SPEC §6b): ranks only the caller's own documents. Each API process keeps
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
import { OwnerVectorIndex } from './vector-index.ts';

export interface DocumentHit {
  id: string;
  title: string;
  /** Cosine similarity of the best passage, 0..1 (documents scoring ≤ 0 are left out). */
  score: number;
  access: 'owner';
  /** The best-matching passage, its page (1-based) and its chunk number. */
  passage: string;
  page: number;
  chunk: number;
}

export interface LibrarySearch {
  search(ownerId: string, query: string, limit: number): Promise<DocumentHit[]>;
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
export const DEFAULT_MAX_VECTORS = 400_000;

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

  return {
    async search(ownerId, query, limit) {
      const entry = entryOf(ownerId);
      entry.inUse++;
      let hits;
      try {
        const [, [q]] = await Promise.all([current(ownerId, entry), adapter.embed([query])]);
        if (!q || entry.index.size === 0) return [];
        hits = entry.index.search(q, limit).filter((h) => h.score > 0);
      } finally {
        entry.inUse--;
      }
      const passages = await loadPassages(db, ownerId, hits);
      const out: DocumentHit[] = [];
      for (const h of hits) {
        const p = passages.get(`${h.documentId}#${h.chunk}`);
        if (!p) continue; // removed or re-indexed since the index was read
        out.push({
          id: h.documentId,
          title: p.title,
          score: Math.min(1, Math.round(h.score * 1e6) / 1e6),
          access: 'owner',
          passage: p.text,
          page: p.page,
          chunk: p.chunk,
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
