/**
 * `query`: the store's `current_notes` query (24 rows) and a one-note read on sessions of 1k, 10k
 * and 100k notes, beside the same selects in raw SQL, and how each scales from 1k to the largest.
 */
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Change } from '@oh/memory';
import { elapsedSeconds, lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { openRaw, rawBatch } from '../raw.ts';
import { interleave } from '../stats.ts';
import type { Sample } from '../stats.ts';
import { NOTE_TEXT, openStore } from '../store.ts';

export async function queryAndRead(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, builds, log } = ctx;
  const rows: Row[] = [];
  const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const path = join(work, 'query.db');
  const store = await openStore(path);
  // 100,000 notes is ten times the session quota (SPEC §9): for this scaling figure only, the
  // quota trigger is dropped from the bench's private database. Reads do not touch it.
  const ddl = createClient({ url: `file:${path}` });
  await ddl.execute('DROP TRIGGER IF EXISTS sessions_note_quota');
  ddl.close();
  const raw = await openRaw(join(work, 'raw-query.db'), 'FULL');
  // Every session is built first, then timed in the same rounds (interleave): each size meets the
  // same database file and the same machine state, so the scaling ratios compare session sizes,
  // not a small young file at 1k with a large one at 100k, nor minutes of drift.
  const built: Array<{ size: number; session: { sessionId: string; author: string } }> = [];
  for (const size of sizes) {
    const s = await store.openSession({
      ownerId: 'u',
      documentId: 'd',
      runId: `q${size}`,
      pinnedRevision: 0,
    });
    const session = { sessionId: s.id, author: 'agent:bench' };
    const t0 = performance.now();
    let v = 0;
    for (let first = 0; first < size; first += 64) {
      const n = Math.min(64, size - first);
      const changes: Change[] = Array.from({ length: n }, (_, k) => ({
        op: 'add' as const,
        name: `lead:q${first + k}`,
        text: NOTE_TEXT,
        ...(first + k > 0 && (first + k) % 10 === 0
          ? { links: [{ rel: 'supports' as const, to: `lead:q${first + k - 1}` }] }
          : {}),
      }));
      v = (await store.remember(session, { basedOn: v, requestId: `b${first}`, changes })).version;
    }
    const took = elapsedSeconds(t0);
    builds[`session with ${size} notes (remember, 64 per call)`] = took;
    log(`built ${size} notes in ${took}`);
    for (let first = 0; first < size; first += 2_000)
      await rawBatch(raw, `s${size}`, first, Math.min(2_000, size - first), NOTE_TEXT);
    built.push({ size, session });
  }

  const rounds = { rounds: 5, perRound: quick ? 40 : 100, warmup: 20 };
  // Per size: [project, raw], raw first in each round as in compare().
  const order = built.flatMap((_, k) => [2 * k + 1, 2 * k]);
  const q = await interleave(
    built.flatMap(({ size, session }) => [
      () => store.query(session, { question: 'current_notes' }),
      () =>
        raw.execute({
          sql: 'SELECT name, digest FROM notes WHERE session_id = ? ORDER BY version DESC LIMIT 24',
          args: [`s${size}`],
        }),
    ]),
    rounds,
    order,
  );
  const pick = (size: number, i: number) => (i * 7919) % size;
  const r = await interleave(
    built.flatMap(({ size, session }) => [
      (i: number) => store.read(session, { name: `lead:q${pick(size, i)}` }),
      (i: number) =>
        raw.execute({
          sql: 'SELECT name, text, data, digest, version FROM notes WHERE session_id = ? AND name = ?',
          args: [`s${size}`, `lead:n${pick(size, i)}`],
        }),
    ]),
    rounds,
    order,
  );
  built.forEach(({ size }, k) => {
    const [qs, qb, rs, rb] = [q[2 * k]!, q[2 * k + 1]!, r[2 * k]!, r[2 * k + 1]!];
    rows.push({
      figure: `query current_notes (24 rows), ${size.toLocaleString('en')} notes`,
      sync: 'n/a',
      project: lat(qs),
      baseline: `raw 24-row select ${lat(qb)}`,
      ratio: round(qs.p50 / qb.p50),
      target: size === 100_000 ? 'p50 ≤ 2 ms' : '',
      met: size === 100_000 ? qs.p50 <= 2 : null,
      raw: { subject: qs, baseline: qb },
    });
    rows.push({
      figure: `read 1 note, ${size.toLocaleString('en')} notes`,
      sync: 'n/a',
      project: lat(rs),
      baseline: `raw point select ${lat(rb)}`,
      ratio: round(rs.p50 / rb.p50),
      target: size === 100_000 ? 'p50 ≤ 2 ms' : '',
      met: size === 100_000 ? rs.p50 <= 2 : null,
      raw: { subject: rs, baseline: rb },
    });
  });
  // Scaling: time at the largest size over time at 1k (nothing may scan the session).
  for (const what of ['query current_notes', 'read 1 note']) {
    const at = (size: number) =>
      rows.find((x) => x.figure.startsWith(what) && x.figure.endsWith(`${size.toLocaleString('en')} notes`))!;
    const big = sizes.at(-1)!;
    const p = (row: Row) => (row.raw!.subject as Sample).p50;
    const ratio = p(at(big)) / p(at(1_000));
    rows.push({
      figure: `${what}: time at ${big.toLocaleString('en')} ÷ time at 1,000`,
      sync: 'n/a',
      project: `${ms(p(at(big)))} ms vs ${ms(p(at(1_000)))} ms`,
      baseline: `raw: ${round((at(big).raw!.baseline as Sample).p50 / (at(1_000).raw!.baseline as Sample).p50)}×`,
      ratio: round(ratio),
      target: '≤ 1.5×',
      met: big === 100_000 ? ratio <= 1.5 : null,
    });
  }
  raw.close();
  store.close();
  return rows;
}
