/**
 * MEMORY_DB_THREAD=worker (the default): the memory database on a thread of its own. The same
 * answers: an agent's whole tool loop, racing calls, owner actions and errors, compared with a
 * server whose memory database runs on the event loop (MEMORY_DB_THREAD=main) doing the same steps.
 */
import { holdLock } from '@oh/memory/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { sleep, startTestServer } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';

const servers: Record<'main' | 'worker', TestServer | undefined> = { main: undefined, worker: undefined };
beforeAll(async () => {
  servers.main = await startTestServer({ MEMORY_DB_THREAD: 'main' });
  servers.worker = await startTestServer({ MEMORY_DB_THREAD: 'worker' });
});
afterAll(async () => {
  await servers.main?.close();
  await servers.worker?.close();
});

/** The steps, answered without ids, times or tokens, which differ between servers by design. */
async function script(s: TestServer): Promise<unknown[]> {
  const seen: unknown[] = [];
  const ada = await s.login('user-ada');
  const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
  const agent = s.client(run.runToken);
  const load = await agent.agent.load.query();
  seen.push({ version: load.session.version, tools: load.tools.map((t) => t.name) });

  // 12 calls racing on basedOn 0: one applies, the others are told the current version.
  const racing = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      s.call(
        'mutation',
        'agent.remember',
        {
          basedOn: 0,
          requestId: `race-${i}`,
          changes: [{ op: 'add', name: `lead:race-${i}`, text: `race ${i}` }],
        },
        run.runToken,
      ),
    ),
  );
  seen.push(racing.map((r) => r.status).sort());
  seen.push(
    racing.filter((r) => r.status !== 200).map((r) => [r.error?.data.reason, r.error?.data.currentVersion]),
  );

  let version = 1;
  for (let i = 0; i < 5; i++) {
    const r = await agent.agent.remember.mutate({
      basedOn: version,
      requestId: `n-${i}`,
      changes: [
        { op: 'add', name: `finding:f${i}`, text: `finding ${i}`, data: { n: i } },
        ...(i > 0
          ? [
              {
                op: 'add' as const,
                name: `lead:l${i}`,
                text: 'depends',
                links: [{ rel: 'depends_on' as const, to: `finding:f${i - 1}` }],
              },
            ]
          : []),
      ],
    });
    version = r.version;
    seen.push({
      version: r.version,
      applied: r.applied.map((a) => [a.op, a.name, a.digest]),
      replayed: r.replayed,
    });
  }
  const replay = await agent.agent.remember.mutate({
    basedOn: 1,
    requestId: 'n-0',
    changes: [{ op: 'add', name: 'finding:f0', text: 'finding 0', data: { n: 0 } }],
  });
  seen.push({ replayed: replay.replayed, version: replay.version });
  const dup = await s.call(
    'mutation',
    'agent.remember',
    { basedOn: version, requestId: 'dup', changes: [{ op: 'add', name: 'finding:f0', text: 'again' }] },
    run.runToken,
  );
  seen.push([dup.status, dup.error?.data.reason]);
  const missing = await s.call(
    'mutation',
    'agent.remember',
    { basedOn: version, requestId: 'miss', changes: [{ op: 'remove', name: 'lead:nope' }] },
    run.runToken,
  );
  seen.push([missing.status, missing.error?.data.reason]);

  const q = await agent.agent.query.query({ question: 'related_to', name: 'finding:f2' });
  seen.push(q.rows.map((r) => [r.name, r.digest]));
  const read = await agent.agent.read.query({ name: 'finding:f2' });
  seen.push({ text: read.text, data: read.data, digest: read.digest });
  const current = await agent.agent.query.query({ question: 'current_notes' });
  seen.push(current.rows.map((r) => r.name).sort());
  const explained = await agent.agent.explain.query({ token: q.explainToken, row: 0 });
  seen.push([explained.name, explained.path, explained.reason]);

  const memory = s.client(ada).memory;
  const panel = await memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: run.sessionId! });
  seen.push(panel.workingNotes.map((n) => n.name).sort());
  await memory.forget.mutate({ sessionId: run.sessionId! });
  const late = await s.call(
    'mutation',
    'agent.remember',
    { basedOn: version, requestId: 'late', changes: [{ op: 'add', name: 'lead:late', text: 'late' }] },
    run.runToken,
  );
  seen.push([late.status, late.error?.data.reason]);
  return seen;
}

describe('MEMORY_DB_THREAD=worker', () => {
  it('answers an agent run and its owner exactly as MEMORY_DB_THREAD=main does', async () => {
    const main = await script(servers.main!);
    const worker = await script(servers.worker!);
    expect(worker).toEqual(main);
    // …and the script itself saw what it should.
    expect(main[1]).toEqual([200, ...Array(11).fill(409)]);
    expect(main.at(-1)).toEqual([412, 'session_closed']);
  });
});

/** Another process that takes the memory database's write lock and holds it until told to let go. */
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1]!;

/**
 * Issue 24's acceptance bounds while another process holds a lock for 3 s: `health` every 10 ms
 * with p99 < 100 ms, and `read` (a page's read, checking that the waiting write has not landed)
 * every 100 ms, each answered in < 500 ms.
 */
async function expectAnsweredMeanwhile(s: TestServer, read: () => Promise<void>): Promise<void> {
  const health: number[] = [];
  const reads: number[] = [];
  const until = performance.now() + 3_000;
  await Promise.all([
    (async () => {
      while (performance.now() < until) {
        const t = performance.now();
        expect((await s.call('query', 'health')).status).toBe(200);
        health.push(performance.now() - t);
        await sleep(10);
      }
    })(),
    (async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await read();
        reads.push(performance.now() - t);
        await sleep(100);
      }
    })(),
  ]);
  expect(health.length).toBeGreaterThan(20);
  expect(p99(health)).toBeLessThan(100);
  expect(Math.max(...reads)).toBeLessThan(500);
}

describe('another process holds the memory database write lock (issue 24, point 11)', () => {
  it('health stays fast, panel reads are answered, and an agent write arriving meanwhile lands after the lock', async () => {
    // Issue 24's acceptance bounds: the lock is held for 3 s; health p99 < 100 ms and every panel
    // read < 500 ms meanwhile (before the fix: health p99 3,048 ms, the event loop waiting on the lock).
    const s = await startTestServer({ MEMORY_DB_THREAD: 'worker' });
    try {
      const ada = await s.login('user-ada');
      const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
      const agent = s.client(run.runToken);
      const { session } = await agent.agent.load.query();
      const panel = () =>
        s.client(ada).memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: run.sessionId! });
      const names = async () => (await panel()).workingNotes.map((n) => n.name);

      const holder = await holdLock(s.memoryUrl);
      try {
        const write = agent.agent.remember.mutate({
          basedOn: session.version,
          requestId: 'during-the-lock',
          changes: [
            {
              op: 'add',
              name: 'finding:during-the-lock',
              text: 'written while another process held the lock',
            },
          ],
        });
        await expectAnsweredMeanwhile(s, async () =>
          expect(await names()).not.toContain('finding:during-the-lock'),
        );

        // Still held: the write has not landed. Once the lock is let go, it does.
        expect(await names()).not.toContain('finding:during-the-lock');
        await holder.release();
        expect((await write).version).toBe(session.version + 1);
        expect(await names()).toContain('finding:during-the-lock');
      } finally {
        holder.kill();
      }
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe('another process holds the application database write lock (issue 24, point 11)', () => {
  it('health stays fast, the library is listed, and a document added meanwhile lands after the lock', async () => {
    // The same bounds for sponge.db (users, tokens, runs, the library): before, its writes waited
    // in SQLite's busy handler on the event loop, and every request of the process with them.
    const s = await startTestServer({ MEMORY_DB_THREAD: 'worker' });
    try {
      const ada = await s.login('user-ada');
      const titles = async () => (await s.client(ada).documents.list.query()).map((d) => d.title);
      const holder = await holdLock(s.appUrl);
      try {
        const added = s.client(ada).documents.add.mutate({
          title: 'Added during the lock',
          text: 'Written while another process held the application database.',
        });
        await expectAnsweredMeanwhile(s, async () =>
          expect(await titles()).not.toContain('Added during the lock'),
        );

        await holder.release();
        await added;
        expect(await titles()).toContain('Added during the lock');
      } finally {
        holder.kill();
      }
    } finally {
      await s.close();
    }
  }, 60_000);
});
