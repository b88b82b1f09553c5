/**
 * Nearest notes of one session: an exact cosine scan of its stored vectors (libSQL
 * `vector_distance_cos`), or the optional DiskANN index first. Only rows whose digest is the
 * caller's current digest for that name are ever returned, so a stale vector is never a hit.
 */
import { LibsqlError } from '@libsql/client';
import type { Client, ResultSet } from '@libsql/client';
import { NOTE_VECTORS_TABLE, RECALL_VECTOR_INDEX } from './schema.ts';

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

export interface NearestQuery {
  sessionId: string;
  /** The adapter id: vectors of another model are never compared. */
  model: string;
  query: Float32Array;
  limit: number;
  current: ReadonlyMap<string, string>;
  /** Try the DiskANN index first. */
  useAnn: boolean;
}

/** The session's best current notes for the query vector, best first. */
export async function nearestNotes(client: Client, q: NearestQuery): Promise<RecallHit[]> {
  const { sessionId, model, limit, current } = q;
  const query = vectorBlob(q.query);

  const keep = (rows: ResultSet['rows']): RecallHit[] => {
    const hits: RecallHit[] = [];
    for (const r of rows) {
      const name = String(r.name);
      const digest = String(r.digest);
      if (current.get(name) !== digest) continue; // stale or removed: never returned
      hits.push({ name, digest, score: Math.round((1 - Number(r.d)) * 1e6) / 1e6 });
      if (hits.length === limit) break;
    }
    return hits;
  };

  if (q.useAnn) {
    const k = Math.min(Math.max(limit * 10, 100), 2_000);
    try {
      const rs = await client.execute({
        sql: `SELECT name, digest, d FROM (
                SELECT v.name AS name, v.digest AS digest,
                       vector_distance_cos(v.embedding, vector32(?1)) AS d
                FROM vector_top_k('${RECALL_VECTOR_INDEX}', vector32(?1), ?4) AS t
                JOIN ${NOTE_VECTORS_TABLE} AS v ON v.rowid = t.id
                WHERE v.session_id = ?2 AND v.model = ?3)
              WHERE d IS NOT NULL ORDER BY d, name`,
        args: [query, sessionId, model, k],
      });
      const hits = keep(rs.rows);
      if (hits.length === limit) return hits;
    } catch (error) {
      // The index is missing or unusable: the exact scan below is always correct. Anything else
      // (the database failing, a lock) would fail the scan too, and is the caller's to see.
      if (!isUnusableIndex(error)) throw error;
    }
  }

  // Exact scan of the session's vectors, best first. Stale rows are skipped in JS, so fetch a
  // margin and widen the page in the rare case that many of the best rows are stale.
  for (let page = limit + 32; ; page *= 4) {
    const rs = await client.execute({
      sql: `SELECT name, digest, d FROM (
              SELECT name, digest, vector_distance_cos(embedding, vector32(?1)) AS d
              FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?2 AND model = ?3)
            WHERE d IS NOT NULL ORDER BY d, name LIMIT ?4`,
      args: [query, sessionId, model, page],
    });
    const hits = keep(rs.rows);
    if (hits.length === limit || rs.rows.length < page) return hits;
  }
}

/**
 * What libSQL says when the DiskANN index cannot answer: it is missing (never built, dropped) or
 * its settings cannot be read ("vector index(search): failed to parse vector index parameters").
 */
export function isUnusableIndex(error: unknown): boolean {
  return (
    error instanceof LibsqlError &&
    error.code === 'SQLITE_ERROR' &&
    /vector index|vector_top_k|no such (table|index)/i.test(error.message)
  );
}

/** libSQL reads F32 blobs little-endian, as Float32Array is on every platform Node runs on. */
export function vectorBlob(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

export function isZero(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}
