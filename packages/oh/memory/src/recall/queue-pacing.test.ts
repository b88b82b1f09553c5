/**
 * The pause background batches leave between them (`busyShare`), on a fake clock: the rule is
 * checked to the millisecond without depending on how fast this machine is. What the pauses cost
 * and give on a real clock is the bench's `pacing` figure (bench/src/figures/pacing.ts).
 */
import { setTimeout as realSleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIndexQueue } from './queue.ts';
import type { RecallNote } from './render.ts';

const note = (name: string): RecallNote => ({
  kind: 'lead',
  name,
  text: name,
  data: null,
  links: [],
  digest: name,
});

afterEach(() => {
  vi.useRealTimers();
});

/**
 * Fake `setTimeout` and `performance.now()`, the queue's timer and clock. The fake `performance`
 * has no event-loop utilisation, which the queue reads to tell a busy pause from an idle one: the
 * real one is put back, so "busy" and "idle" below are the event loop's real state.
 */
function fakeClock(): void {
  const utilisation = performance.eventLoopUtilization.bind(performance);
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  performance.eventLoopUtilization = utilisation;
}

describe('background batch pacing (busyShare)', () => {
  it('pauses three times a batch at a quarter share while the process is busy, once while it idles, and drain does not pause', async () => {
    fakeClock();
    const batches: Array<{ start: number; end?: number; sessions: string[] }> = [];
    const queue = createIndexQueue({
      busyShare: 0.25,
      flushDelayMs: 5,
      index: async (batch) => {
        const entry: { start: number; end?: number; sessions: string[] } = {
          start: performance.now(),
          sessions: [...batch.keys()],
        };
        batches.push(entry);
        await new Promise((resolve) => setTimeout(resolve, 40)); // every batch takes 40 ms
        entry.end = performance.now();
      },
    });
    const t0 = performance.now();

    // Busy: the event loop is held (real time) before the first batch.
    const until = Date.now() + 100;
    while (Date.now() < until);
    queue.add('s1', [note('lead:a')]);
    await vi.advanceTimersByTimeAsync(5 + 40);
    expect(batches).toEqual([{ start: t0 + 5, end: t0 + 45, sessions: ['s1'] }]);

    // Idle: the event loop waits (real time) before the second batch. The pause after the first
    // batch follows the busy time before it: 40 × (1 − 0.25) / 0.25 = 120 ms.
    await realSleep(100);
    queue.add('s2', [note('lead:b')]);
    await vi.advanceTimersByTimeAsync(119);
    expect(batches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches.map((b) => b.start)).toEqual([t0 + 5, t0 + 165]);
    await vi.advanceTimersByTimeAsync(40);

    // The pause before the second batch was idle: the next pause is at half the time, 40 ms.
    queue.add('s3', [note('lead:c')]);
    await vi.advanceTimersByTimeAsync(39);
    expect(batches).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches[2]).toMatchObject({ start: t0 + 245, sessions: ['s3'] });
    await vi.advanceTimersByTimeAsync(40);

    // Drain runs what is queued at once, pause or not.
    queue.add('s4', [note('lead:d')]);
    const drained = queue.drain();
    expect(batches[3]).toMatchObject({ start: t0 + 285, sessions: ['s4'] });
    await vi.advanceTimersByTimeAsync(40);
    expect(await drained).toBe(0);
    queue.close();
  });

  it('with busyShare 1 a batch starts as soon as the one before ends, however busy the process', async () => {
    fakeClock();
    const starts: number[] = [];
    const queue = createIndexQueue({
      busyShare: 1,
      flushDelayMs: 5,
      index: async () => {
        starts.push(performance.now());
        await new Promise((resolve) => setTimeout(resolve, 40));
      },
    });
    const t0 = performance.now();
    const until = Date.now() + 100;
    while (Date.now() < until);
    queue.add('s1', [note('lead:a')]);
    await vi.advanceTimersByTimeAsync(45);
    queue.add('s2', [note('lead:b')]);
    await vi.advanceTimersByTimeAsync(5);
    expect(starts).toEqual([t0 + 5, t0 + 50]);
    await vi.advanceTimersByTimeAsync(40);
    queue.close();
  });
});

describe('a full queue under load (issue 42)', () => {
  it('says once that a session was left for catch-up, not on every add while it stays marked', async () => {
    const reported: string[] = [];
    const queue = createIndexQueue({
      maxPending: 3,
      // Never runs during the test: the queue stays full.
      flushDelayMs: 60_000,
      index: async () => {},
      onBackgroundError: (error, info) => reported.push(`${info.sessionId}: ${(error as Error).message}`),
    });
    queue.add('s1', [note('lead:a'), note('lead:b'), note('lead:c'), note('lead:d')]);
    for (let i = 0; i < 50; i++) queue.add('s1', [note(`lead:more-${i}`)]);
    queue.add('s2', [note('lead:x')]);
    queue.add('s2', [note('lead:y')]);
    expect(reported).toEqual([
      's1: recall: background queue full, 1 notes left for catch-up',
      's2: recall: background queue full, 1 notes left for catch-up',
    ]);
    expect(queue.needsCatchUp('s1') && queue.needsCatchUp('s2')).toBe(true);
    // Caught up, then left again: said again.
    queue.caughtUp('s1');
    queue.add('s1', [note('lead:again')]);
    expect(reported).toHaveLength(3);
    queue.close();
  });
});
