/**
 * `recall`: recall search (limit 10) at 1k and 10k notes with the local embedding adapter,
 * beside embedding the question and the same exact vector scan in raw SQL.
 */
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { createRecallIndex, openDatabase } from '@oh/memory';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { elapsedSeconds, lat, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { compare } from '../stats.ts';

const WORDS =
  'coral reef bleaching heat stress cover survey transect recovery cyclone starfish outbreak larvae recruitment dataset satellite temperature model bootstrap interval figure trend decline sediment turbidity nutrient runoff biomass reserve acidification growth habitat photo benthic site inshore offshore annual monitoring estimate bias sampling'.split(
    ' ',
  );

export async function recallSearch(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, builds, log } = ctx;
  const rows: Row[] = [];
  const adapter = createLocalEmbeddingAdapter();
  const client = await openDatabase({ url: `file:${join(work, 'recall.db')}` });
  const recall = createRecallIndex({ client, adapter });
  const raw = createClient({ url: `file:${join(work, 'raw-recall.db')}`, concurrency: 1 });
  await raw.execute('PRAGMA journal_mode = WAL');
  await raw.execute('PRAGMA cache_size = -65536');
  await raw.execute(
    `CREATE TABLE v (session_id TEXT NOT NULL, name TEXT NOT NULL, digest TEXT NOT NULL, embedding F32_BLOB(${adapter.dimensions}) NOT NULL, PRIMARY KEY (session_id, name))`,
  );
  const queries = Array.from(
    { length: 20 },
    (_, q) =>
      `${WORDS[(q * 7) % WORDS.length]} ${WORDS[(q * 11 + 3) % WORDS.length]} ${WORDS[(q * 13 + 5) % WORDS.length]}`,
  );
  for (const size of quick ? [1_000] : [1_000, 10_000]) {
    const sessionId = `recall-${size}`;
    const notes = Array.from({ length: size }, (_, i) => {
      const text = Array.from(
        { length: 30 },
        (_, k) => WORDS[(i * 31 + k * 17 + ((i * k) % 7)) % WORDS.length],
      ).join(' ');
      return { name: `lead:r${i}`, kind: 'lead', text, digest: `${i}`.padStart(64, '0') };
    });
    const t0 = performance.now();
    for (let i = 0; i < size; i += 500) await recall.index(sessionId, notes.slice(i, i + 500));
    builds[`recall index of ${size} notes (local adapter)`] = elapsedSeconds(t0);
    for (let i = 0; i < size; i += 500) {
      const slice = notes.slice(i, i + 500);
      const vectors = await adapter.embed(slice.map((n) => n.text));
      await raw.batch(
        slice.map((n, k) => ({
          sql: 'INSERT INTO v (session_id, name, digest, embedding) VALUES (?, ?, ?, vector32(?))',
          args: [sessionId, n.name, n.digest, new Uint8Array(vectors[k]!.buffer)],
        })),
        'write',
      );
    }
    const currentDigests = new Map(notes.map((n) => [n.name, n.digest]));
    log(`recall search at ${size} notes`);
    const r = await compare(
      (i) => recall.search(sessionId, queries[i % queries.length]!, { limit: 10, currentDigests }),
      async (i) => {
        const [vector] = await adapter.embed([queries[i % queries.length]!]);
        await raw.execute({
          sql: 'SELECT name, digest, vector_distance_cos(embedding, vector32(?)) AS d FROM v WHERE session_id = ? ORDER BY d LIMIT 10',
          args: [new Uint8Array(vector!.buffer), sessionId],
        });
      },
      { rounds: 4, perRound: quick ? 20 : 50, warmup: 5 },
    );
    rows.push({
      figure: `recall search (limit 10), ${size.toLocaleString('en')} notes`,
      sync: 'n/a',
      project: lat(r.subject),
      baseline: `embed + raw exact vector scan ${lat(r.baseline)}`,
      ratio: round(r.subject.p50 / r.baseline.p50),
      // Issue 19: recall over a session at the 10,000-note cap within 5 ms.
      target: size === 10_000 ? 'p50 ≤ 5 ms' : '',
      met: size === 10_000 ? r.subject.p50 <= 5 : null,
      raw: { subject: r.subject, baseline: r.baseline },
    });
  }
  recall.close();
  client.close();
  raw.close();
  return rows;
}
