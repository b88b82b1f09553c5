/**
 * The in-memory exact scan gives the answers the SQL scan (`vector_distance_cos`) gave, and its
 * copies go with the session's vectors.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall-index.ts';
import type { RecallNote } from './render.ts';
import { NOTE_VECTORS_TABLE } from './schema.ts';
import type { RecallHit } from './search.ts';
import { vectorBlob } from './search.ts';
import { createSessionVectors } from './session-vectors.ts';

const WORDS =
  'coral reef bleaching heat stress cover survey transect recovery cyclone starfish outbreak larvae recruitment dataset satellite temperature model bootstrap interval figure trend decline sediment'.split(
    ' ',
  );

let dir: string;
let client: Client;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-vectors-'));
  client = createClient({ url: `file:${join(dir, 'memory.db')}` });
});
afterEach(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The reference: the exact scan in SQL that recall ran before its copies moved into memory, best
 * first, ties by name, a stale or removed note never a hit.
 */
async function sqlScan(
  sessionId: string,
  model: string,
  query: Float32Array,
  limit: number,
  current: ReadonlyMap<string, string>,
): Promise<RecallHit[]> {
  const rs = await client.execute({
    sql: `SELECT name, digest, d FROM (
            SELECT name, digest, vector_distance_cos(embedding, vector32(?1)) AS d
            FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?2 AND model = ?3)
          WHERE d IS NOT NULL ORDER BY d, name`,
    args: [vectorBlob(query), sessionId, model],
  });
  const hits: RecallHit[] = [];
  for (const r of rs.rows) {
    if (current.get(String(r.name)) !== String(r.digest)) continue;
    hits.push({
      name: String(r.name),
      digest: String(r.digest),
      score: Math.round((1 - Number(r.d)) * 1e6) / 1e6,
    });
    if (hits.length === limit) break;
  }
  return hits;
}

function note(i: number): RecallNote {
  const text = Array.from(
    { length: 12 },
    (_, k) => WORDS[(i * 7 + k * 5 + ((i * k) % 3)) % WORDS.length],
  ).join(' ');
  const digest = createHash('sha256').update(`${i}:${text}`).digest('hex');
  return { kind: 'lead', name: `lead:n${i}`, text, data: null, links: [], digest };
}

describe('recall in memory', () => {
  it('answers as the SQL scan did: same notes, same order, same scores (to 1e-6), stale rows never', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const ix = createRecallIndex({ client, adapter });
    const notes = Array.from({ length: 1_500 }, (_, i) => note(i));
    await ix.index('s1', notes);
    // Some notes have moved on since they were indexed: their vectors are stale, never hits.
    const current = new Map(notes.map((n, i) => [n.name, i % 10 === 0 ? 'moved'.padEnd(64, '0') : n.digest]));
    let compared = 0;
    for (let q = 0; q < 40; q++) {
      const text = `${WORDS[q % WORDS.length]} ${WORDS[(q * 3 + 1) % WORDS.length]} ${WORDS[(q * 5 + 2) % WORDS.length]}`;
      const mem = await ix.search('s1', text, { limit: 20, currentDigests: current });
      const [query] = await adapter.embed([text]);
      const sql = await sqlScan('s1', adapter.id, query!, 20, current);
      expect(mem.map((h) => h.name).length).toBe(sql.length);
      for (let i = 0; i < sql.length; i++) {
        // Same score at every rank; two notes may swap only where their scores tie to the rounding.
        expect(Math.abs(mem[i]!.score - sql[i]!.score)).toBeLessThanOrEqual(2e-6);
        if (mem[i]!.name === sql[i]!.name) compared++;
      }
      expect(mem.every((h) => current.get(h.name) === h.digest)).toBe(true);
    }
    expect(compared).toBeGreaterThan(700);
    ix.close();
  });

  it('drops the copies of a deleted session, of idle sessions and over its budget', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const ix = createRecallIndex({ client, adapter });
    const notes = Array.from({ length: 50 }, (_, i) => note(i));
    await ix.index('s1', notes);
    await ix.index('s2', notes);
    const current = new Map(notes.map((n) => [n.name, n.digest]));
    const [query] = await adapter.embed(['coral reef']);

    let t = 0;
    const copies = createSessionVectors({ maxVectors: 60, idleMs: 1_000, now: () => t });
    const ask = (sessionId: string) =>
      copies.nearest(client, { sessionId, model: adapter.id, query: query!, limit: 5, current });
    expect(await ask('s1')).toHaveLength(5);
    expect(copies.size()).toBe(50);
    await ask('s2'); // over the budget: s1 goes
    expect(copies.size()).toBe(50);
    t += 5_000;
    await ask('s1'); // s2 idle: gone
    expect(copies.size()).toBe(50);
    copies.drop('s1');
    expect(copies.size()).toBe(0);

    // Through the index: deleteSession leaves nothing in memory, and nothing is found after it.
    expect(await ix.search('s1', 'coral reef', { limit: 5, currentDigests: current })).toHaveLength(5);
    await ix.deleteSession('s1');
    expect(await ix.search('s1', 'coral reef', { limit: 5, currentDigests: current })).toEqual([]);
    ix.close();
  });
});
