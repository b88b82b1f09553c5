/**
 * `verify`: replaying a session's whole log of 100,000 entries (`store.verify`), beside reading
 * the same log in pages in raw SQL and parsing each entry's ops.
 */
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { VerifyReport } from '@oh/memory';
import { elapsedSeconds, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { NOTE_TEXT, openStore } from '../store.ts';

export async function verifyLongLog(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, builds, log } = ctx;
  const entries = quick ? 10_000 : 100_000;
  const path = join(work, 'verify.db');
  const store = await openStore(path);
  const s = await store.openSession({ ownerId: 'u', documentId: 'd', runId: 'v', pinnedRevision: 0 });
  const session = { sessionId: s.id, author: 'agent:bench' };
  log(`building a log of ${entries} entries (one remember call each)`);
  const t0 = performance.now();
  for (let i = 0; i < entries; i++) {
    await store.remember(session, {
      basedOn: i,
      requestId: `v${i}`,
      changes: [{ op: i < 64 ? 'add' : 'replace', name: `lead:v${i % 64}`, text: `${NOTE_TEXT} ${i}` }],
    });
    if (i % 20_000 === 19_999) log(`  ${i + 1} entries`);
  }
  builds[`session with ${entries} log entries (remember, 1 change per call)`] = elapsedSeconds(t0);
  const runs: number[] = [];
  let report: VerifyReport | undefined;
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    report = await store.verify(s.id);
    runs.push(performance.now() - t);
  }
  store.close();
  // Raw baseline: read every log entry of the session in the same pages and parse its ops.
  const raw = createClient({ url: `file:${path}` });
  const rawRuns: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    for (let after = 0; ;) {
      const rs = await raw.execute({
        sql: 'SELECT version, ops FROM log WHERE session_id = ? AND version > ? ORDER BY version LIMIT 500',
        args: [s.id, after],
      });
      for (const row of rs.rows) {
        JSON.parse(row.ops as string);
        after = Number(row.version);
      }
      if (rs.rows.length < 500) break;
    }
    rawRuns.push(performance.now() - t);
  }
  raw.close();
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  return [
    {
      figure: `verify (replay) ${entries.toLocaleString('en')} log entries`,
      sync: 'n/a',
      project: `${(med(runs) / 1000).toFixed(2)} s (ok: ${report!.ok}, ${report!.logEntries} entries)`,
      baseline: `raw paged read + JSON.parse of the log: ${(med(rawRuns) / 1000).toFixed(2)} s`,
      ratio: round(med(runs) / med(rawRuns)),
      target: '',
      met: null,
      raw: { runsMs: runs, rawRunsMs: rawRuns },
    },
  ];
}
