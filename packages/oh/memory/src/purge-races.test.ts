/**
 * Purge races: late writes during and after a purge (from another process, with the purger's
 * clock ahead of the writer's so the race lands on the expiry boundary), forget during a
 * remember, purge during an explain, and chunked purge passes while other sessions are written.
 * Invariants: no resurrection (a forgotten or purged session never reads open again, and no
 * note, log or index row of a purged session survives), and no partial session (a session is
 * either whole, and replays, or purged, and empty).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Change, MemoryStore, SessionState } from './index.ts';
import {
  fileUrl,
  openStore,
  openTestPurger,
  outcome,
  rawClient,
  rowsMentioning,
  rowsPerTable,
  tempDir,
  testClock,
} from './testing/fixtures.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const writerScript = fileURLToPath(new URL('./testing/race-writer.ts', import.meta.url));

function notes(prefix: string, count: number, marker: string, from = 0): Change[] {
  return Array.from({ length: count }, (_, i) => ({
    op: 'add' as const,
    name: `lead:${prefix}-${from + i}`,
    text: `${marker} ${prefix} ${from + i}`,
    data: { marker },
    links: i > 0 ? [{ rel: 'supports' as const, to: `lead:${prefix}-${from + i - 1}` }] : [],
  }));
}

async function seed(
  store: MemoryStore,
  sessionId: string,
  marker: string,
  calls: number,
  perCall: number,
): Promise<number> {
  let v = 0;
  for (let c = 0; c < calls; c++) {
    v = (
      await store.remember(
        { sessionId, author: 'agent:seed' },
        { basedOn: v, requestId: `seed-${c}`, changes: notes('n', perCall, marker, c * perCall) },
      )
    ).version;
  }
  return v;
}

/** A purged session has no notes, no log and at most its tombstone row in any table. */
async function expectPurgedAndEmpty(
  store: MemoryStore,
  dbPath: string,
  sessionId: string,
  markers: string[],
): Promise<void> {
  expect((await store.getSession(sessionId))?.state).toBe('purged');
  expect(await store.notes(sessionId)).toEqual([]);
  expect(await store.log(sessionId)).toEqual([]);
  const raw = rawClient(dbPath);
  try {
    for (const [table, count] of await rowsPerTable(raw, sessionId))
      expect(count, `${table} rows of ${sessionId}`).toBeLessThanOrEqual(1);
    expect(await rowsMentioning(raw, markers)).toEqual([]);
  } finally {
    raw.close();
  }
}

/** Records every state a session is seen in; a closed state must never be followed by `open`. */
class StateWatch {
  readonly seen = new Map<string, SessionState[]>();
  note(id: string, state: SessionState | undefined): void {
    if (!state) return;
    const list = this.seen.get(id) ?? [];
    if (list.at(-1) !== state) list.push(state);
    this.seen.set(id, list);
  }
  resurrections(): string[] {
    const out: string[] = [];
    for (const [id, states] of this.seen) {
      const firstClosed = states.findIndex((s) => s === 'purged' || s === 'forgotten');
      if (firstClosed >= 0 && states.slice(firstClosed).some((s) => s === 'open' || s === 'opening'))
        out.push(`${id}: ${states.join(' -> ')}`);
      const purged = states.indexOf('purged');
      if (purged >= 0 && states.slice(purged).some((s) => s !== 'purged'))
        out.push(`${id}: ${states.join(' -> ')}`);
    }
    return out;
  }
}

describe('purge races', () => {
  const tmp = tempDir('purge-races');
  afterAll(() => tmp.remove());

  it('late writes from another process during and after a purge: no resurrection, nothing left', async () => {
    const dbPath = join(tmp.dir, 'late.db');
    const store = await openStore(fileUrl(dbPath), { sessionTtlSeconds: 120 });
    // The purger's clock jumps past the sessions' expiry while the writer's clock still has them
    // open for minutes: the writer keeps writing into the purge, which is exactly the late-write race.
    let skewMs = 0;
    const purger = await openTestPurger(fileUrl(dbPath), () => new Date(Date.now() + skewMs));
    const marker = `RACE${randomBytes(6).toString('hex')}`;
    const sessions: string[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const s = await store.openSession({
          ownerId: 'user:o',
          documentId: 'doc:d',
          runId: `run:late-${i}`,
          pinnedRevision: 0,
        });
        sessions.push(s.id);
        await seed(store, s.id, marker, 2, 16);
      }
      const child = spawn(process.execPath, ['--import', 'tsx', writerScript, dbPath, marker, ...sessions], {
        cwd: packageDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += String(d)));
      child.stderr.on('data', (d) => (err += String(d)));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Before purging: nothing is expired yet, so a pass must leave every session alone.
      await purger.purgeOnce({ chunkSize: 2 });
      for (let wait = 0; (out.match(/^ack /gm)?.length ?? 0) < 30; wait++) {
        if (wait > 600 || child.exitCode !== null)
          throw new Error(`the writer did not get going: ${err.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      skewMs = 121_000;

      const watch = new StateWatch();
      const deadline = Date.now() + 30_000;
      let passes = 0;
      while (Date.now() < deadline) {
        await purger.purgeOnce({ chunkSize: 2 });
        passes++;
        const states = await store.getSessions(sessions);
        for (const id of sessions) watch.note(id, states.get(id)?.state);
        if (sessions.every((id) => states.get(id)?.state === 'purged')) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      expect(code, `writer: ${err.slice(-2000)}`).toBe(0);
      expect(out).toContain('done');
      expect(out.split('\n').filter((l) => l.startsWith('error'))).toEqual([]);
      // The writer really wrote during the race (before the boundary), then was refused.
      expect(out.split('\n').filter((l) => l.startsWith('ack')).length).toBeGreaterThanOrEqual(30);
      expect(passes).toBeGreaterThan(0);
      expect(watch.resurrections()).toEqual([]);

      for (const id of sessions) await expectPurgedAndEmpty(store, dbPath, id, [marker]);
      // After the purge, every late write is refused, also a replay of an earlier request id.
      for (const id of sessions) {
        expect(
          await outcome(
            store.remember(
              { sessionId: id, author: 'agent:late' },
              { basedOn: 0, requestId: 'seed-0', changes: notes('n', 16, marker) },
            ),
          ),
        ).toBe('session_closed');
        expect(
          await outcome(
            store.remember(
              { sessionId: id, author: 'agent:late' },
              { basedOn: 2, requestId: 'late-x', changes: notes('z', 1, marker) },
            ),
          ),
        ).toBe('session_closed');
        expect((await store.getSession(id))?.state).toBe('purged');
      }
      await expectPurgedAndEmpty(store, dbPath, sessions[0]!, [marker]);
    } finally {
      purger.close();
      store.close();
    }
  }, 90_000);

  it('forget during a remember (two connections, 40 rounds): the call is whole or refused, and nothing survives', async () => {
    const dbPath = join(tmp.dir, 'forget.db');
    const a = await openStore(fileUrl(dbPath));
    const b = await openStore(fileUrl(dbPath));
    const marker = `FRG${randomBytes(6).toString('hex')}`;
    const outcomes = new Map<string, number>();
    try {
      for (let round = 0; round < 40; round++) {
        const s = await a.openSession({
          ownerId: 'user:o',
          documentId: 'doc:d',
          runId: `run:f-${round}`,
          pinnedRevision: 0,
        });
        await seed(a, s.id, marker, 1, 8);
        const writer = round % 2 === 0 ? a : b;
        const forgetter = round % 2 === 0 ? b : a;
        const remember = writer.remember(
          { sessionId: s.id, author: 'agent:x' },
          { basedOn: 1, requestId: 'big', changes: notes('big', 64, marker, 100) },
        );
        await new Promise((r) => setTimeout(r, round % 4));
        const [r, f] = await Promise.all([outcome(remember), outcome(forgetter.forget(s.id))]);
        outcomes.set(r, (outcomes.get(r) ?? 0) + 1);
        expect(['ok', 'session_closed']).toContain(r);
        expect(f).toBe('ok');
        for (const store of [a, b]) {
          expect((await store.getSession(s.id))?.state).toBe('forgotten');
          expect(await store.notes(s.id)).toEqual([]);
          expect(await store.log(s.id)).toEqual([]);
        }
        // Nothing brings it back: not a retry of the same call, not a new one, not a re-open.
        expect(
          await outcome(
            writer.remember(
              { sessionId: s.id, author: 'agent:x' },
              { basedOn: 1, requestId: 'big', changes: notes('big', 64, marker, 100) },
            ),
          ),
        ).toBe('session_closed');
        expect(
          await outcome(
            writer.remember(
              { sessionId: s.id, author: 'agent:x' },
              { basedOn: 0, requestId: 'again', changes: notes('z', 1, marker) },
            ),
          ),
        ).toBe('session_closed');
        expect(
          await outcome(
            a.openSession({
              id: s.id,
              ownerId: 'user:o',
              documentId: 'doc:d',
              runId: `run:f-${round}`,
              pinnedRevision: 0,
            }),
          ),
        ).not.toBe('ok');
        expect((await a.getSession(s.id))?.state).toBe('forgotten');
      }
      const raw = rawClient(dbPath);
      try {
        expect(await rowsMentioning(raw, [marker])).toEqual([]);
      } finally {
        raw.close();
      }
    } finally {
      a.close();
      b.close();
    }
  }, 90_000);

  it('purge during an explain: each explain answers as before or session_closed, never a partial answer', async () => {
    const dbPath = join(tmp.dir, 'explain.db');
    const clock = testClock();
    const store = await openStore(fileUrl(dbPath), { now: clock.now });
    // The purger sees the sessions expired while the store's clock still has them open.
    const purger = await openTestPurger(
      fileUrl(dbPath),
      () => new Date(clock.now().getTime() + 25 * 3600_000),
    );
    const marker = `EXP${randomBytes(6).toString('hex')}`;
    try {
      const cases: Array<{ id: string; token: string; rows: number; expected: string[] }> = [];
      for (let i = 0; i < 6; i++) {
        const s = await store.openSession({
          ownerId: 'user:o',
          documentId: 'doc:d',
          runId: `run:e-${i}`,
          pinnedRevision: 0,
        });
        await seed(store, s.id, marker, 4, 24);
        const ctx = { sessionId: s.id, author: 'agent:x' };
        const answer = await store.query(ctx, { question: 'current_notes', limit: 24 });
        const expected = await Promise.all(
          answer.rows.map((r) =>
            store.explain(ctx, { token: answer.explainToken, row: r.row }).then((e) => JSON.stringify(e)),
          ),
        );
        cases.push({ id: s.id, token: answer.explainToken, rows: answer.rows.length, expected });
      }
      const seenOutcomes = new Map<string, number>();
      const explainLoop = async () => {
        for (let k = 0; k < 15; k++) {
          for (const c of cases) {
            const row = k % c.rows;
            try {
              const e = await store.explain({ sessionId: c.id, author: 'agent:x' }, { token: c.token, row });
              // Answered: it must be the full, same answer as before the purge began.
              expect(JSON.stringify(e)).toBe(c.expected[row]);
              seenOutcomes.set('ok', (seenOutcomes.get('ok') ?? 0) + 1);
            } catch (err) {
              const r = await outcome(Promise.reject(err instanceof Error ? err : new Error(String(err))));
              expect(r).toBe('session_closed');
              seenOutcomes.set(r, (seenOutcomes.get(r) ?? 0) + 1);
            }
          }
          await new Promise((r) => setImmediate(r));
        }
      };
      const purgeLoop = async () => {
        for (let p = 0; p < 50; p++) {
          const states = await store.getSessions(cases.map((c) => c.id));
          if (cases.every((c) => states.get(c.id)?.state === 'purged')) return;
          // Four rows per table a batch: about 150 batches, so the explains run between them.
          await purger.purgeOnce({ chunkSize: 4 });
          await new Promise((r) => setImmediate(r));
        }
      };
      await Promise.all([explainLoop(), purgeLoop()]);
      // Once the session is expired by the store's own clock, explain is refused, purged or not.
      clock.advance(24 * 3600_000 + 1_000);
      for (const c of cases) {
        expect(
          await outcome(store.explain({ sessionId: c.id, author: 'agent:x' }, { token: c.token, row: 0 })),
        ).toBe('session_closed');
        await expectPurgedAndEmpty(store, dbPath, c.id, [marker]);
      }
    } finally {
      purger.close();
      store.close();
    }
  }, 90_000);

  it('chunked purge passes while other sessions are written: every session is whole or purged, never partial', async () => {
    const dbPath = join(tmp.dir, 'chunks.db');
    const clock = testClock();
    const store = await openStore(fileUrl(dbPath), { now: clock.now });
    const purger = await openTestPurger(fileUrl(dbPath), clock.now);
    const marker = `CHK${randomBytes(6).toString('hex')}`;
    try {
      // Old sessions, opened a day ago: they expire; fresh ones stay open and keep being written.
      const old: Array<{ id: string; version: number }> = [];
      for (let i = 0; i < 12; i++) {
        const s = await store.openSession({
          ownerId: 'user:o',
          documentId: 'doc:d',
          runId: `run:old-${i}`,
          pinnedRevision: 0,
        });
        old.push({ id: s.id, version: await seed(store, s.id, marker, 3, 40) });
      }
      clock.advance(24 * 3600_000 + 60_000);
      const live: Array<{ id: string; version: number }> = [];
      for (let i = 0; i < 4; i++) {
        const s = await store.openSession({
          ownerId: 'user:o',
          documentId: 'doc:d',
          runId: `run:live-${i}`,
          pinnedRevision: 0,
        });
        live.push({ id: s.id, version: await seed(store, s.id, 'LIVE', 1, 10) });
      }
      // One forgotten session among the old ones goes the same way.
      await store.forget(old[0]!.id);
      const watch = new StateWatch();
      let writes = 0;
      let done = false;
      const writer = (async () => {
        while (!done) {
          for (const l of live) {
            const r = await store.remember(
              { sessionId: l.id, author: 'agent:x' },
              {
                basedOn: l.version,
                requestId: `w-${writes}`,
                changes: [{ op: 'add', name: `todo:w${writes}`, text: 'LIVE' }],
              },
            );
            l.version = r.version;
            writes++;
          }
          // Late writes to the expired ones are refused throughout.
          const late = old[writes % old.length]!;
          expect(
            await outcome(
              store.remember(
                { sessionId: late.id, author: 'agent:x' },
                { basedOn: late.version, requestId: `late-${writes}`, changes: notes('late', 1, marker) },
              ),
            ),
          ).toBe('session_closed');
          await new Promise((r) => setImmediate(r));
        }
      })();
      for (let pass = 0; pass < 200; pass++) {
        await purger.purgeOnce({ chunkSize: 3 });
        // Between passes, through the store's own surface: whole or purged, never in between.
        for (const o of old) {
          const s = await store.getSession(o.id);
          watch.note(o.id, s?.state);
          if (s?.state === 'purged') {
            expect(await store.notes(o.id)).toEqual([]);
            expect(await store.log(o.id)).toEqual([]);
          } else {
            expect(['expired', 'forgotten']).toContain(s?.state);
            if (s?.state === 'expired') {
              expect((await store.notes(o.id)).length).toBe(120);
              expect((await store.verify(o.id)).ok).toBe(true);
            }
          }
        }
        const states = await store.getSessions(old.map((o) => o.id));
        if (old.every((o) => states.get(o.id)?.state === 'purged')) break;
      }
      done = true;
      await writer;
      expect(watch.resurrections()).toEqual([]);
      for (const o of old) await expectPurgedAndEmpty(store, dbPath, o.id, [marker]);
      // The live sessions were never touched and replay.
      for (const l of live) {
        const s = await store.getSession(l.id);
        expect(s?.state).toBe('open');
        expect(s?.version).toBe(l.version);
        expect((await store.verify(l.id)).ok).toBe(true);
      }
      expect(writes).toBeGreaterThan(0);
    } finally {
      purger.close();
      store.close();
    }
  }, 120_000);
});
