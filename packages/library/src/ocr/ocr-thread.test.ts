/**
 * The OCR thread on real threads: what it reads, its time cap per page, its priority, and that
 * it stops when asked.
 *
 * Independent of the machine's load and of each other (issue 37, point 12): no deadline here runs
 * on the wall clock (each test brings a clock of its own), the tests that wait for OCR's words run
 * it at the API's priority (at the lowest one, a busy machine leaves OCR almost no CPU), the
 * priority is looked at as the threads start, not after a page, and every test's threads are
 * stopped and joined after it, whatever became of the test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { makePdf, SCAN_TEXT } from '@sponge/testing/pdf-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOcrLanguages } from './languages.ts';
import { liveOcrThreads, recognisePages } from './ocr-thread.ts';
import type { OcrTimers, PageRecognised, RecogniseOptions } from './ocr-thread.ts';
import { makePageBoxPdf, makeSmallScanPdf } from '../testing/page-box-pdf.ts';

const english = () => {
  const r = resolveOcrLanguages(['eng']);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.languages;
};

/** A clock that never moves: no deadline comes due, so only OCR's answers end a run. */
const stoppedClock: OcrTimers = { setTimeout: () => undefined, clearTimeout: () => undefined };

/** A clock on which a page's time is up as soon as the page starts; nothing else comes due. */
function pageTimeUp(pageTimeoutMs: number): OcrTimers {
  return {
    setTimeout(run, ms) {
      const timer = { cleared: false };
      // After the message that armed it, before the thread's next message is heard.
      if (ms === pageTimeoutMs) queueMicrotask(() => void (timer.cleared || run()));
      return timer;
    },
    clearTimeout(timer) {
      (timer as { cleared: boolean }).cleared = true;
    },
  };
}

interface Run {
  results: PageRecognised[];
  /** Threads started for the run (each says so once its Tesseract thread exists). */
  threads: number;
  abort: AbortController;
  /** Settles once the run's last thread has exited. */
  done: Promise<void>;
}

const runs = new Set<Run>();

/** Starts OCR of `pages` at the API's priority, on a stopped clock, unless `options` say otherwise. */
function start(bytes: Uint8Array, pages: number[], options: Partial<RecogniseOptions> = {}): Run {
  const run: Run = { results: [], threads: 0, abort: new AbortController(), done: Promise.resolve() };
  run.done = recognisePages(
    { bytes, pages, languages: english() },
    {
      pageTimeoutMs: 60_000,
      lowestPriority: false,
      timers: stoppedClock,
      signal: run.abort.signal,
      onPage: async (r) => void run.results.push(r),
      ...options,
      onSpawned: () => {
        run.threads++;
        options.onSpawned?.();
      },
    },
  );
  runs.add(run);
  run.done.then(
    () => runs.delete(run),
    () => runs.delete(run),
  );
  return run;
}

async function recognise(bytes: Uint8Array, pages: number[]) {
  const run = start(bytes, pages);
  await run.done;
  return run.results;
}

/** Each thread of this process: its name and nice value (/proc/<pid>/task/<tid>/stat). */
function threads(): Array<{ name: string; nice: number }> {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      return []; // the thread ended while we listed them
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [{ name, nice: Number(fields[16]) }];
  });
}

afterEach(async () => {
  // A test that failed or timed out may have left its run going: stop it and wait for its
  // threads to exit, so that the next test starts with none.
  for (const run of runs) run.abort.abort(new Error('the test is over'));
  await Promise.allSettled([...runs].map((r) => r.done));
  expect(liveOcrThreads()).toBe(0);
});

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9\s]/g, '')
    .split(/\s+/)
    .filter(Boolean);

describe('OCR on its own thread', () => {
  it('reads the pages asked for, in the order asked, with the words printed on them', async () => {
    // OCR's CPU is what makes these tests slow on a busy machine, so they read no more than they
    // need to: the printed lines of the scans, one thread over two pages, the blank left alone.
    const results = await recognise(makeSmallScanPdf(['page-1', 'blank', 'page-2']), [3, 1]);
    expect(results.map((r) => [r.page, r.outcome])).toEqual([
      [3, 'read'],
      [1, 'read'],
    ]);
    for (const [i, name] of (['page-2', 'page-1'] as const).entries()) {
      const read = words(results[i]!.text);
      const printed = words(SCAN_TEXT[name].join(' '));
      const found = printed.filter((w) => read.includes(w));
      // Tesseract misreads a word now and then; nearly all of them are there.
      expect(found.length / printed.length).toBeGreaterThan(0.9);
      expect(results[i]!.confidence).toBeGreaterThan(80);
    }
    expect(liveOcrThreads()).toBe(0);
  });

  it('finds no confident text on a blank scan', async () => {
    const [blank] = await recognise(makeSmallScanPdf(['blank']), [1]);
    expect(blank!.outcome).toBe('read');
    expect(blank!.confidence).toBeLessThan(50);
  });

  it('gives up on a page past its time and goes on with the next in a fresh thread', async () => {
    const bytes = makePageBoxPdf([{ mediaBox: [0, 0, 612, 792] }, { mediaBox: [0, 0, 612, 792] }]);
    const run = start(bytes, [1, 2], { pageTimeoutMs: 50, timers: pageTimeUp(50) });
    await run.done;
    expect(run.results.map((r) => [r.page, r.outcome])).toEqual([
      [1, 'timeout'],
      [2, 'timeout'],
    ]);
    expect(run.threads).toBe(2);
    expect(liveOcrThreads()).toBe(0);
  });

  // The CPU budget (ocr-worker.ts): the OCR threads at nice 19, the API's own threads as they were.
  // Looked at as the threads start: reading a page at nice 19 waits for any other work the machine
  // has, and is not what is tested here.
  it.runIf(process.platform === 'linux')(
    "runs OCR at the lowest priority, and leaves the thread pool at the API's",
    async () => {
      let seen: Array<{ name: string; nice: number }> = [];
      const run: Run = start(await makePdf(['x']), [1], {
        lowestPriority: undefined, // the API's default
        onSpawned: () => {
          seen = threads();
          run.abort.abort(new Error('seen'));
        },
      });
      await expect(run.done).rejects.toThrow('seen');
      // The OCR thread and the tesseract.js thread it started.
      expect(seen.filter((t) => t.name === 'WorkerThread' && t.nice === 19)).toHaveLength(2);
      // (The thread pool already runs here, started by vitest; a fresh API process is where
      // ocr-thread.ts's first use of it matters, checked by hand with ps -L: NI 0.)
      expect(seen.filter((t) => t.name === 'libuv-worker').map((t) => t.nice)).not.toContain(19);
      expect(
        seen.find((t) => t.name !== 'WorkerThread' && t.nice !== 0 && t.name !== 'tokio-rt-worker'),
      ).toBeUndefined();
      // Joined: both threads have exited.
      expect(threads().filter((t) => t.nice === 19)).toEqual([]);
    },
  );

  it('stops when asked, rejecting with the reason once its threads have exited', async () => {
    const run: Run = start(await makePdf(['x']), [1], {
      onSpawned: () => run.abort.abort(new Error('stopping')),
    });
    await expect(run.done).rejects.toThrow('stopping');
    expect(run.threads).toBe(1);
    expect(liveOcrThreads()).toBe(0);
  });

  it('starts no thread when asked to stop before it began', async () => {
    const run = start(await makePdf(['x']), [1]);
    run.abort.abort(new Error('stopping'));
    await expect(run.done).rejects.toThrow('stopping');
    expect(run.threads).toBe(0);
    expect(liveOcrThreads()).toBe(0);
  });
});
