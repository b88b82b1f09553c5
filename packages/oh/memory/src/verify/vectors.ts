/**
 * The recall side of verify: a stored vector is tied to a note's digest, so a vector at the note's
 * current digest must be the adapter's embedding of that content (it is re-embedded and compared),
 * while a missing, stale or orphaned vector is only lag that recall's catch-up repairs.
 */
import type { Client } from '@libsql/client';
import { str } from '../context.ts';
import { NOTE_VECTORS_TABLE } from '../recall/index.ts';
import type { EmbeddingAdapter } from '@oh/embeddings';

/**
 * A vector re-embedded from the same content by a deterministic adapter is equal; a remote model
 * may differ in the last bits. Not measured against a remote model: lower would miss a vector of
 * slightly different content, higher would report a model's rounding as damage.
 */
const MIN_VECTOR_COSINE = 0.9999;

/** Recall vectors behind the notes: normal lag (indexing runs in the background), not a mismatch. */
export interface RecallLag {
  /** Notes whose vector is stored at their current digest under this adapter. */
  indexed: number;
  /** Notes with no vector at all. */
  missing: number;
  /** Notes whose vector is of an older digest or another model. */
  stale: number;
  /** Vectors whose note is gone. */
  orphaned: number;
}

export interface VectorMeta {
  digest: string;
  /** At the note's current digest and this adapter's model. */
  current: boolean;
}

async function hasTable(client: Client, table: string): Promise<boolean> {
  const rs = await client.execute({
    sql: `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`,
    args: [table],
  });
  return rs.rows.length > 0;
}

/** The session's vector rows (names and digests only), judged against the replayed digests. */
export async function vectorMeta(
  client: Client,
  sessionId: string,
  replayed: ReadonlyMap<string, { digest: string }>,
  adapter: EmbeddingAdapter,
): Promise<Map<string, VectorMeta>> {
  const out = new Map<string, VectorMeta>();
  if (!(await hasTable(client, NOTE_VECTORS_TABLE))) return out;
  const rs = await client.execute({
    sql: `SELECT name, digest, model FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?`,
    args: [sessionId],
  });
  for (const r of rs.rows) {
    const name = str(r.name);
    const digest = str(r.digest);
    out.set(name, { digest, current: replayed.get(name)?.digest === digest && str(r.model) === adapter.id });
  }
  return out;
}

export function recallLag(
  replayed: ReadonlyMap<string, unknown>,
  vectors: ReadonlyMap<string, VectorMeta>,
): RecallLag {
  const lag: RecallLag = { indexed: 0, missing: 0, stale: 0, orphaned: 0 };
  for (const name of replayed.keys()) {
    const v = vectors.get(name);
    if (!v) lag.missing++;
    else if (v.current) lag.indexed++;
    else lag.stale++;
  }
  for (const name of vectors.keys()) if (!replayed.has(name)) lag.orphaned++;
  return lag;
}

/**
 * Re-embeds the rendered notes and compares them with their stored vectors: the names (and
 * digests) whose vector is not their content's, or why nothing could be compared.
 */
export async function compareVectors(
  client: Client,
  sessionId: string,
  notes: ReadonlyArray<{ note: { name: string; digest: string }; render: string }>,
  adapter: EmbeddingAdapter,
): Promise<{ wrong: Array<[name: string, digest: string]> } | { failed: string }> {
  const rs = await client.execute({
    sql: `SELECT name, digest, embedding FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
    args: [sessionId, JSON.stringify(notes.map((n) => n.note.name))],
  });
  const stored = new Map(
    rs.rows.map((r) => [str(r.name), { digest: str(r.digest), vector: toFloats(r.embedding) }]),
  );
  let fresh: Float32Array[];
  try {
    fresh = await adapter.embed(notes.map((n) => n.render));
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
  const wrong: Array<[string, string]> = [];
  for (const [i, { note }] of notes.entries()) {
    const row = stored.get(note.name);
    // Re-indexed at another digest since the metadata was read: that vector is someone else's to check.
    if (!row || row.digest !== note.digest) continue;
    if (!row.vector || cosine(row.vector, fresh[i]) < MIN_VECTOR_COSINE) wrong.push([note.name, note.digest]);
  }
  return { wrong };
}

/** An F32_BLOB as floats (libSQL stores float32 vectors as their little-endian bytes). */
function toFloats(value: unknown): Float32Array | null {
  const bytes =
    value instanceof ArrayBuffer
      ? new Uint8Array(value)
      : ArrayBuffer.isView(value)
        ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength)
        : null;
  if (!bytes || bytes.byteLength % 4 !== 0) return null;
  return new Float32Array(bytes.slice().buffer);
}

function cosine(a: Float32Array, b: Float32Array | undefined): number {
  if (!b || a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  if (na === 0 || nb === 0) return na === nb ? 1 : -1;
  return dot / Math.sqrt(na * nb);
}
