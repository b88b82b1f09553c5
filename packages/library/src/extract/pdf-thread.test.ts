/**
 * The PDF thread's fences, on real threads: the heap cap, the watch on memory outside the heap,
 * and that every thread is gone once its answer is in.
 */
import { describe, expect, it } from 'vitest';
import { makeDeflateBombPdf, makePdf } from '@sponge/testing/pdf-fixtures';
import { extractDocument } from './index.ts';
import { makePageBoxPdf } from '../testing/page-box-pdf.ts';
import { livePdfThreads, PDF_EXTERNAL_MEMORY_MB, readPdfOnThread } from './pdf-thread.ts';

const job = (bytes: Uint8Array) => ({ bytes, maxPages: 2_000, maxChars: 2_000_000 });
const outOfMemory = {
  ok: false,
  reason: 'invalid_document',
  message: 'This PDF needs more memory to read than an upload may use.',
};

describe('PDF thread', () => {
  it('turns a thread that runs out of heap into a refusal, and reads the next file', async () => {
    const pdf = await makePdf(['Fits in any sensible heap.']);
    const tiny = await readPdfOnThread(job(pdf), {
      timeoutMs: 10_000,
      resourceLimits: { maxOldGenerationSizeMb: 4 },
    });
    expect(tiny).toEqual(outOfMemory);
    expect(livePdfThreads()).toBe(0);
    expect(await readPdfOnThread(job(pdf), { timeoutMs: 10_000 })).toEqual({
      ok: true,
      pages: ['Fits in any sensible heap.'],
      scanned: [],
      metadata: {},
    });
  });

  it('stops a thread whose decoded streams pass the memory limit outside the heap', async () => {
    // 64 KiB on disk, 64 MiB once inflated.
    const bomb = await makeDeflateBombPdf(64);
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(await readPdfOnThread(job(bomb), { timeoutMs: 20_000, externalMemoryMb: 16 })).toEqual(
      outOfMemory,
    );
    // Under the real limit the same file is read, so it was the limit that stopped it.
    expect(PDF_EXTERNAL_MEMORY_MB).toBeGreaterThan(64 * 2);
    expect(await readPdfOnThread(job(bomb), { timeoutMs: 20_000 })).toEqual({
      ok: true,
      pages: ['Hello'],
      scanned: [],
      metadata: {},
    });
    expect(livePdfThreads()).toBe(0);
  });

  // Issue 37, point 3: such pages cost OCR what their size says; reading their text layer draws
  // nothing, so it costs what any blank page does. Each goes to OCR, which decides (page-fit.ts).
  it('reads a file of pages declared absurdly large as any scan: no text, every page for OCR', async () => {
    const pdf = makePageBoxPdf([
      { mediaBox: [0, 0, 8000, 8000] },
      { mediaBox: [0, 0, 20_000, 20_000] },
      { mediaBox: [0, 0, 14_400, 14_400], userUnit: 1e6 },
      { mediaBox: [0, 0, -5, -5] },
    ]);
    const cpu = process.cpuUsage();
    await expect(
      extractDocument({ bytes: pdf, filename: 'poster.pdf', mediaType: 'application/pdf' }),
    ).resolves.toEqual({ source: 'pdf', pages: ['', '', '', ''], title: null, scanned: [1, 2, 3, 4] });
    const used = process.cpuUsage(cpu);
    // Measured: 0.4 s, the thread's start included.
    expect((used.user + used.system) / 1e6).toBeLessThan(2);
    expect(livePdfThreads()).toBe(0);
  });

  it('refuses a 512 MiB decompression bomb through extractDocument within seconds', async () => {
    const bomb = await makeDeflateBombPdf(512);
    const started = performance.now();
    await expect(
      extractDocument({ bytes: bomb, filename: 'bomb.pdf', mediaType: 'application/pdf' }),
    ).rejects.toMatchObject({
      reason: 'invalid_document',
      message: outOfMemory.message,
    });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(livePdfThreads()).toBe(0);
  }, 60_000);
});
