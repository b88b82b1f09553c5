/**
 * Crash safety: a writer process is killed with SIGKILL at random moments, 30 times, while it
 * commits remember calls to one session. After every kill the database must be intact, every
 * acknowledged call present, no call half applied, and the log must replay to the notes.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryStore } from './index.ts';
import { fileUrl, openStore, rawClient, tempDir } from './testing/fixtures.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const writerScript = fileURLToPath(new URL('./testing/crash-writer.ts', import.meta.url));
const KILLS = 30;

interface RunResult {
  acked: number[];
  ready: number;
  stderr: string;
}

interface Writer {
  /** Lets the (already loaded) writer open the database, then kills it `killAfterMs` after its first ack. */
  run: (killAfterMs: number) => Promise<RunResult>;
}

/** Spawns a writer that loads and then waits, so its start-up overlaps the previous run's checks. */
function spawnWriter(dbPath: string, sessionId: string): Writer {
  const child = spawn(process.execPath, ['--import', 'tsx', writerScript, dbPath, sessionId], {
    cwd: packageDir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const acked: number[] = [];
  let ready = -1;
  let buffered = '';
  let stderr = '';
  let timer: NodeJS.Timeout | undefined;
  let killAfter = 0;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const [word, n] = line.split(' ');
      if (word === 'ready') ready = Number(n);
      if (word === 'ack') {
        acked.push(Number(n));
        // The kill lands at a random moment after the first commit: mid-batch, mid-fsync,
        // between calls, during a WAL append, wherever the writer happens to be.
        if (acked.length === 1) timer = setTimeout(() => child.kill('SIGKILL'), killAfter);
      }
    }
  });
  child.stderr.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return {
    run: async (killAfterMs) => {
      killAfter = killAfterMs;
      const watchdog = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.stdin.write('go\n');
      const { code, signal } = await exited;
      clearTimeout(watchdog);
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL' || acked.length === 0) {
        throw new Error(
          `writer ended without being killed mid-run (code ${code}, signal ${signal}):\n${stderr}`,
        );
      }
      return { acked, ready, stderr };
    },
  };
}

/** Everything that must hold after a crash, whatever moment it hit. */
async function checkAfterCrash(dbPath: string, sessionId: string, acked: number[]): Promise<number> {
  const raw = rawClient(dbPath);
  try {
    const integrity = await raw.execute('PRAGMA integrity_check');
    expect(integrity.rows.map((r) => String(r[0]))).toEqual(['ok']);
  } finally {
    raw.close();
  }

  const store = await openStore(fileUrl(dbPath));
  try {
    const session = await store.getSession(sessionId);
    expect(session?.state).toBe('open');
    const v = session!.version;
    // Every acknowledged call survived the kill.
    for (const a of acked) expect(a).toBeLessThanOrEqual(v);

    const notes = new Map((await store.notes(sessionId)).map((n) => [n.name, n]));
    // All changes of calls 1..v are there, and nothing of any later call: no half-applied call.
    const expected = new Set<string>(['counter:main', `pair:v${v}`]);
    for (let k = 1; k <= v; k++) expected.add(`step:v${k}`);
    expect([...notes.keys()].sort()).toEqual([...expected].sort());
    expect(notes.get('counter:main')?.text).toBe(String(v));
    for (let k = 1; k <= v; k++) expect(notes.get(`step:v${k}`)?.text).toBe(`call ${k}`);

    // The log holds exactly one entry per version, in order, each with its own request id.
    const log = await store.log(sessionId);
    expect(log.map((e) => e.version)).toEqual(Array.from({ length: v }, (_, i) => i + 1));
    expect(log.map((e) => e.requestId)).toEqual(Array.from({ length: v }, (_, i) => `crash-${i + 1}`));

    const report = await store.verify(sessionId);
    expect(report.mismatches).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.version).toBe(v);
    return v;
  } finally {
    store.close();
  }
}

describe('crash safety (SIGKILL during remember)', () => {
  const tmp = tempDir('crash');
  const dbPath = join(tmp.dir, 'memory.db');
  let sessionId = '';

  beforeAll(async () => {
    const store: MemoryStore = await openStore(fileUrl(dbPath));
    try {
      const s = await store.openSession({
        ownerId: 'user:crash',
        documentId: 'doc:crash',
        runId: 'run:crash',
        pinnedRevision: 0,
      });
      sessionId = s.id;
    } finally {
      store.close();
    }
  });
  afterAll(() => tmp.remove());

  it(`keeps every acknowledged call and no half-applied one across ${KILLS} kills`, async () => {
    let version = 0;
    let totalAcked = 0;
    let next = spawnWriter(dbPath, sessionId);
    for (let i = 0; i < KILLS; i++) {
      // Mostly short runs (kill within the first few commits), some longer ones.
      const killAfterMs = i % 5 === 4 ? 100 + Math.random() * 300 : Math.random() * 40;
      const run = await next.run(killAfterMs);
      // The next writer loads while this crash is checked; it touches the file only on "go".
      if (i + 1 < KILLS) next = spawnWriter(dbPath, sessionId);
      expect(run.ready, `run ${i} restarted at the version left by the previous one`).toBe(version);
      expect(run.acked.length).toBeGreaterThan(0);
      totalAcked += run.acked.length;
      const v = await checkAfterCrash(dbPath, sessionId, run.acked);
      // Nothing acknowledged is lost, and at most the one call in flight got in unacknowledged.
      expect(v).toBeGreaterThanOrEqual(run.acked.at(-1)!);
      expect(v - run.acked.at(-1)!).toBeLessThanOrEqual(1);
      version = v;
    }
    expect(totalAcked).toBeGreaterThanOrEqual(KILLS);
  }, 180_000);
});
