/**
 * `runtime.pending` as a long poll (SPEC §7c): the hosted runtime learns of a question as it is
 * asked instead of asking every second. It answers at once when a run it does not pass over is
 * pending, woken by the commit in this process; a question asked through another API process on
 * the same data is found by the re-read; with nothing to do it answers after the wait.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { liveNotifier } from './runs/notifier.ts';
import { startTestServer, TEST_RUNTIME_KEY } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';

describe('runtime.pending, waiting for work', () => {
  let s: TestServer;
  let other: TestServer;
  let ada: string;
  beforeAll(async () => {
    s = await startTestServer();
    other = await startTestServer({}, { sameDataAs: s });
    ada = await s.login('user-ada');
  });
  afterAll(async () => {
    await other?.close();
    await s?.close();
  });

  const runtime = () => s.client(TEST_RUNTIME_KEY).runtime;
  /** Answers every run pending now, so each test starts from none. */
  async function drain(): Promise<void> {
    for (const p of await runtime().pending.query()) {
      const { runToken } = await runtime().claim.mutate({ runId: p.runId });
      await s.client(runToken).agent.say.mutate({ text: 'answered' });
      await runtime().release.mutate({ runId: p.runId, runToken });
    }
  }
  const timed = async <T>(p: Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const value = await p;
    return [value, performance.now() - started];
  };
  const waiting = () => liveNotifier(s.app.app).waiting();
  async function untilWaiting(n: number): Promise<void> {
    for (let i = 0; i < 400 && waiting() < n; i++) await new Promise((r) => setTimeout(r, 5));
  }

  it('with nothing pending, answers [] after the wait', async () => {
    await drain();
    const [pending, ms] = await timed(runtime().pending.query({ waitSeconds: 0.3 }));
    expect(pending).toEqual([]);
    expect(ms).toBeGreaterThanOrEqual(250);
  });

  it('answers as soon as a question is asked, long before its wait or its re-read', async () => {
    await drain();
    const poll = timed(runtime().pending.query({ waitSeconds: 20 }));
    await untilWaiting(1);
    const asked = performance.now();
    const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Why?' });
    const [pending] = await poll;
    expect(pending.map((p) => p.runId)).toEqual([runId]);
    expect(performance.now() - asked).toBeLessThan(1_000);
  });

  it('passes over the runs in `ignore`, and answers for a staged run accepted meanwhile', async () => {
    await drain();
    const { runId: backingOff } = await s
      .client(ada)
      .chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'A run the runtime backs off from' });
    const [listed, ms] = await timed(runtime().pending.query({ waitSeconds: 0.3, ignore: [backingOff] }));
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(listed.map((p) => p.runId)).toEqual([backingOff]);

    const poll = timed(runtime().pending.query({ waitSeconds: 20, ignore: [backingOff] }));
    await untilWaiting(1);
    const staged = await s.client(ada).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode: 'staged' });
    const [pending, waited] = await poll;
    expect(pending.map((p) => p.runId).sort()).toEqual([backingOff, staged.runId].sort());
    expect(waited).toBeLessThan(1_500);
  });

  it('answers when a released lease leaves a question asked during the turn', async () => {
    await drain();
    const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'First' });
    const { runToken } = await runtime().claim.mutate({ runId });
    await s.client(runToken).agent.say.mutate({ text: 'answered' });
    // Asked while the lease holds: not pending yet.
    await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, runId, text: 'Second' });
    const poll = timed(runtime().pending.query({ waitSeconds: 20 }));
    await untilWaiting(1);
    const released = performance.now();
    await runtime().release.mutate({ runId, runToken });
    const [pending] = await poll;
    expect(pending.map((p) => p.runId)).toEqual([runId]);
    expect(performance.now() - released).toBeLessThan(1_000);
  });

  it('finds a question asked through another API process by reading again', async () => {
    await drain();
    const poll = timed(runtime().pending.query({ waitSeconds: 20 }));
    await untilWaiting(1);
    const otherAda = await other.login('user-ada');
    const { runId } = await other
      .client(otherAda)
      .chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'From the other process' });
    const [pending, ms] = await poll;
    expect(pending.map((p) => p.runId)).toEqual([runId]);
    expect(ms).toBeLessThan(5_000);
  });

  it('takes at most 25 s of wait and 100 ids to pass over, and leaves no waiter behind', async () => {
    await drain();
    const tooLong = await s.call('query', 'runtime.pending', { waitSeconds: 26 }, TEST_RUNTIME_KEY);
    expect(tooLong.error?.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'invalid_input' });
    const ids = Array.from({ length: 101 }, (_, i) => `run-${i}`);
    const tooMany = await s.call('query', 'runtime.pending', { ignore: ids }, TEST_RUNTIME_KEY);
    expect(tooMany.error?.data).toMatchObject({ code: 'BAD_REQUEST', reason: 'invalid_input' });

    // A runtime that goes away mid-wait: its waiter goes with it.
    const ac = new AbortController();
    const gone = runtime()
      .pending.query({ waitSeconds: 20 }, { signal: ac.signal })
      .catch(() => 'aborted');
    await untilWaiting(1);
    expect(waiting()).toBe(1);
    ac.abort();
    expect(await gone).toBe('aborted');
    for (let i = 0; i < 200 && waiting() > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(waiting()).toBe(0);
  });
});
