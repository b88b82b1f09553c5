/**
 * MEMORY_DB_THREAD=worker (the default): the memory database on a thread of its own. The same
 * answers: an agent's whole tool loop, racing calls, owner actions and errors, compared with a
 * server whose memory database runs on the event loop (MEMORY_DB_THREAD=main) doing the same steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { startTestServer } from './testing/harness.ts';
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
