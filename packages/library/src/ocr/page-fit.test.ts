/**
 * What a page's declared size may cost OCR (issue 37, point 3): a page is drawn at scale 2 up to a
 * fixed number of pixels, smaller beyond it; a size no PDF page may have is not drawn; and a page
 * that takes more memory than the thread may have ends that thread, not the process.
 *
 * The threads here run at the API's priority (lowestPriority: false): these tests wait for OCR's
 * answers, which at the lowest priority would wait for whatever else keeps the machine busy.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveOcrLanguages } from './languages.ts';
import { liveOcrThreads, OCR_EXTERNAL_MEMORY_MB, recognisePages } from './ocr-thread.ts';
import type { PageRecognised, RecogniseOptions } from './ocr-thread.ts';
import { fitPage, MAX_PAGE_SIDE_PT, OCR_PAGE_PIXELS, OCR_SCALE } from './page-fit.ts';
import { makePageBoxPdf } from '../testing/page-box-pdf.ts';

const english = () => {
  const r = resolveOcrLanguages(['eng']);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.languages;
};

/** Each page's answer, and how many threads read them. */
async function recognise(bytes: Uint8Array, pages: number[], options: Partial<RecogniseOptions> = {}) {
  const results: PageRecognised[] = [];
  let threads = 0;
  await recognisePages(
    { bytes, pages, languages: english() },
    {
      pageTimeoutMs: 60_000,
      lowestPriority: false,
      onSpawned: () => threads++,
      onPage: async (r) => void results.push(r),
      ...options,
    },
  );
  return { results, threads };
}

/**
 * The process's peak resident memory from now on, above what it is now, in MiB: Linux's high-water
 * mark (VmHWM), reset to the present by writing 5 to clear_refs. It counts every thread, the OCR
 * thread and Tesseract's included, and misses no peak between samples.
 */
function watchPeakMemory(): () => number {
  const status = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
  writeFileSync('/proc/self/clear_refs', '5');
  const before = status('VmRSS');
  return () => (status('VmHWM') - before) / 2 ** 20;
}

const letter = [0, 0, 612, 792];

describe('the size OCR draws a page at', () => {
  it('draws the usual paper sizes at scale 2, a larger page within the pixel budget', () => {
    // A4, US Letter, US Legal (points).
    for (const [w, h] of [
      [595.28, 841.89],
      [612, 792],
      [612, 1008],
    ] as const)
      expect(fitPage(w, h)).toMatchObject({ ok: true, scale: OCR_SCALE });
    const big = fitPage(8000, 8000);
    if (!big.ok) throw new Error('an 8,000 pt page may be drawn');
    expect(big.scale).toBeLessThan(OCR_SCALE);
    expect(big.width * big.height).toBeLessThanOrEqual(OCR_PAGE_PIXELS);
    expect(big.width * big.height).toBeGreaterThan(OCR_PAGE_PIXELS * 0.99);
    // A long strip at its largest: scale 2, 28,800 × 6 pixels.
    expect(fitPage(MAX_PAGE_SIDE_PT, 3)).toMatchObject({ ok: true, scale: 2, width: 28_800, height: 6 });
  });

  it('refuses the sizes no PDF page may have: over 200 inches, under 3 points, not a number', () => {
    for (const [w, h] of [
      [14_401, 100],
      [100, 1e300],
      [2.9, 100],
      [0, 0],
      [Number.NaN, 100],
      [Number.POSITIVE_INFINITY, 100],
    ])
      expect(fitPage(w!, h!).ok).toBe(false);
  });
});

describe('OCR of pages a file declares too large', () => {
  it.runIf(process.platform === 'linux')(
    'reads a blank 8,000 pt square page at the pixel budget: seconds of CPU, under 200 MB more memory',
    async () => {
      // The file of the review: one blank 111-inch page, a few hundred bytes.
      const bytes = makePageBoxPdf([{ mediaBox: [0, 0, 8000, 8000] }]);
      expect(bytes.byteLength).toBeLessThan(400);
      const peak = watchPeakMemory();
      const cpu = process.cpuUsage();
      const { results } = await recognise(bytes, [1]);
      const used = process.cpuUsage(cpu);
      expect(results).toMatchObject([{ page: 1, outcome: 'read' }]);
      expect(results[0]!.text.trim()).toBe('');
      // CPU time, every thread of the process: what the page cost, however busy the machine.
      // Measured: 1 s, the thread's start included; drawn at 16,000 × 16,000 pixels, 16 s.
      expect((used.user + used.system) / 1e6).toBeLessThan(10);
      // Measured: 160–172 MiB, of which ~120 MiB is any OCR thread's start (Tesseract's
      // WebAssembly and traineddata, pdf.js), a blank US Letter page 146; before, 2,296 MiB.
      expect(peak()).toBeLessThan(200);
      expect(liveOcrThreads()).toBe(0);
    },
  );

  it('does not draw a page of a size no PDF page may have, and goes on in the same thread', async () => {
    const bytes = makePageBoxPdf([
      { mediaBox: [0, 0, 20_000, 20_000] },
      // 14,400 units is the largest side, but at 10 points a unit this page is 2,000 inches.
      { mediaBox: [0, 0, 14_400, 14_400], userUnit: 10 },
      { mediaBox: [0, 0, 1, 1] },
      // pdf.js draws an empty box as US Letter, as readers do: an ordinary page's cost.
      { mediaBox: [0, 0, 0, 0] },
      { mediaBox: letter },
    ]);
    const { results, threads } = await recognise(bytes, [1, 2, 3, 4, 5]);
    expect(results.map((r) => [r.page, r.outcome])).toEqual([
      [1, 'page_size'],
      [2, 'page_size'],
      [3, 'page_size'],
      [4, 'read'],
      [5, 'read'],
    ]);
    expect(threads).toBe(1);
    expect(liveOcrThreads()).toBe(0);
  });

  it('ends the thread, not the process, when a page passes its memory, and goes on in a fresh one', async () => {
    // A page-sized scan of 16 M pixels: pdf.js decodes it to ~64 MiB, outside V8's heap.
    const bytes = makePageBoxPdf([
      { mediaBox: letter, image: { width: 4000, height: 4000 } },
      { mediaBox: letter },
    ]);
    const { results, threads } = await recognise(bytes, [1, 2], { externalMemoryMb: 40 });
    expect(results.map((r) => [r.page, r.outcome])).toEqual([
      [1, 'out_of_memory'],
      [2, 'read'],
    ]);
    expect(threads).toBe(2);
    expect(liveOcrThreads()).toBe(0);
    // The real limit leaves room for a page scanned at 600 dpi (page-fit.ts, OCR_MAX_IMAGE_PIXELS).
    expect(OCR_EXTERNAL_MEMORY_MB).toBeGreaterThan(192);
  });
});
