/**
 * The extraction queue's rules, step by step with jobs the test ends by hand and a clock it moves
 * itself (fair-uploads.test.ts shows the same over HTTP with real PDFs and threads).
 */
import { describe, expect, it } from 'vitest';
import { createExtractionQueue } from './upload-queue.ts';
import type { ExtractionQueueOptions, QueueTimers } from './upload-queue.ts';

/** A clock that moves only when told; timers fire when it passes them. */
function manualClock(): QueueTimers & { advance(ms: number): void } {
  let now = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  return {
    now: () => now,
    setTimeout(run, ms) {
      const t = { at: now + ms, run };
      timers.add(t);
      return t;
    },
    clearTimeout(handle) {
      timers.delete(handle as { at: number; run: () => void });
    },
    advance(ms) {
      now += ms;
      for (const t of [...timers].sort((a, b) => a.at - b.at))
        if (t.at <= now) {
          timers.delete(t);
          t.run();
        }
    },
  };
}

/** Jobs that run until the test ends them, and the order they started in. */
function jobs() {
  const started: string[] = [];
  const enders = new Map<string, () => void>();
  const signals = new Map<string, AbortSignal>();
  return {
    started,
    signals,
    job: (name: string) => (signal: AbortSignal) => {
      started.push(name);
      signals.set(name, signal);
      return new Promise<string>((resolve) => enders.set(name, () => resolve(name)));
    },
    async end(name: string) {
      enders.get(name)!();
      // Let the queue's release run and start the next job.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

/**
 * A queue of one slot, eight waiting, a minute's wait and 30 s jobs unless a test says otherwise,
 * on a clock the test moves.
 */
function queueWith(options: Partial<ExtractionQueueOptions> = {}) {
  const clock = manualClock();
  const q = createExtractionQueue({
    slots: 1,
    maxWaiting: 8,
    maxWaitMs: 60_000,
    jobTimeoutMs: 30_000,
    timers: clock,
    ...options,
  });
  return { q, clock };
}

const busyWith = (seconds: number, message: RegExp) =>
  expect.objectContaining({
    name: 'LibraryError',
    reason: 'busy',
    retryAfterSeconds: seconds,
    message: expect.stringMatching(message),
  });

describe('the extraction queue', () => {
  it("runs another owner's job before an owner's second one: nobody waits behind more than one job of another", async () => {
    const { q } = queueWith();
    const j = jobs();
    const a1 = q.run('a', j.job('a1'));
    const a2 = q.run('a', j.job('a2'));
    const b1 = q.run('b', j.job('b1'));
    expect(j.started).toEqual(['a1']);
    expect(q.stats()).toEqual({ running: 1, waiting: 2 });
    await j.end('a1');
    // B queued while A's first file ran; A's second became runnable only when it ended.
    expect(j.started).toEqual(['a1', 'b1']);
    await j.end('b1');
    await j.end('a2');
    expect(j.started).toEqual(['a1', 'b1', 'a2']);
    expect(await Promise.all([a1, a2, b1])).toEqual(['a1', 'a2', 'b1']);
    expect(q.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('an owner with a job waiting queues ahead of an owner who arrives later', async () => {
    const { q } = queueWith();
    const j = jobs();
    void q.run('a', j.job('a1'));
    void q.run('a', j.job('a2'));
    void q.run('b', j.job('b1'));
    await j.end('a1');
    void q.run('c', j.job('c1'));
    await j.end('b1');
    // A's second file has been runnable since A's first ended, before C arrived.
    expect(j.started).toEqual(['a1', 'b1', 'a2']);
  });

  it('runs one job per owner at a time, even with slots free', async () => {
    const { q } = queueWith({ slots: 2 });
    const j = jobs();
    void q.run('a', j.job('a1'));
    void q.run('a', j.job('a2'));
    expect(j.started).toEqual(['a1']);
    void q.run('b', j.job('b1'));
    expect(j.started).toEqual(['a1', 'b1']);
    await j.end('a1');
    expect(j.started).toEqual(['a1', 'b1', 'a2']);
  });

  it("refuses an owner's third job at once, with the time until their running job's limit", async () => {
    const { q, clock } = queueWith({ slots: 2 });
    const j = jobs();
    void q.run('a', j.job('a1'));
    clock.advance(12_500);
    void q.run('a', j.job('a2'));
    await expect(q.run('a', j.job('a3'))).rejects.toEqual(busyWith(18, /already have a file being read/));
    expect(j.started).toEqual(['a1']);
  });

  it('refuses a job when the queue is full', async () => {
    const { q, clock } = queueWith({ maxWaiting: 2 });
    const j = jobs();
    void q.run('a', j.job('a1'));
    void q.run('b', j.job('b1'));
    void q.run('c', j.job('c1'));
    clock.advance(29_000);
    await expect(q.run('d', j.job('d1'))).rejects.toEqual(busyWith(1, /queue .* is full/));
    expect(q.stats()).toEqual({ running: 1, waiting: 2 });
  });

  it('refuses a job that waited past the deadline; it never runs', async () => {
    const { q, clock } = queueWith({ maxWaitMs: 5_000 });
    const j = jobs();
    void q.run('a', j.job('a1'));
    const b1 = q.run('b', j.job('b1'));
    clock.advance(4_999);
    expect(q.stats()).toEqual({ running: 1, waiting: 1 });
    clock.advance(1);
    await expect(b1).rejects.toEqual(busyWith(25, /waited more than 5 s/));
    expect(q.stats()).toEqual({ running: 1, waiting: 0 });
    await j.end('a1');
    expect(j.started).toEqual(['a1']);
  });

  it('on close, refuses the waiting jobs, aborts the running ones and waits for them to end', async () => {
    const { q } = queueWith();
    const j = jobs();
    const a1 = q.run('a', j.job('a1'));
    const b1 = q.run('b', j.job('b1'));
    let closed = false;
    const closing = q.close().then(() => (closed = true));
    await expect(b1).rejects.toEqual(busyWith(30, /stopping/));
    expect(j.signals.get('a1')!.aborted).toBe(true);
    await Promise.resolve();
    expect(closed).toBe(false);
    await j.end('a1');
    await closing;
    expect(await a1).toBe('a1');
    await expect(q.run('c', j.job('c1'))).rejects.toEqual(busyWith(1, /stopping/));
  });
});
