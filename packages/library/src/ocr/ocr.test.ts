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
import { OCR_MESSAGES } from './messages.ts';
import { liveOcrThreads } from './ocr-thread.ts';

describe('the limits of OCR', () => {
  it('gives up on a page past its time, goes on with the next, and says which', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const test = await openTestDatabase(adapter, { owners: [{ id: 'u1', name: 'Ada' }] });
    const { db } = test;
    const languages = resolveOcrLanguages(['eng']);
    if (!languages.ok) throw new Error('eng is installed with the library');
    const library = createLibrary({
      db,
      adapter,
      log: pino({ level: 'silent' }),
      // A thousandth of a second: no page is read in time.
      ocr: { languages: languages.languages, maxPages: 50, pageSeconds: 0.001 },
    });
    try {
      const pages: ScanPage[] = ['page-1', 'page-2'];
      const added = await library.add(
        'u1',
        {
          title: 'Slow scan',
          authors: [],
          source: 'pdf',
          pages: ['', ''],
          scan: { pdf: await makeScannedPdf(pages), pages: [1, 2] },
        },
        new Date(),
      );
      await library.recognizer.idle();
      await library.indexer.idle();
      const rs = await db.execute({
        sql: 'SELECT index_state, index_error, ocr_note FROM documents WHERE id = ?',
        args: [added.id],
      });
      // Failed, and its reason says why (a blank scan is not what it was).
      expect(rs.rows[0]).toMatchObject({
        index_state: 'failed',
        index_error: `${OCR_MESSAGES.noTextUnread} ${OCR_MESSAGES.pageTimeout([1, 2], 0.001)}`,
        ocr_note: OCR_MESSAGES.pageTimeout([1, 2], 0.001),
      });
      expect(liveOcrThreads()).toBe(0);
    } finally {
      await library.close();
      await test.close();
    }
  });

  it('fails a document whose pages are too large to draw, or to hold in memory, saying which and why', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const test = await openTestDatabase(adapter, { owners: [{ id: 'u1', name: 'Ada' }] });
    const { db } = test;
    const languages = resolveOcrLanguages(['eng']);
    if (!languages.ok) throw new Error('eng is installed with the library');
    const library = createLibrary({
      db,
      adapter,
      log: pino({ level: 'silent' }),
      ocr: {
        languages: languages.languages,
        maxPages: 50,
        pageSeconds: 60,
        // The API's priority (this test waits for OCR's answers), and 40 MiB outside the heap.
        thread: { lowestPriority: false, externalMemoryMb: 40 },
      },
    });
    try {
      // A 20,000 pt page (278 inches), then a page whose 16-megapixel scan pdf.js decodes to ~64 MiB.
      const pdf = makePageBoxPdf([
        { mediaBox: [0, 0, 20_000, 20_000] },
        { mediaBox: [0, 0, 612, 792], image: { width: 4000, height: 4000 } },
      ]);
      const added = await library.add(
        'u1',
        { title: 'Poster', authors: [], source: 'pdf', pages: ['', ''], scan: { pdf, pages: [1, 2] } },
        new Date(),
      );
      await library.recognizer.idle();
      await library.indexer.idle();
      const rs = await db.execute({
        sql: 'SELECT index_state, index_error FROM documents WHERE id = ?',
        args: [added.id],
      });
      expect(rs.rows[0]).toMatchObject({
        index_state: 'failed',
        index_error: [
          OCR_MESSAGES.noTextUnread,
          OCR_MESSAGES.pageSize([1]),
          OCR_MESSAGES.pageMemory([2]),
        ].join(' '),
      });
      expect(String(rs.rows[0]!.index_error)).toBe(
        'No text found: this PDF has no text layer, and OCR could not read all of its pages. ' +
          'OCR did not read page 1: its size is not one a PDF page may have (3 points to 200 inches a side). ' +
          'OCR gave up on page 2: reading it needed more memory than OCR may use.',
      );
      expect(liveOcrThreads()).toBe(0);
    } finally {
      await library.close();
      await test.close();
    }
  });
});
