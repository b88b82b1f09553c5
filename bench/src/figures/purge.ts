/**
 * `purge`: the purge worker, in a process of its own as in production, deleting 10,000 expired
 * sessions of 20 notes while an agent writes to a live session of the same file: notes purged per
 * second beside raw deletes, and the writer's worst latency beside the same writer with no purge.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { elapsedSeconds, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { openRaw } from '../raw.ts';
import { summarize, time } from '../stats.ts';
import { NOTE_TEXT, addChanges, openStore } from '../store.ts';

export async function purgeWhileWriting(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, benchDir, builds, log } = ctx;
  const sessions = quick ? 1_000 : 10_000;
  const path = join(work, 'purge.db');
  const past = Date.now() - 2 * 86_400_000;
  const old = await openStore(path, () => new Date(past));
  log(`building ${sessions} expired sessions of 20 notes`);
  const t0 = performance.now();
  for (let s = 0; s < sessions; s++) {
    const info = await old.openSession({ ownerId: 'u', documentId: 'd', runId: `p${s}`, pinnedRevision: 0 });
    await old.remember(
      { sessionId: info.id, author: 'agent:bench' },
      { basedOn: 0, requestId: 'fill', changes: addChanges(s, 20) },
    );
  }
  old.close();
  builds[`${sessions} expired sessions × 20 notes`] = elapsedSeconds(t0);

  const live = await openStore(path);
  const s = await live.openSession({ ownerId: 'u', documentId: 'd', runId: 'live', pinnedRevision: 0 });
  const session = { sessionId: s.id, author: 'agent:bench' };
  let v = 0;
  let i = 0;
  const one = async () => {
    v = (
      await live.remember(session, {
        basedOn: v,
        requestId: `l${i}`,
        changes: [{ op: i < 5_000 ? 'add' : 'replace', name: `lead:l${i % 5_000}`, text: NOTE_TEXT }],
      })
    ).version;
    i++;
  };
  const idle = summarize(await time(one, quick ? 200 : 500, 20));

  log('purging in a separate process while an agent writes');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/purge-child.ts', path, '500'], {
    cwd: benchDir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  let running = true;
  const exited = new Promise<void>((r) => child.on('exit', () => ((running = false), r())));
  const during: number[] = [];
  while (running) {
    const t = performance.now();
    await one();
    during.push(performance.now() - t);
    // The local driver settles its promises at once: without a turn of the event loop the
    // child's exit would never be noticed.
    await new Promise((r) => setImmediate(r));
  }
  await exited;
  live.close();
  const report = JSON.parse(out.trim()) as { sessions: number; rows: number; passes: number; ms: number };
  const notesPerSecond = (sessions * 20) / (report.ms / 1000);
  const d = summarize(during);

  // Raw baseline: the same rows deleted one session per write batch, at the same settings.
  const raw = await openRaw(join(work, 'raw-purge.db'), 'FULL');
  for (let first = 0; first < sessions * 20; first += 2_000) {
    const stmts = Array.from({ length: 2_000 }, (_, k) => ({
      sql: 'INSERT INTO notes (session_id, name, version, text, data, digest) VALUES (?, ?, 1, ?, NULL, ?)',
      args: [`p${Math.floor((first + k) / 20)}`, `lead:n${first + k}`, NOTE_TEXT, 'f'.repeat(64)],
    }));
    await raw.batch(stmts, 'write');
  }
  const r0 = performance.now();
  for (let p = 0; p < sessions; p++)
    await raw.batch([{ sql: 'DELETE FROM notes WHERE session_id = ?', args: [`p${p}`] }], 'write');
  const rawNotesPerSecond = (sessions * 20) / ((performance.now() - r0) / 1000);
  raw.close();

  return [
    {
      figure: `purge ${sessions.toLocaleString('en')} expired sessions × 20 notes (notes purged/s)`,
      sync: 'FULL',
      project: `${notesPerSecond.toFixed(0)} notes/s (${(report.ms / 1000).toFixed(1)} s, ${report.rows} rows, ${report.passes} passes)`,
      baseline: `raw one DELETE per session per batch: ${rawNotesPerSecond.toFixed(0)} notes/s`,
      ratio: round(notesPerSecond / rawNotesPerSecond),
      target: '',
      met: null,
      raw: report,
    },
    {
      figure: 'worst remember latency while the purge runs',
      sync: 'FULL',
      project: `max ${ms(d.max)} ms (p50 ${ms(d.p50)}, p99 ${ms(d.p99)}, ${d.n} calls)`,
      baseline: `same writer with no purge: max ${ms(idle.max)} ms (p50 ${ms(idle.p50)}, p99 ${ms(idle.p99)})`,
      ratio: round(d.max / idle.max),
      target: 'no call > 100 ms',
      met: d.max < 100,
      raw: { during: d, idle },
    },
  ];
}
