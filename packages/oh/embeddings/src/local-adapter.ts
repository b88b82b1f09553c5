/**
 * The default embedding adapter: deterministic feature hashing, no network, no model files.
 *
 * Text is lowercased, accent-folded and split into words. Features are
 *   - word unigrams (lightly stemmed, stop words dropped),
 *   - word bigrams over that filtered sequence,
 *   - character 3–5-grams of each word with boundary marks (`<reef>` → `<re`, `ree`, …),
 * each hashed (FNV-1a + murmur3 finaliser) to one of `dimensions` buckets with a hashed sign
 * (signed feature hashing, so collisions cancel out on average rather than pile up), weighted with
 * sub-linear term frequency, and the whole vector is L2-normalised. It captures lexical and
 * morphological overlap, not meaning: "coral bleaching" is near "bleached corals", not near
 * "heat-stressed reef".
 */
import { checkDimensions } from './adapter.ts';
import type { EmbeddingAdapter } from './adapter.ts';

export interface LocalEmbeddingOptions {
  /** Vector length; 256 by default. */
  dimensions?: number;
}

/** Bump when the features or weights change: stored vectors become stale and are re-indexed. */
const LOCAL_EMBEDDING_VERSION = 1;

/**
 * Notes embedded between two turns of the event loop (about 0.25 ms each: bench/README.md,
 * notebook, "Shadow indexing under load"), so about 8 ms per turn. Not measured as a value: fewer
 * turns the loop more often and costs a turn each time.
 */
const YIELD_EVERY = 32;

// The features' weights: not measured one by one; the shipped labelled set holds their combination
// to its floor (recall/quality.test.ts in @oh/memory: the expected note in the top 3 for at least
// 80 % of the queries).
const UNIGRAM_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.6;
/** L2 weight of all the character n-grams of one word occurrence. */
const CHARGRAM_WEIGHT = 0.8;
const CHARGRAM_MIN = 3;
const CHARGRAM_MAX = 5;

// A short English stop-word list: function words that carry no topic.
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before ' +
    'being below between both but by can could did do does doing down during each few for from ' +
    'further had has have having he her here hers herself him himself his how i if in into is it ' +
    'its itself just me more most my myself no nor not now of off on once only or other our ours ' +
    'ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were ' +
    'what when where which while who whom why will with would you your yours yourself yourselves ' +
    'via per vs etc may might must shall us let lets get got'
  ).split(' '),
);

/**
 * Whether a word (lowercased) is an English function word, one that says nothing about what a
 * text is about: the local adapter leaves it out of its features, and a keyword search can leave
 * it out of what it marks, so that the two agree on which words count.
 */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

export function createLocalEmbeddingAdapter(options: LocalEmbeddingOptions = {}): EmbeddingAdapter {
  const dimensions = checkDimensions(options.dimensions ?? 256, 'local embedding adapter');
  return {
    id: `local-hash-v${LOCAL_EMBEDDING_VERSION}:${dimensions}`,
    dimensions,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i++) {
        // The work is synchronous: a catch-up of thousands of notes would hold the event loop for
        // seconds. A turn of the loop every few notes lets the process answer other calls.
        if (i > 0 && i % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        vectors.push(embedLocal(texts[i]!, dimensions));
      }
      return vectors;
    },
  };
}

/** The local embedding of one text (synchronous; exported for tests and tools). */
export function embedLocal(text: string, dimensions: number): Float32Array {
  const features = extractFeatures(text);
  const vector = new Float32Array(dimensions);
  for (const [feature, weight] of features) {
    const h = hash32(feature);
    const bucket = h % dimensions;
    const sign = (mix32(h ^ 0x9e3779b9) & 1) === 0 ? 1 : -1;
    vector[bucket] = (vector[bucket] ?? 0) + sign * weight;
  }
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += vector[i]! * vector[i]!;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < dimensions; i++) vector[i] = vector[i]! * inv;
  }
  return vector;
}

/** Words of a text: NFKD, marks stripped, lowercased, runs of letters and digits. */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A light English stemmer: plural and -ing/-ed endings only; numbers untouched. */
export function stem(word: string): string {
  if (word.length <= 3 || /\p{N}/u.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (/(?:ch|sh|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4) return undouble(word.slice(0, -2));
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function undouble(word: string): string {
  // modelled → modell → model; but keep "ll"/"ss" words of 3 letters or fewer.
  const n = word.length;
  if (n > 3 && word[n - 1] === word[n - 2] && /[bdglmnprt]/.test(word[n - 1]!)) return word.slice(0, -1);
  return word;
}

function extractFeatures(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number): void => {
    counts.set(feature, (counts.get(feature) ?? 0) + weight);
  };
  const words = tokenize(text).filter((w) => !isStopWord(w));
  const stems = words.map(stem);
  for (let i = 0; i < words.length; i++) {
    const s = stems[i]!;
    add(`w\u0000${s}`, UNIGRAM_WEIGHT);
    if (i + 1 < words.length) add(`b\u0000${s}\u0000${stems[i + 1]!}`, BIGRAM_WEIGHT);
    const grams = charGrams(words[i]!);
    const w = CHARGRAM_WEIGHT / Math.sqrt(grams.length);
    for (const g of grams) add(`c\u0000${g}`, w);
  }
  // Sub-linear term frequency: a word said five times is not five times as telling.
  const features = new Map<string, number>();
  for (const [feature, weight] of counts) features.set(feature, Math.log1p(weight));
  return features;
}

function charGrams(word: string): string[] {
  const marked = `<${word}>`;
  const chars = Array.from(marked);
  const grams: string[] = [];
  for (let n = CHARGRAM_MIN; n <= CHARGRAM_MAX; n++) {
    for (let i = 0; i + n <= chars.length; i++) grams.push(chars.slice(i, i + n).join(''));
  }
  // A word of one letter has no 3-gram beyond its marked form.
  if (grams.length === 0) grams.push(marked);
  return grams;
}

/** FNV-1a over UTF-16 code units, then the murmur3 finaliser for avalanche. Unsigned 32-bit. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
