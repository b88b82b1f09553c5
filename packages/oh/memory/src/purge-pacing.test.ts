import { describe, expect, it } from 'vitest';
import { busyRetryGapMs, groupSizer, lockPacer, sleepUntil } from './purge-pacing.ts';

// sqliteDefaultBusyCallback's sleeps between tries (sqlite3.c), then 100 ms for ever.
const SLEEPS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50];
const TRIES_AT: number[] = [];
for (let t = 0, k = 0; t < 2_000; k++) TRIES_AT.push((t += SLEEPS[k] ?? 100));

/** When a writer that first found the lock taken at `queuedAt` tries again, at or after `from`. */
const nextTry = (queuedAt: number, from: number) => queuedAt + TRIES_AT.find((at) => queuedAt + at >= from)!;

describe('purge pacing', () => {
  it("a pause lasts until the next try of a writer queued in SQLite's busy handler, however long the write held the lock", () => {
    // A writer that found the lock taken at `queued` ms into a write held for `held` ms must try
    // again within the pause that follows: after the release, before the purge's next write.
    const missed: string[] = [];
    for (let held = 0.5; held <= 400; held += 0.5) {
      for (let queued = 0; queued < held; queued += 0.5) {
        if (nextTry(queued, held) - held > busyRetryGapMs(held))
          missed.push(`held ${held}, queued at ${queued}`);
      }
    }
    expect(missed).toEqual([]);
    // And no longer than that: the pause is the gap the release falls in, not the hold.
    expect([0.5, 2, 5, 12, 25, 40, 60, 120, 200, 300].map(busyRetryGapMs)).toEqual([
      1, 2, 5, 10, 15, 20, 25, 25, 50, 100,
    ]);
  });

  it('after a pause someone used, the next covers a writer queued behind the next write alone', () => {
    const pacer = lockPacer(2);
    expect(pacer.resumeAt(0, 15)).toBe(15 + 10 + 2);
    pacer.served();
    expect(pacer.resumeAt(30, 35)).toBe(35 + 5 + 2);
    pacer.served();
    expect(pacer.resumeAt(45, 85)).toBe(85 + 20 + 2);
  });

  it('after a pause nobody used, the next covers a writer that missed it (its sleep ran late), up to 100 ms of waiting', () => {
    const pacer = lockPacer(2);
    // Writes of 15 ms, each 4 ms after the previous pause; nobody commits in between.
    const writes: Array<[number, number]> = [];
    let at = 0;
    for (let k = 0; k < 6; k++) {
      const resume = pacer.resumeAt(at, at + 15);
      writes.push([at, resume]);
      at = resume + 4;
    }
    // Sized from the first write's start: 15, 46, 87, then capped at 100 ms of waiting (25 ms).
    expect(writes.map(([start, resume]) => resume - (start + 15))).toEqual([12, 22, 27, 27, 27, 27]);
    // A writer queued during the first write whose sleep before some try runs late by up to 40 ms
    // (a busy CPU) may miss a pause; once its tries are on time again, it gets in at the next.
    const slow: string[] = [];
    for (let queued = 0; queued < 15; queued += 0.5) {
      for (let late = 0; late <= 40; late += 2) {
        for (let stalled = 0; stalled < 6; stalled++) {
          const tries = TRIES_AT.map((t, k) => queued + t + (k >= stalled ? late : 0));
          const inPause = (t: number) => writes.some(([start, resume]) => t >= start + 15 && t < resume);
          const entry = tries.find(inPause);
          const back = tries[stalled]!; // its first try after the late sleep
          const nextPauseEnd = writes.map(([, resume]) => resume).find((end) => end > back)!;
          if (entry === undefined || entry >= nextPauseEnd) slow.push(`queued ${queued}, ${late} ms late`);
        }
      }
    }
    expect(slow).toEqual([]);
    // Someone commits again: back to short pauses.
    pacer.served();
    expect(pacer.resumeAt(500, 515)).toBe(515 + 10 + 2);
  });

  it('sizes delete groups by the median recent cost per session, so one stall does not shrink them', () => {
    const sizes = (observed: Array<[number, number]>, max = 200) => {
      const g = groupSizer(15, max);
      return [g.size(), ...observed.map(([n, held]) => (g.observe(n, held), g.size()))];
    };
    // 0.5 ms a session: 30 sessions fill 15 ms, reached by doubling from 16.
    expect(
      sizes([
        [16, 8],
        [30, 15],
        [30, 15],
      ]),
    ).toEqual([16, 30, 30, 30]);
    expect(
      sizes([
        [16, 1],
        [32, 2],
        [64, 4],
      ]),
    ).toEqual([16, 32, 64, 128]);
    // One stall (300 ms) among normal batches changes nothing; costs that stay high do, once
    // they are most of the window of the last 8.
    expect(
      sizes([
        [16, 8],
        [30, 15],
        [30, 300],
        [30, 15],
      ]),
    ).toEqual([16, 30, 30, 30, 30]);
    const slower = Array.from({ length: 8 }, () => [30, 30] as [number, number]);
    expect(sizes([[16, 8], [30, 15], ...slower])).toEqual([16, 30, 30, 30, 30, 15, 15, 15, 15, 15, 15]);
    // Within 8 (a sync alone can exceed the target) and the maximum.
    expect(sizes([[16, 400]])).toEqual([16, 8]);
    expect(sizes([[2, 0.1]], 2)).toEqual([2, 2]);
  });

  it('sleeps until the given time, not earlier', async () => {
    for (const ms of [0.3, 1.5, 4.2, 7.7]) {
      const at = performance.now() + ms;
      await sleepUntil(at);
      expect(performance.now()).toBeGreaterThanOrEqual(at);
    }
  });
});
