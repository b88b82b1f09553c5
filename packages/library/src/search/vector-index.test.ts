import { afterEach, describe, expect, it } from 'vitest';
import { OwnerVectorIndex, type ChunkHit } from './vector-index.ts';

// Measured numbers print on the console; the 10k/100k figures of the whole search are the bench's
// `library` figure (bench/src/figures/document-search.ts).
const dimensions = 256;
const open: OwnerVectorIndex[] = [];
afterEach(() => open.splice(0).forEach((index) => index.close()));

function newIndex(options: Partial<ConstructorParameters<typeof OwnerVectorIndex>[0]> = {}) {
  const index = new OwnerVectorIndex({ dimensions, ...options });
  open.push(index);
  return index;
}

/** mulberry32: the same corpus on every run and machine. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `base` plus Gaussian noise of about `noise` length, scaled to unit length. */
function near(base: Float32Array | null, noise: number, random: () => number): Float32Array {
  const vector = new Float32Array(dimensions);
  let squares = 0;
  for (let i = 0; i < dimensions; i++) {
    const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    vector[i] = (base ? base[i]! : 0) + (noise * gaussian) / Math.sqrt(dimensions);
    squares += vector[i]! * vector[i]!;
  }
  return vector.map((x) => x / Math.sqrt(squares));
}

interface Doc {
  id: string;
  vectors: Float32Array[];
}

/**
 * Embedding-like clusters: documents about one of `topics`, chunks near their document. So a
 * query's nearest chunks crowd into a few documents, as they do with real text.
 */
function corpus(totalChunks: number, seed: number, topics = 40, largest = 95): Doc[] {
  const random = seeded(seed);
  const centres = Array.from({ length: topics }, () => near(null, 1, random));
  const docs: Doc[] = [];
  for (let total = 0; total < totalChunks;) {
    const centre = near(centres[Math.floor(random() * topics)]!, 0.8, random);
    const count = Math.min(totalChunks - total, 5 + Math.floor(random() * (largest - 5)));
    docs.push({
      id: `doc-${seed}-${docs.length}`,
      vectors: Array.from({ length: count }, () => near(centre, 0.9, random)),
    });
    total += count;
  }
  return docs;
}

/** A query near one chunk of the corpus, as a question about one passage would be. */
function queries(docs: Doc[], count: number, seed: number): Float32Array[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => {
    const doc = docs[Math.floor(random() * docs.length)]!;
    return near(doc.vectors[Math.floor(random() * doc.vectors.length)]!, 0.6, random);
  });
}

function addAll(index: OwnerVectorIndex, docs: Doc[]) {
  for (const doc of docs)
    index.addDocument(
      doc.id,
      doc.vectors.map((vector, chunk) => ({ chunk, vector })),
    );
}

function dot(a: Float32Array, b: Float32Array) {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** The truth: every chunk scored, the best chunk of each document, best first. */
function bruteForce(docs: Doc[], query: Float32Array, limit: number): ChunkHit[] {
  const hits = docs.map((doc) => {
    const scores = doc.vectors.map((vector) => dot(vector, query));
    const chunk = scores.indexOf(Math.max(...scores));
    return { documentId: doc.id, chunk, score: scores[chunk]! };
  });
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

function recallAt(limit: number, index: OwnerVectorIndex, docs: Doc[], asked: Float32Array[]) {
  let found = 0;
  for (const query of asked) {
    const truth = new Set(bruteForce(docs, query, limit).map((hit) => hit.documentId));
    found += index.search(query, limit).filter((hit) => truth.has(hit.documentId)).length;
  }
  return found / (asked.length * limit);
}

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), worst: sorted[sorted.length - 1]! };
}

function timeQueries(index: OwnerVectorIndex, asked: Float32Array[]) {
  return percentiles(
    asked.map((query) => {
      const started = performance.now();
      index.search(query, 10);
      return performance.now() - started;
    }),
  );
}

/** Event-loop turns until `done` settles: how many times the build let other work run. */
async function countTurns(done: Promise<unknown>) {
  let finished = false;
  void done.finally(() => (finished = true));
  let count = 0;
  while (!finished) {
    await new Promise((resolve) => setImmediate(resolve));
    count++;
  }
  return count;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const twentyK = corpus(20_000, 7);

/** Lets `count` event-loop turns pass: the background mover takes one step in each. */
async function turns(count: number) {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('OwnerVectorIndex', () => {
  it('answers small sets exactly, as a brute-force scan does', () => {
    const docs = corpus(3_000, 1);
    const index = newIndex();
    addAll(index, docs);
    expect(index.size).toBe(3_000);
    for (const query of queries(docs, 40, 2)) {
      const got = index.search(query, 10);
      const truth = bruteForce(docs, query, 10);
      expect(got.map(({ documentId, chunk }) => ({ documentId, chunk }))).toEqual(
        truth.map(({ documentId, chunk }) => ({ documentId, chunk })),
      );
      got.forEach((hit, i) => expect(hit.score).toBeCloseTo(truth[i]!.score, 5));
    }
    expect(index.search(queries(docs, 1, 3)[0]!, 1_000)).toHaveLength(docs.length);
  });

  it('finds the best documents of 20k clustered chunks once built (recall@10 ≥ 0.95)', async () => {
    const index = newIndex();
    const started = performance.now();
    addAll(index, twentyK);
    await index.whenBuilt();
    const buildMs = performance.now() - started;
    const asked = queries(twentyK, 100, 11);
    const recall = recallAt(10, index, twentyK, asked);
    const timing = timeQueries(index, asked);
    console.log(
      `20k chunks in ${twentyK.length} documents: built in ${Math.round(buildMs)} ms ` +
        `(${Math.round(20_000 / (buildMs / 1000))} vectors/s), recall@10 ${recall.toFixed(3)}, ` +
        `query p50 ${ms(timing.p50)}, p99 ${ms(timing.p99)}`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('builds in steps that yield the event loop between them', async () => {
    // With no time budget a step adds one vector, whatever the machine's speed: the build of
    // 2,000 vectors takes 2,000 steps, and another callback runs between every two of them. How
    // long a step of the default 4 ms budget blocks the loop is the bench's `steps` figure
    // (bench/src/figures/pacing.ts).
    const docs = corpus(2_000, 12);
    const index = newIndex({ exactBelow: 0, stepBudgetMs: 0 });
    addAll(index, docs);
    expect(await countTurns(index.whenBuilt())).toBeGreaterThanOrEqual(2_000);
    // A graph index holds 8-bit copies, its scores within 0.005 of the truth (measured: 0.0035
    // at most in these tests), so a document that close to the third may stand in for it.
    for (const query of queries(docs, 5, 13)) {
      const truth = bruteForce(docs, query, docs.length);
      const score = new Map(truth.map((hit) => [hit.documentId, hit.score]));
      for (const hit of index.search(query, 3))
        expect(score.get(hit.documentId)).toBeGreaterThan(truth[2]!.score - 0.005);
    }
  });

  it('ranks every document of a library of a few large ones', async () => {
    const docs = corpus(8_000, 8, 3, 1_000);
    const index = newIndex({ exactBelow: 0 });
    addAll(index, docs);
    await index.whenBuilt();
    for (const query of queries(docs, 10, 9)) {
      // The graph's nearest 1024 chunks (what one search asks it for) hold fewer documents than
      // wanted, so the rest must come from the compact copies.
      const nearest = docs
        .flatMap((doc) => doc.vectors.map((vector) => ({ id: doc.id, score: dot(vector, query) })))
        .sort((a, b) => b.score - a.score)
        .slice(0, 1024);
      expect(new Set(nearest.map((chunk) => chunk.id)).size).toBeLessThan(10);
      // The ten best documents, each at its best chunk's score; 8-bit copies are within 0.005,
      // so a document that close to the tenth may stand in for it.
      const truth = bruteForce(docs, query, docs.length);
      const score = new Map(truth.map((hit) => [hit.documentId, hit.score]));
      const got = index.search(query, 10);
      expect(got).toHaveLength(10);
      for (const hit of got) {
        expect(score.get(hit.documentId)).toBeGreaterThan(truth[9]!.score - 0.005);
        expect(Math.abs(hit.score - score.get(hit.documentId)!)).toBeLessThan(0.005);
      }
    }
  });

  it('narrowed to some documents (a tag), ranks their best chunks though the nearest are all others', async () => {
    const docs = corpus(4_000, 21);
    const index = newIndex({ exactBelow: 0 });
    addAll(index, docs);
    await index.whenBuilt();
    for (const query of queries(docs, 5, 22)) {
      // The twenty documents farthest from the query: none is among the graph's nearest chunks.
      const ranked = bruteForce(docs, query, docs.length);
      const only = new Set(ranked.slice(-20).map((hit) => hit.documentId));
      const truth = ranked.filter((hit) => only.has(hit.documentId));
      const got = index.search(query, 10, only);
      expect(got).toHaveLength(10);
      const score = new Map(truth.map((hit) => [hit.documentId, hit.score]));
      for (const hit of got) {
        expect(only.has(hit.documentId)).toBe(true);
        // 8-bit copies (query and rows) are within 0.005 of the true score, so a document that
        // close to the tenth may stand in for it.
        expect(score.get(hit.documentId)).toBeGreaterThan(truth[9]!.score - 0.005);
        expect(Math.abs(hit.score - score.get(hit.documentId)!)).toBeLessThan(0.005);
      }
    }
    // Three documents: too few rows for the graph's candidates to hold, so they are scanned alone.
    for (const query of queries(docs, 5, 24)) {
      const ranked = bruteForce(docs, query, docs.length);
      const only = new Set(ranked.slice(-3).map((hit) => hit.documentId));
      const score = new Map(ranked.map((hit) => [hit.documentId, hit.score]));
      const got = index.search(query, 10, only);
      expect(new Set(got.map((hit) => hit.documentId))).toEqual(only);
      for (const hit of got) expect(Math.abs(hit.score - score.get(hit.documentId)!)).toBeLessThan(0.005);
    }
    expect(index.search(queries(docs, 1, 23)[0]!, 10, new Set())).toEqual([]);
  });

  it('finds a document added a moment ago while the graph is still building', async () => {
    // One vector a step (no time budget): after 300 turns, 300 vectors are in the graph.
    const index = newIndex({ stepBudgetMs: 0 });
    addAll(index, twentyK);
    let built = false;
    void index.whenBuilt().then(() => (built = true));
    await turns(300); // part of the corpus in the graph
    const [fresh] = corpus(30, 99, 1);
    index.addDocument(
      'fresh',
      fresh!.vectors.map((vector, chunk) => ({ chunk, vector })),
    );
    expect(index.search(fresh!.vectors[17]!, 5)[0]).toEqual({
      documentId: 'fresh',
      chunk: 17,
      score: expect.closeTo(1, 5),
    });
    // The first documents went into the graph first, the last ones are still pending.
    expect(index.search(twentyK[0]!.vectors[5]!, 1)[0]).toMatchObject({
      documentId: twentyK[0]!.id,
      chunk: 5,
    });
    expect(index.search(twentyK.at(-1)!.vectors[2]!, 1)[0]).toMatchObject({
      documentId: twentyK.at(-1)!.id,
      chunk: 2,
    });
    expect(built).toBe(false);
    expect(index.size).toBe(20_000 + fresh!.vectors.length);
  });

  it('never returns a removed document, during the build or after it', async () => {
    const index = newIndex();
    addAll(index, twentyK);
    const removed = new Set<string>();
    const check = () => {
      for (const doc of twentyK.filter((d) => removed.has(d.id)).slice(-40)) {
        const hits = index.search(doc.vectors[0]!, 20);
        expect(hits.length).toBe(Math.min(20, twentyK.length - removed.size));
        for (const hit of hits) expect(removed.has(hit.documentId)).toBe(false);
      }
    };
    // A third of the documents at a time, so some go while pending, some half moved into the
    // graph and some once in it.
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      for (const doc of twentyK.filter((_, i) => i % 3 === round)) {
        index.removeDocument(doc.id);
        removed.add(doc.id);
      }
      check();
    }
    await index.whenBuilt();
    check();
    expect(index.size).toBe(0);
    expect(index.documentIds()).toEqual([]);
    expect(index.search(twentyK[0]!.vectors[0]!, 10)).toEqual([]);
  });

  it('replaces what it held for a document', async () => {
    const index = newIndex({ exactBelow: 0 });
    const docs = corpus(5_000, 3);
    addAll(index, docs);
    await index.whenBuilt();
    const target = docs[4]!;
    const [replacement] = corpus(12, 4, 1);
    index.addDocument(
      target.id,
      replacement!.vectors.map((vector, i) => ({ chunk: 100 + i, vector })),
    );
    expect(index.size).toBe(5_000 - target.vectors.length + 12);
    const old = index.search(target.vectors[0]!, 50).find((hit) => hit.documentId === target.id);
    expect(old === undefined || old.score < 0.9).toBe(true);
    expect(index.search(replacement!.vectors[3]!, 1)).toEqual([
      { documentId: target.id, chunk: 103, score: expect.closeTo(1, 2) },
    ]);
    await index.whenBuilt();
    expect(index.search(replacement!.vectors[3]!, 1)[0]).toMatchObject({ documentId: target.id, chunk: 103 });
  });

  it('stops building on close and refuses further use', async () => {
    // One vector a step: after 50 turns the build of 20k is surely under way and not done.
    const index = newIndex({ stepBudgetMs: 0 });
    addAll(index, twentyK);
    const built = index.whenBuilt();
    await turns(50);
    const immediates = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Immediate').length;
    expect(immediates()).toBe(1);
    index.close();
    await expect(built).resolves.toBeUndefined(); // nothing left to wait for
    expect(immediates()).toBe(0);
    expect(index.size).toBe(0);
    expect(() => index.search(twentyK[0]!.vectors[0]!, 10)).toThrow('closed');
    expect(() => index.addDocument('x', [])).toThrow('closed');
  });

  it('keeps its own copy of the vectors it was given', () => {
    const index = newIndex();
    const vector = near(null, 1, seeded(5));
    const original = vector.slice();
    index.addDocument('a', [{ chunk: 0, vector }]);
    vector.fill(0).set([1]);
    expect(index.search(original, 1)[0]!.score).toBeCloseTo(1, 5);
  });

  it('refuses vectors of the wrong size or with no direction, and stays as it was', () => {
    const index = newIndex();
    index.addDocument('a', [{ chunk: 0, vector: near(null, 1, seeded(6)) }]);
    const good = near(null, 1, seeded(7));
    expect(() =>
      index.addDocument('a', [
        { chunk: 0, vector: good },
        { chunk: 1, vector: new Float32Array(128) },
      ]),
    ).toThrow('Chunk 1 of document a has 128 dimensions; this index holds 256-dimension vectors.');
    expect(() => index.addDocument('b', [{ chunk: 0, vector: new Float32Array(dimensions) }])).toThrow(
      'zero or non-finite',
    );
    expect(() => index.search(new Float32Array(3), 5)).toThrow('The query has 3 dimensions');
    expect(index.documentIds()).toEqual(['a']);
    expect(index.size).toBe(1);
  });
});
