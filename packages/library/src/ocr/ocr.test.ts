/**
 * The limits of OCR on documents the library reads (SPEC §6b): a page past its time is given up and
 * the next read, a page too large to draw or to hold in memory is left out, and the document says
 * which and why. Over HTTP, with uploads, the page cap and the configuration:
 * apps/api/src/routers/documents-ocr.test.ts.
 */
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { makeScannedPdf } from '@sponge/testing/pdf-fixtures';
import type { ScanPage } from '@sponge/testing/pdf-fixtures';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLibrary } from '../library.ts';
import { openTestDatabase } from '../testing/database.ts';
import { makePageBoxPdf } from '../testing/page-box-pdf.ts';
import { resolveOcrLanguages } from './languages.ts';
import type { OcrSettings } from './recognizer.ts';
import { OCR_MESSAGES } from './messages.ts';
import { liveOcrThreads } from './ocr-thread.ts';

/**
 * Adds a scan of `pages` pages to a library of one owner with English OCR on `ocr`'s terms, waits
 * until OCR and indexing are done with it, and answers its stored state and the OCR threads
 * still alive then (none: a thread ends with its job); both closed after.
 */
async function scanRead(
  ocr: Omit<OcrSettings, 'languages'>,
  title: string,
  pdf: Uint8Array,
  pages: number,
): Promise<{ state: Record<string, unknown>; liveThreads: number }> {
  const adapter = createLocalEmbeddingAdapter();
  const test = await openTestDatabase(adapter, { owners: [{ id: 'u1', name: 'Ada' }] });
  const languages = resolveOcrLanguages(['eng']);
  if (!languages.ok) throw new Error('eng is installed with the library');
  const library = createLibrary({
    db: test.db,
    adapter,
    log: pino({ level: 'silent' }),
    ocr: { languages: languages.languages, ...ocr },
  });
  try {
    const numbers = Array.from({ length: pages }, (_, i) => i + 1);
    const added = await library.add(
      'u1',
      { title, authors: [], source: 'pdf', pages: numbers.map(() => ''), scan: { pdf, pages: numbers } },
      new Date(),
    );
    await library.recognizer.idle();
    await library.indexer.idle();
    const rs = await test.db.execute({
      sql: 'SELECT index_state, index_error, ocr_note FROM documents WHERE id = ?',
      args: [added.id],
    });
    return { state: { ...rs.rows[0] }, liveThreads: liveOcrThreads() };
  } finally {
    await library.close();
    await test.close();
  }
}

describe('the limits of OCR', () => {
  it('gives up on a page past its time, goes on with the next, and says which', async () => {
    const pages: ScanPage[] = ['page-1', 'page-2'];
    // A thousandth of a second: no page is read in time.
    const { state, liveThreads } = await scanRead(
      { maxPages: 50, pageSeconds: 0.001 },
      'Slow scan',
      await makeScannedPdf(pages),
      2,
    );
    // Failed, and its reason says why (a blank scan is not what it was).
    expect(state).toMatchObject({
      index_state: 'failed',
      index_error: `${OCR_MESSAGES.noTextUnread} ${OCR_MESSAGES.pageTimeout([1, 2], 0.001)}`,
      ocr_note: OCR_MESSAGES.pageTimeout([1, 2], 0.001),
    });
    expect(liveThreads).toBe(0);
  });

  it('fails a document whose pages are too large to draw, or to hold in memory, saying which and why', async () => {
    // A 20,000 pt page (278 inches), then a page whose 16-megapixel scan pdf.js decodes to ~64 MiB.
    const pdf = makePageBoxPdf([
      { mediaBox: [0, 0, 20_000, 20_000] },
      { mediaBox: [0, 0, 612, 792], image: { width: 4000, height: 4000 } },
    ]);
    const { state, liveThreads } = await scanRead(
      {
        maxPages: 50,
        pageSeconds: 60,
        // The API's priority (this test waits for OCR's answers), and 40 MiB outside the heap.
        thread: { lowestPriority: false, externalMemoryMb: 40 },
      },
      'Poster',
      pdf,
      2,
    );
    expect(state).toMatchObject({
      index_state: 'failed',
      index_error: [OCR_MESSAGES.noTextUnread, OCR_MESSAGES.pageSize([1]), OCR_MESSAGES.pageMemory([2])].join(
        ' ',
      ),
    });
    expect(String(state.index_error)).toBe(
      'No text found: this PDF has no text layer, and OCR could not read all of its pages. ' +
        'OCR did not read page 1: its size is not one a PDF page may have (3 points to 200 inches a side). ' +
        'OCR gave up on page 2: reading it needed more memory than OCR may use.',
    );
    expect(liveThreads).toBe(0);
  });
});
