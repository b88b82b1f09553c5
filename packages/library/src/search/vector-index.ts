/**
 * One owner's chunk vectors in memory for documents.search (SPEC §6b); libSQL holds the truth.
 *
 * Search must stay sublinear at 100k+ chunks, so vectors live in an HNSW graph (usearch), whose
 * `add` is synchronous native code (0.1–0.2 ms a vector at 100k) while the API's event loop
 * serves agents. So a vector goes first into a pending store that search scans exactly, and a
 * background mover puts pending vectors into the graph about 4 ms at a time, `setImmediate`
 * between steps: results are right as soon as `addDocument` returns, and fast once built.
 *
 * Memory is what bounds a library of a million chunks, so a large index keeps each vector in 8
 * bits, scaled to fill the range (cosine ignores scale): once as the graph's own copy and once
 * beside it for exact scans (the graph cannot hand its vectors back). A small index (below
 * `exactBelow`) keeps them in 32 bits and answers exactly. Measured: bench/README.md, "Where a
 * search's time went at a million chunks".
 *
 * @example
 * const index = new OwnerVectorIndex({ dimensions: 256 });
 * index.addDocument('doc-1', [{ chunk: 0, vector }]);
 * index.search(queryVector, 10); // [{ documentId: 'doc-1', chunk: 0, score: 0.93 }]
 */
import usearch, { type ScalarKind } from 'usearch';

const { Index, MetricKind, exactSearch } = usearch;
type GraphIndex = InstanceType<typeof Index>;

export interface ChunkHit {
  documentId: string;
  chunk: number;
  /** Cosine similarity of the chunk to the query, in [-1, 1]. */
  score: number;
}

export interface OwnerVectorIndexOptions {
  dimensions: number;
  /**
   * Below this many live vectors search is exact and nothing is built: at 8k vectors the exact
   * scan (p50 1.26 ms) costs what the graph does (1.24 ms), so small libraries get exactness free.
   */
  exactBelow?: number;
  /** What one background step aims to block the event loop for, in milliseconds. */
  stepBudgetMs?: number;
  /**
   * How the graph stores vectors. It is given each vector's 8-bit copy (DocumentEntry.compact),
   * so `i8` keeps exactly those bytes and `f16`/`f32` twice and four times their memory for the
   * same values. (usearch's own cast to i8, from 32-bit floats, scales by the vector's length and
   * lost recall: 0.92 against F16's 0.975 at 100k; the copy's scale by the largest value is the
   * one measured within 0.001 of F32.)
   */
  quantization?: 'f32' | 'f16' | 'i8';
  /** HNSW links per node. */
  connectivity?: number;
  /**
   * Candidates kept while inserting. 32 builds fastest but left the nearest chunk out of the
   * first 80 results for 15% of queries at 20k; 64 builds half as fast and misses 2%.
   */
  expansionAdd?: number;
  /**
   * Candidates kept while searching. Best-document recall@10 at 10k: 0.95 with 512, 0.99 with
   * 1024, for a query of 1–3 ms, far inside the search's 50 ms.
   */
  expansionSearch?: number;
  /** Graph chunks asked for per wanted document, when that is more than `expansionSearch`. */
  candidatesPerDocument?: number;
  /** Told when the mover fails (the vectors stay pending, so search stays right but slower). */
  onBuildError?: (error: Error) => void;
}

type Tuning = Required<Omit<OwnerVectorIndexOptions, 'onBuildError'>>;
type Offer = (entry: DocumentEntry, row: number, score: number) => void;

interface DocumentEntry {
  readonly id: string;
  /** Keys are allocated consecutively: chunk i of this document has key firstKey + i. */
  readonly firstKey: number;
  readonly chunks: Int32Array;
  /**
   * Normalised copies, row i for chunk i, while the index is small enough to answer exactly
   * (`exactBelow`); dropped for good once it grows past that, or once every row is in the graph.
   */
  vectors: Float32Array | null;
  /**
   * Every row in 8 bits, each scaled to fill the range (cosine ignores scale): best chunk and
   * score within 0.001 of F32 (measured). What the graph is given, and scanned when its results
   * are crowded, narrowed to a tag, or its rows are still pending in a large index.
   */
  readonly compact: Int8Array;
  /** Rows [0, moved) are in the graph, [moved, chunks.length) are pending. */
  moved: number;
}

// exactBelow, quantization, expansionAdd and expansionSearch: their options above say what was
// measured (vector-index.test.ts, VECTOR_INDEX_BENCH=1).
const defaults = {
  exactBelow: 8192,
  // The `steps` figure (bench/README.md, "What each figure measures"): 20,000 vectors built in
  // steps of this budget at load 12, own time per turn p50 2.48 ms, p99 5.81, worst 40.6 (target
  // p50 < 8, p99 < 25, worst < 100), against 18.7 s in one step.
  stepBudgetMs: 4,
  quantization: 'i8',
  // Not measured: more links per node is better recall and a bigger, slower-to-build graph.
  connectivity: 16,
  expansionAdd: 64,
  expansionSearch: 1024,
  // Not measured: more candidates per wanted document find its best chunk more surely, and cost
  // a longer graph search.
  candidatesPerDocument: 8,
} as const;

/** usearch `remove` costs about 4 µs a key here: 512 keys keep a step near 2 ms. */
const forgetPerStep = 512;

export class OwnerVectorIndex {
  readonly #dimensions: number;
  readonly #options: Tuning;
  readonly #onBuildError: ((error: Error) => void) | undefined;
  #graph: GraphIndex | null;
  #closed = false;
  #failure: Error | null = null;

  readonly #documents = new Map<string, DocumentEntry>();
  /** Documents with pending rows, oldest first (a Set keeps insertion order and deletes in O(1)). */
  readonly #pending = new Set<DocumentEntry>();
  /**
   * Documents in the order of their keys, removed ones too until #prune: a graph key's document
   * is found by bisection (#entryOfKey). A map of every key took about 80 bytes a vector.
   */
  #byKey: DocumentEntry[] = [];
  #removedInByKey = 0;
  /** Key ranges [from, to) of removed documents still in the graph, forgotten in the background. */
  readonly #forget: { from: number; to: number }[] = [];
  /** Live documents with rows in the graph: a search never waits for more distinct ones. */
  #graphDocuments = 0;
  /** Live rows in the graph. */
  #graphVectors = 0;
  #nextKey = 0;
  #liveVectors = 0;
  #useGraph = false;
  /** Graph insertions per millisecond, learnt from each step to size the next batch. */
  #addRate = 4;
  #scheduled: NodeJS.Immediate | null = null;
  readonly #waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(options: OwnerVectorIndexOptions) {
    const { onBuildError, ...tuning } = options;
    const given = Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined));
    this.#options = { ...defaults, ...given } as Tuning;
    this.#onBuildError = onBuildError;
    this.#dimensions = options.dimensions;
    if (!Number.isInteger(this.#dimensions) || this.#dimensions <= 0)
      throw new Error(`A vector index needs a whole number of dimensions, not ${options.dimensions}.`);
    this.#graph = new Index({
      dimensions: this.#dimensions,
      metric: MetricKind.Cos,
      quantization: this.#options.quantization as ScalarKind, // the same names
      connectivity: this.#options.connectivity,
      expansion_add: this.#options.expansionAdd,
      expansion_search: this.#options.expansionSearch,
      multi: false,
    });
  }

  /** Number of live chunk vectors. */
  get size(): number {
    return this.#liveVectors;
  }

  hasDocument(documentId: string): boolean {
    return this.#documents.has(documentId);
  }

  documentIds(): string[] {
    return [...this.#documents.keys()];
  }

  /** Adds every chunk vector of one document, replacing what the index held for it. Returns at once. */
  addDocument(documentId: string, chunks: ReadonlyArray<{ chunk: number; vector: Float32Array }>): void {
    this.#assertOpen();
    const dimensions = this.#dimensions;
    // Copy and check everything before touching the index, so a bad chunk leaves it as it was.
    const previous = this.#documents.get(documentId)?.chunks.length ?? 0;
    const large = this.#liveVectors - previous + chunks.length >= this.#options.exactBelow;
    const vectors = large ? null : new Float32Array(chunks.length * dimensions);
    const unit = vectors ?? new Float32Array(dimensions);
    const compact = new Int8Array(chunks.length * dimensions);
    const numbers = new Int32Array(chunks.length);
    chunks.forEach(({ chunk, vector }, row) => {
      if (!Number.isInteger(chunk) || chunk < 0 || chunk > 0x7fffffff)
        throw new Error(`Document ${documentId}: chunk number ${chunk} is not a non-negative whole number.`);
      this.#assertDimensions(vector, `Chunk ${chunk} of document ${documentId}`);
      const at = vectors ? row * dimensions : 0;
      if (!normaliseInto(vector, unit, at))
        throw new Error(`Chunk ${chunk} of document ${documentId} has a zero or non-finite vector.`);
      quantiseInto(unit, at, dimensions, compact, row * dimensions);
      numbers[row] = chunk;
    });
    this.removeDocument(documentId);
    const firstKey = this.#nextKey;
    const entry: DocumentEntry = { id: documentId, firstKey, chunks: numbers, vectors, compact, moved: 0 };
    this.#nextKey += chunks.length;
    this.#documents.set(documentId, entry);
    if (chunks.length > 0) this.#byKey.push(entry); // keys only grow: the list stays in their order
    if (chunks.length > 0) this.#pending.add(entry);
    this.#liveVectors += chunks.length;
    if (large && !this.#useGraph) {
      this.#useGraph = true;
      // Grown past exact answers: the 32-bit copies go (a million of them would be 1 GB at 256
      // dimensions), and pending rows are scanned in 8 bits like the graph's.
      for (const held of this.#documents.values()) held.vectors = null;
    }
    this.#schedule();
  }

  removeDocument(documentId: string): void {
    this.#assertOpen();
    const entry = this.#documents.get(documentId);
    if (!entry) return;
    this.#documents.delete(documentId);
    this.#pending.delete(entry);
    this.#liveVectors -= entry.chunks.length;
    if (entry.moved > 0) {
      this.#graphDocuments--;
      this.#graphVectors -= entry.moved;
      // No longer in #documents, its keys are hidden from search at once (#entryOfKey); the
      // graph drops them in the background.
      this.#forget.push({ from: entry.firstKey, to: entry.firstKey + entry.moved });
    }
    if (++this.#removedInByKey > this.#byKey.length / 2) this.#prune();
    entry.vectors = null;
    this.#schedule();
  }

  /**
   * The best chunk of each document, best first, at most `limit` documents; only those of `only`
   * when given (a search narrowed to a tag).
   */
  search(query: Float32Array, limit: number, only?: ReadonlySet<string>): ChunkHit[] {
    this.#assertOpen();
    this.#assertDimensions(query, 'The query');
    if (!Number.isInteger(limit) || limit < 0)
      throw new Error(`A search limit must be a whole number ≥ 0, not ${limit}.`);
    const normalised = new Float32Array(this.#dimensions);
    if (!normaliseInto(query, normalised, 0)) throw new Error('The query vector is zero or not finite.');
    if (limit === 0 || this.#liveVectors === 0) return [];
    const best = new Map<string, ChunkHit>();
    const offer: Offer = (entry, row, score) => {
      if (only && !only.has(entry.id)) return;
      const held = best.get(entry.id);
      if (!held || score > held.score)
        best.set(entry.id, { documentId: entry.id, chunk: entry.chunks[row]!, score });
    };
    const found = () => best.size;
    const compactQuery = new Int8Array(this.#dimensions);
    quantiseInto(normalised, 0, this.#dimensions, compactQuery, 0);
    if (only && this.#graphHoldsTooFew(only, limit)) this.#scanCompact(compactQuery, offer, only);
    else if (this.#searchGraph(compactQuery, limit, offer, found, only))
      this.#scanCompact(compactQuery, offer, only);
    for (const entry of this.#pending)
      if (!only || only.has(entry.id)) this.#scanPending(entry, normalised, compactQuery, offer);
    return [...best.values()]
      .sort((a, b) => b.score - a.score || (a.documentId < b.documentId ? -1 : 1))
      .slice(0, limit);
  }

  /**
   * Resolves once no background work is left: every added vector is in the graph (or the index is
   * small enough to stay exact), or the index was closed. Rejects if building failed.
   */
  whenBuilt(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#hasWork()) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Stops the background build and lets go of every vector; pending `whenBuilt` calls resolve. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearImmediate(this.#scheduled ?? undefined);
    this.#documents.clear();
    this.#pending.clear();
    this.#byKey = [];
    this.#forget.length = 0;
    this.#liveVectors = 0;
    this.#graph = null; // usearch frees the native index when the object is collected
    this.#settle(null);
  }

  /**
   * Offers the graph's nearest chunks; true if they held too few documents (of `only`, counted by
   * `found`) to fill `limit`.
   */
  #searchGraph(
    query: Int8Array,
    limit: number,
    offer: Offer,
    found: () => number,
    only: ReadonlySet<string> | undefined,
  ): boolean {
    const graph = this.#graph;
    if (!graph || this.#graphVectors === 0) return false;
    // One document's chunks crowd the nearest neighbours, so ask for several per wanted document;
    // the graph walks `expansionSearch` candidates anyway, so asking for that many costs nothing
    // more. Asking for more still costs (11 ms for 4096 at 100k): when a few large documents fill
    // them all, the compact copies are scanned instead (about 3 ms for 100k).
    const { candidatesPerDocument, expansionSearch } = this.#options;
    const wanted = Math.min(graph.size(), Math.max(limit * candidatesPerDocument, expansionSearch));
    const { keys } = graph.search(query, wanted, 1);
    // The graph's own 8-bit cosine is approximate (off by up to 0.005, measured), so it only
    // chooses the candidates: their copies are gathered and scored as the exact scans score.
    const dimensions = this.#dimensions;
    const candidates: { entry: DocumentEntry; row: number }[] = [];
    const rows = new Int8Array(keys.length * dimensions);
    for (let i = 0; i < keys.length; i++) {
      const key = Number(keys[i]);
      const entry = this.#entryOfKey(key);
      if (!entry) continue; // a removed document's key the graph has not forgotten yet
      const row = key - entry.firstKey;
      rows.set(
        entry.compact.subarray(row * dimensions, (row + 1) * dimensions),
        candidates.length * dimensions,
      );
      candidates.push({ entry, row });
    }
    if (candidates.length > 0) {
      const scored = exactSearch(
        rows.subarray(0, candidates.length * dimensions),
        query,
        dimensions,
        candidates.length,
        MetricKind.Cos,
        1,
      );
      for (let i = 0; i < scored.keys.length; i++) {
        const { entry, row } = candidates[Number(scored.keys[i])]!;
        offer(entry, row, 1 - scored.distances[i]!);
      }
    }
    const documents = only ? Math.min(only.size, this.#graphDocuments) : this.#graphDocuments;
    return found() < Math.min(limit, documents) && keys.length === wanted;
  }

  /**
   * Whether the graph's candidates would hold too few rows of the documents `only` to fill
   * `limit` (about their share of its rows): then they are scanned at once, and the graph's walk
   * (a few milliseconds at a million rows) is not made only to be scanned after. A tag on one
   * document in ten leaves about 100 of the 1,024 candidates, under two a wanted document.
   */
  #graphHoldsTooFew(only: ReadonlySet<string>, limit: number): boolean {
    if (this.#graphVectors === 0) return false;
    let rows = 0;
    for (const id of only) rows += this.#documents.get(id)?.moved ?? 0;
    const wanted = Math.max(limit * this.#options.candidatesPerDocument, this.#options.expansionSearch);
    return (wanted * rows) / this.#graphVectors < 2 * limit;
  }

  /** Every document's best graph row from the compact copies (those found too: at the edge of a
   *  crowded result, the graph may have shown one of their lesser chunks). */
  #scanCompact(compactQuery: Int8Array, offer: Offer, only: ReadonlySet<string> | undefined) {
    const dimensions = this.#dimensions;
    const entries = only
      ? [...only].flatMap((id) => this.#documents.get(id) ?? [])
      : this.#documents.values();
    for (const entry of entries) {
      if (entry.moved === 0) continue;
      const rows = entry.compact.subarray(0, entry.moved * dimensions);
      const { keys, distances } = exactSearch(rows, compactQuery, dimensions, 1, MetricKind.Cos, 1);
      offer(entry, Number(keys[0]), 1 - distances[0]!);
    }
  }

  #scanPending(entry: DocumentEntry, query: Float32Array, compactQuery: Int8Array, offer: Offer) {
    // Native SIMD: 6× a JavaScript loop per row, for about 5 µs a call. Inner product on unit
    // vectors is the cosine; usearch reports it as the distance 1 - dot.
    const from = entry.moved * this.#dimensions;
    const { keys, distances } = entry.vectors
      ? exactSearch(entry.vectors.subarray(from), query, this.#dimensions, 1, MetricKind.IP, 1)
      : exactSearch(entry.compact.subarray(from), compactQuery, this.#dimensions, 1, MetricKind.Cos, 1);
    offer(entry, entry.moved + Number(keys[0]), 1 - distances[0]!);
  }

  #hasWork(): boolean {
    return this.#forget.length > 0 || (this.#useGraph && this.#pending.size > 0);
  }

  #schedule() {
    if (this.#scheduled || this.#closed || this.#failure) return;
    if (!this.#hasWork()) return this.#settle(null);
    this.#scheduled = setImmediate(() => {
      this.#scheduled = null;
      try {
        this.#step();
      } catch (cause) {
        this.#failure = new Error('The vector index stopped building its graph.', { cause });
        this.#onBuildError?.(this.#failure);
        return this.#settle(this.#failure);
      }
      this.#schedule();
    });
  }

  /** One bounded piece of background work: forget removed keys first, then add pending rows. */
  #step() {
    const graph = this.#graph!;
    const started = performance.now();
    let forgotten = 0;
    while (this.#forget.length > 0 && forgotten < forgetPerStep) {
      const range = this.#forget[0]!;
      const count = Math.min(range.to - range.from, forgetPerStep - forgotten);
      graph.remove(BigUint64Array.from({ length: count }, (_, i) => BigInt(range.from + i)));
      range.from += count;
      forgotten += count;
      if (range.from === range.to) this.#forget.shift();
    }
    if (!this.#useGraph || this.#pending.size === 0) return;
    const budget = Math.max(0, this.#options.stepBudgetMs - (performance.now() - started));
    this.#addBatch(graph, Math.max(1, Math.floor(this.#addRate * budget)));
  }

  #addBatch(graph: GraphIndex, batch: number) {
    const dimensions = this.#dimensions;
    // Gather rows across documents, so many one-chunk documents still make full batches.
    const taken: { entry: DocumentEntry; rows: number }[] = [];
    let total = 0;
    for (const entry of this.#pending) {
      const rows = Math.min(entry.chunks.length - entry.moved, batch - total);
      taken.push({ entry, rows });
      total += rows;
      if (total === batch) break;
    }
    const keys = new BigUint64Array(total);
    const vectors = new Int8Array(total * dimensions);
    let at = 0;
    for (const { entry, rows } of taken) {
      const from = entry.moved;
      for (let row = from; row < from + rows; row++) keys[at + row - from] = BigInt(entry.firstKey + row);
      vectors.set(entry.compact.subarray(from * dimensions, (from + rows) * dimensions), at * dimensions);
      at += rows;
    }
    const started = performance.now();
    graph.add(keys, vectors, 1);
    const elapsed = performance.now() - started;
    // Smoothed, so one slow step (a capacity doubling, another process on the core) does not
    // swing the next batch; floored so a stall never shrinks batches to nothing.
    this.#addRate = Math.max(0.5, 0.7 * this.#addRate + 0.3 * (total / Math.max(elapsed, 0.05)));
    for (const { entry, rows } of taken) {
      if (entry.moved === 0) this.#graphDocuments++;
      this.#graphVectors += rows;
      entry.moved += rows;
      if (entry.moved === entry.chunks.length) {
        entry.vectors = null;
        this.#pending.delete(entry);
      }
    }
  }

  /** The live document whose graph rows hold `key`, if any. */
  #entryOfKey(key: number): DocumentEntry | undefined {
    const list = this.#byKey;
    let low = 0;
    let high = list.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (list[middle]!.firstKey <= key) low = middle;
      else high = middle - 1;
    }
    const entry = list[low];
    if (!entry || key < entry.firstKey || key >= entry.firstKey + entry.moved) return undefined;
    return this.#documents.get(entry.id) === entry ? entry : undefined;
  }

  /** Drops removed documents from #byKey, once they are half of it (so each removal costs O(1) on average). */
  #prune() {
    this.#byKey = this.#byKey.filter((entry) => this.#documents.get(entry.id) === entry);
    this.#removedInByKey = 0;
  }

  /** Resolves (error null) or rejects every whenBuilt waiter. */
  #settle(error: Error | null) {
    for (const { resolve, reject } of this.#waiters.splice(0)) {
      if (error) reject(error);
      else resolve();
    }
  }

  #assertOpen() {
    if (this.#closed) throw new Error('The vector index is closed.');
  }

  #assertDimensions(vector: Float32Array, what: string) {
    if (vector.length !== this.#dimensions) {
      throw new Error(
        `${what} has ${vector.length} dimensions; this index holds ${this.#dimensions}-dimension vectors.`,
      );
    }
  }
}

/** Writes `source` scaled to unit length into `target` at `offset`; false if it has no direction. */
function normaliseInto(source: Float32Array, target: Float32Array, offset: number): boolean {
  let squares = 0;
  for (let i = 0; i < source.length; i++) squares += source[i]! * source[i]!;
  if (!(squares > 0) || !Number.isFinite(squares)) return false;
  const scale = 1 / Math.sqrt(squares);
  for (let i = 0; i < source.length; i++) target[offset + i] = source[i]! * scale;
  return true;
}

/** Writes `source`'s row at `offset` into `target` at `at` as 8-bit integers, its largest at ±127. */
function quantiseInto(source: Float32Array, offset: number, length: number, target: Int8Array, at: number) {
  let largest = 0;
  for (let i = 0; i < length; i++) largest = Math.max(largest, Math.abs(source[offset + i]!));
  for (let i = 0; i < length; i++) target[at + i] = Math.round((source[offset + i]! / largest) * 127);
}
