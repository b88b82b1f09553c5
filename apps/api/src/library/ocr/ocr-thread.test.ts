import { readdirSync, readFileSync } from 'node:fs';
import { makePdf, makeScannedPdf, SCAN_TEXT } from '@sponge/testing/pdf-fixtures';
import { describe, expect, it } from 'vitest';
import { resolveOcrLanguages } from './languages.ts';
import { liveOcrThreads, recognisePages } from './ocr-thread.ts';
import type { PageRecognised } from './ocr-thread.ts';

const english = () => {
  const r = resolveOcrLanguages(['eng']);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.languages;
};

async function recognise(bytes: Uint8Array, pages: number[], pageTimeoutMs = 60_000) {
  const results: PageRecognised[] = [];
  await recognisePages(
    { bytes, pages, languages: english() },
    { pageTimeoutMs, onPage: async (r) => void results.push(r) },
  );
  return results;
}

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9\s]/g, '')
    .split(/\s+/)
    .filter(Boolean);

describe('OCR on its own thread', () => {
  it('reads each scanned page, in order, with the words printed on it', async () => {
    const results = await recognise(await makeScannedPdf(['page-1', 'page-2']), [1, 2]);
    expect(results.map((r) => [r.page, r.outcome])).toEqual([
      [1, 'read'],
      [2, 'read'],
    ]);
    for (const [i, name] of (['page-1', 'page-2'] as const).entries()) {
      const read = words(results[i]!.text);
      const printed = words(SCAN_TEXT[name].join(' '));
      const found = printed.filter((w) => read.includes(w));
      // Tesseract misreads a word now and then; nearly all of them are there.
      expect(found.length / printed.length).toBeGreaterThan(0.9);
      expect(results[i]!.confidence).toBeGreaterThan(80);
    }
    expect(liveOcrThreads()).toBe(0);
  });

  it('reads only the pages asked for', async () => {
    const results = await recognise(await makeScannedPdf(['page-1', 'blank', 'page-2']), [3]);
    expect(results.map((r) => r.page)).toEqual([3]);
    expect(words(results[0]!.text)).toContain('otters');
  });

  it('finds no confident text on a blank scan', async () => {
    const [blank] = await recognise(await makeScannedPdf(['blank']), [1]);
    expect(blank!.outcome).toBe('read');
    expect(blank!.confidence).toBeLessThan(50);
  });

  it('gives up on a page past its time and goes on with the next in a fresh thread', async () => {
    const bytes = await makeScannedPdf(['page-1', 'page-2']);
    const results = await recognise(bytes, [1, 2], 50);
    expect(results.map((r) => [r.page, r.outcome])).toEqual([
      [1, 'timeout'],
      [2, 'timeout'],
    ]);
    expect(liveOcrThreads()).toBe(0);
  });

  // The CPU budget (ocr-worker.ts): the OCR threads at nice 19, the API's own threads as they were.
  it.runIf(process.platform === 'linux')(
    "runs OCR at the lowest priority, and leaves the thread pool at the API's",
    async () => {
      /** Each thread of this process: its name and nice value (/proc/<pid>/task/<tid>/stat). */
      const threads = () =>
        readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return { name, nice: Number(fields[16]) };
        });
      let seen: Array<{ name: string; nice: number }> = [];
      await recognisePages(
        { bytes: await makeScannedPdf(['page-1']), pages: [1], languages: english() },
        {
          pageTimeoutMs: 60_000,
          onPage: async () => {
            seen = threads();
          },
        },
      );
      // The OCR thread and the tesseract.js thread it started.
      expect(seen.filter((t) => t.name === 'WorkerThread' && t.nice === 19).length).toBeGreaterThanOrEqual(2);
      // (The thread pool already runs here, started by vitest; a fresh API process is where
      // ocr-thread.ts's first use of it matters, checked by hand with ps -L: NI 0.)
      expect(seen.filter((t) => t.name === 'libuv-worker').map((t) => t.nice)).not.toContain(19);
      expect(
        seen.find((t) => t.name !== 'WorkerThread' && t.nice !== 0 && t.name !== 'tokio-rt-worker'),
      ).toBeUndefined();
    },
  );

  it('stops when asked, rejecting with the reason', async () => {
    const abort = new AbortController();
    const done = recognisePages(
      { bytes: await makePdf(['x']), pages: [1], languages: english() },
      { pageTimeoutMs: 60_000, onPage: async () => undefined, signal: abort.signal },
    );
    abort.abort(new Error('stopping'));
    await expect(done).rejects.toThrow('stopping');
    expect(liveOcrThreads()).toBe(0);
  });
});
