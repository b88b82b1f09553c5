/**
 * What a recall search takes and gives, and the vector helpers the index shares. The search itself
 * is an exact cosine scan of the session's vectors, in memory (session-vectors.ts). Only rows whose
 * digest is the caller's current digest for that name are ever returned, so a stale vector is
 * never a hit.
 */

export interface RecallHit {
  name: string;
  digest: string;
  /** Cosine similarity, −1..1 (rounded to 6 decimals). */
  score: number;
}

export interface RecallSearchOptions {
  /** 1..200; 10 by default. */
  limit?: number;
  /** The session's notes as they are now: name → digest. A name absent here is never returned. */
  currentDigests: ReadonlyMap<string, string>;
}

const SEARCH_LIMIT_MAX = 200;

/** Checks a search's text and options; returns the limit. */
export function searchLimit(text: string, opts: RecallSearchOptions): number {
  if (typeof text !== 'string') throw new TypeError('recall: search text must be a string');
  const limit = opts.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
    throw new RangeError(`recall: limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
  }
  if (!(opts.currentDigests instanceof Map))
    throw new TypeError('recall: currentDigests (a Map of name → digest) is required');
  return limit;
}

/** libSQL reads F32 blobs little-endian, as Float32Array is on every platform Node runs on. */
export function vectorBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

export function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}
