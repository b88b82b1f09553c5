/**
 * One owner's chunk vectors in memory, for documents.search (SPEC §6b). libSQL holds the truth;
 * the caller rebuilds this index from it and keeps it in step.
 *
 * Search must stay sublinear at 100k+ chunks, so vectors live in an HNSW graph (usearch). But
 * usearch's `add` is synchronous native code (0.1–0.2 ms a vector once the graph holds 100k),
 * and the API's event loop serves agents. So a vector goes first into a pending store that
 * search scans exactly, and a background mover puts pending vectors into the graph about 4 ms at
 * a time, with `setImmediate` between steps. Results are right the moment `addDocument` returns
 * and fast once the mover is done. Measured on clustered 256-d vectors (vector-index.test.ts,
 * VECTOR_INDEX_BENCH=1): 100k chunks build in 9–18 s of such steps; meanwhile a search scans
 * what is pending exactly (p50 about 20 ms with all 100k pending), then takes 1–3 ms.
 *
 * @example
 * const index = new OwnerVectorIndex({ dimensions: 256 });
 * index.addDocument('doc-1', [{ chunk: 0, vector }]);
 * index.search(queryVector, 10); // [{ documentId: 'doc-1', chunk: 0, score: 0.93 }]
 */
import usearch from 'usearch';

const { Index, MetricKind, ScalarKind, exactSearch } = usearch;
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
   * Below this many live vectors nothing goes into the graph and every search is exact. At 4k
   * vectors the exact scan (p50 0.66 ms) costs what the graph does (0.57 ms), so below it
   * exactness is free, and small libraries never pay for a build.
   */
  exactBelow?: number;
  /** What one background step aims to block the event loop for, in milliseconds. */
  stepBudgetMs?: number;
  /**
   * How the graph stores vectors. F16 halves F32's memory at the same recall (best-document
   * recall@10 at 100k: 0.975 against 0.974); I8 loses too much (0.92).
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
  /** Graph chunks asked for per wanted document; asked again with more when too few. */
  candidatesPerDocument?: number;
  /** Told when the mover fails (the vectors stay pending, so search stays right but slower). */
  onBuildError?: (error: Error) => void;
}

type Tuning = Required<Omit<OwnerVectorIndexOptions, 'onBuildError'>>;

interface DocumentEntry {
  readonly id: string;
  /** Keys are allocated consecutively: chunk i of this document has key firstKey + i. */
  readonly firstKey: number;
  readonly chunks: Int32Array;
  /** Normalised copies, row i for chunk i; dropped once every row is in the graph. */
  vectors: Float32Array | null;
  /** Rows [0, moved) are in the graph, [moved, chunks.length) are pending. */
  moved: number;
}

const defaults = {
  exactBelow: 4096,
  stepBudgetMs: 4,
  quantization: 'f16',
  connectivity: 16,
  expansionAdd: 64,
  expansionSearch: 1024,
  candidatesPerDocument: 8,
} as const;

/** usearch `remove` costs about 4 µs a key here: 512 keys keep a step near 2 ms. */
const forgetPerStep = 512;
/** Below this many rows a JavaScript loop beats a native exactSearch call and its ~5 µs setup. */
const nativeScanFrom = 32;

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
  /** Graph key → its live document; a key missing here is stale and never returned. */
  readonly #graphKeys = new Map<number, DocumentEntry>();
  /** Key ranges [from, to) of removed documents still in the graph, forgotten in the background. */
  readonly #forget: { from: number; to: number }[] = [];
  #nextKey = 0;
  #liveVectors = 0;
  #useGraph = false;
  /** Graph insertions per millisecond, learnt from each step to size the next batch. */
  #addRate = 4;
  #scheduled: NodeJS.Immediate | null = null;
  #waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(options: OwnerVectorIndexOptions) {
    const { onBuildError, ...tuning } = options;
    const given = Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined));
    this.#options = { ...defaults, ...given } as Tuning;
    this.#onBuildError = onBuildError;
    this.#dimensions = options.dimensions;
    if (!Number.isInteger(this.#dimensions) || this.#dimensions <= 0) {
      throw new Error(
        `A vector index needs a positive whole number of dimensions, not ${options.dimensions}.`,
      );
    }
    const quantization = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 }[
      this.#options.quantization
    ];
    this.#graph = new Index({
      dimensions: this.#dimensions,
      metric: MetricKind.Cos,
      quantization,
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
    const vectors = new Float32Array(chunks.length * dimensions);
    const numbers = new Int32Array(chunks.length);
    chunks.forEach(({ chunk, vector }, row) => {
      if (!Number.isInteger(chunk) || chunk < 0 || chunk > 0x7fffffff) {
        throw new Error(`Document ${documentId}: chunk number ${chunk} is not a non-negative whole number.`);
      }
      this.#assertDimensions(vector, `Chunk ${chunk} of document ${documentId}`);
      if (!normaliseInto(vector, vectors, row * dimensions)) {
        throw new Error(`Chunk ${chunk} of document ${documentId} has a zero or non-finite vector.`);
      }
      numbers[row] = chunk;
    });
    this.removeDocument(documentId);
    const entry: DocumentEntry = {
      id: documentId,
      firstKey: this.#nextKey,
      chunks: numbers,
      vectors,
      moved: 0,
    };
    this.#nextKey += chunks.length;
    this.#documents.set(documentId, entry);
    if (chunks.length > 0) this.#pending.add(entry);
    this.#liveVectors += chunks.length;
    if (this.#liveVectors >= this.#options.exactBelow) this.#useGraph = true;
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
      // Unmapping the keys hides them from search at once; the graph drops them in the background.
      for (let key = entry.firstKey; key < entry.firstKey + entry.moved; key++) this.#graphKeys.delete(key);
      this.#forget.push({ from: entry.firstKey, to: entry.firstKey + entry.moved });
    }
    entry.vectors = null;
    this.#schedule();
  }

  /** The best chunk of each document, best first, at most `limit` documents. */
  search(query: Float32Array, limit: number): ChunkHit[] {
    this.#assertOpen();
    this.#assertDimensions(query, 'The query');
    if (!Number.isInteger(limit) || limit < 0)
      throw new Error(`A search limit must be a whole number ≥ 0, not ${limit}.`);
    const normalised = new Float32Array(this.#dimensions);
    if (!normaliseInto(query, normalised, 0)) throw new Error('The query vector is zero or not finite.');
    if (limit === 0 || this.#liveVectors === 0) return [];

    const best = new Map<string, ChunkHit>();
    const offer = (entry: DocumentEntry, row: number, score: number) => {
      const held = best.get(entry.id);
      if (!held || score > held.score)
        best.set(entry.id, { documentId: entry.id, chunk: entry.chunks[row]!, score });
    };
    this.#searchGraph(normalised, limit, offer);
    for (const entry of this.#pending) this.#scanPending(entry, normalised, offer);
    return [...best.values()]
      .sort((a, b) => b.score - a.score || (a.documentId < b.documentId ? -1 : 1))
      .slice(0, limit);
  }

  /** Resolves when every added vector is in the graph (or the index is small enough to stay exact). */
  whenBuilt(): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('The vector index is closed.'));
    if (this.#failure) return Promise.reject(this.#failure);
    if (!this.#hasWork()) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Stops the background build and lets go of every vector; pending `whenBuilt` calls reject. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = null;
    this.#documents.clear();
    this.#pending.clear();
    this.#graphKeys.clear();
    this.#forget.length = 0;
    this.#liveVectors = 0;
    this.#graph = null; // usearch frees the native index when the object is collected
    this.#settle(new Error('The vector index was closed before it finished building.'));
  }

  #searchGraph(
    query: Float32Array,
    limit: number,
    offer: (entry: DocumentEntry, row: number, score: number) => void,
  ) {
    const graph = this.#graph;
    if (!graph || this.#graphKeys.size === 0) return;
    // One document's chunks crowd the nearest neighbours, so ask for several per wanted document,
    // and more until enough distinct documents show up or the graph has no more to give.
    const inGraph = graph.size();
    let wanted = Math.min(inGraph, limit * this.#options.candidatesPerDocument);
    for (;;) {
      const { keys, distances } = graph.search(query, wanted, 1);
      const found = new Set<string>();
      for (let i = 0; i < keys.length; i++) {
        const key = Number(keys[i]);
        const entry = this.#graphKeys.get(key);
        if (!entry) continue; // a removed document's key the graph has not forgotten yet
        found.add(entry.id);
        offer(entry, key - entry.firstKey, 1 - distances[i]!);
      }
      if (found.size >= limit || keys.length < wanted || wanted >= inGraph) return;
      wanted = Math.min(inGraph, wanted * 4);
    }
  }

  #scanPending(
    entry: DocumentEntry,
    query: Float32Array,
    offer: (entry: DocumentEntry, row: number, score: number) => void,
  ) {
    const vectors = entry.vectors!;
    const dimensions = this.#dimensions;
    const rows = entry.chunks.length - entry.moved;
    if (rows >= nativeScanFrom) {
      const dataset = vectors.subarray(entry.moved * dimensions);
      // Inner product on unit vectors is the cosine; usearch reports it as the distance 1 - dot.
      const { keys, distances } = exactSearch(dataset, query, dimensions, 1, MetricKind.IP, 1);
      offer(entry, entry.moved + Number(keys[0]), 1 - distances[0]!);
      return;
    }
    for (let row = entry.moved; row < entry.chunks.length; row++) {
      let dot = 0;
      for (let i = 0, offset = row * dimensions; i < dimensions; i++) dot += query[i]! * vectors[offset + i]!;
      offer(entry, row, dot);
    }
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
    const vectors = taken.length === 1 ? null : new Float32Array(total * dimensions);
    let at = 0;
    for (const { entry, rows } of taken) {
      for (let row = 0; row < rows; row++) keys[at + row] = BigInt(entry.firstKey + entry.moved + row);
      vectors?.set(
        entry.vectors!.subarray(entry.moved * dimensions, (entry.moved + rows) * dimensions),
        at * dimensions,
      );
      at += rows;
    }
    const only = taken[0]!.entry;
    const started = performance.now();
    graph.add(
      keys,
      vectors ?? only.vectors!.subarray(only.moved * dimensions, (only.moved + total) * dimensions),
      1,
    );
    const elapsed = performance.now() - started;
    // Smoothed, so one slow step (a capacity doubling, another process on the core) does not
    // swing the next batch; floored so a stall never shrinks batches to nothing.
    this.#addRate = Math.max(0.5, 0.7 * this.#addRate + 0.3 * (total / Math.max(elapsed, 0.05)));

    for (const { entry, rows } of taken) {
      for (let row = entry.moved; row < entry.moved + rows; row++)
        this.#graphKeys.set(entry.firstKey + row, entry);
      entry.moved += rows;
      if (entry.moved === entry.chunks.length) {
        entry.vectors = null;
        this.#pending.delete(entry);
      }
    }
  }

  /** Resolves (error null) or rejects every whenBuilt waiter. */
  #settle(error: Error | null) {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      if (error) waiter.reject(error);
      else waiter.resolve();
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
