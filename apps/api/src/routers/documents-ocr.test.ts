/**
 * Scanned pages read by OCR (issue 27, SPEC §6b), over HTTP: a scan's upload answers at once,
 * the document is `recognizing` page n of m, then indexed; its recognised pages are marked; a
 * sentence of its second page is found by search. A blank scan ends as `no_text`; the page cap
 * says so on the document (OCR_MAX_PAGES), and a language that is not installed stops the start.
 * The time cap per page and pages too large to draw: packages/library/src/ocr/ocr.test.ts.
 */
import { liveOcrThreads } from '@sponge/library';
import { OCR_MESSAGES } from '@sponge/library/testing';
import { makePdf, makeScannedPdf, SCAN_TEXT } from '@sponge/testing/pdf-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';

let s: TestServer;
let ada: string;

beforeAll(async () => ([s, ada] = await startSignedIn('user-ada')));
afterAll(() => s?.close());

async function upload(server: TestServer, token: string, pdf: Uint8Array, name: string) {
  const form = new FormData();
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), name);
  const r = await server.call('mutation', 'documents.upload', form, token);
  expect(r.status, r.text).toBe(200);
  return r.data as { id: string; pages: number; characters: number };
}

async function settled(server: TestServer): Promise<void> {
  await server.app.library.recognizer.idle();
  await server.app.library.indexer.idle();
}

describe('OCR of scanned pages', () => {
  it('answers the upload at once, shows "recognizing" page n of m, then makes page 2 searchable', async () => {
    const added = await upload(s, ada, await makeScannedPdf(['page-1', 'page-2']), 'kelp-scan.pdf');
    expect(added).toMatchObject({ pages: 2, characters: 2 });
    // OCR takes seconds a page; the upload did not wait for it.
    const during = await s.client(ada).documents.get.query({ documentId: added.id });
    expect(during.index).toMatchObject({ state: 'recognizing', total: 2 });
    expect(during.index!.done).toBeLessThan(2);

    await settled(s);
    const doc = await s.client(ada).documents.get.query({ documentId: added.id });
    expect(doc.index).toMatchObject({ state: 'ready', reason: null, note: null });
    expect(doc.ocrPages).toEqual([1, 2]);
    expect(doc.text.slice(doc.pageStarts[1])).toMatch(/^Sea otters returned to the sheltered bay/);
    expect(doc.characters).toBe(doc.text.length);
    // The listing has the same state.
    const listed = (await s.client(ada).documents.list.query()).find((d) => d.id === added.id);
    expect(listed?.index?.state).toBe('ready');

    const hits = await s.client(ada).documents.search.query({ query: SCAN_TEXT['page-2'][2]! });
    const hit = hits[0] as unknown as { page: number; passage: string };
    expect(hit.page).toBe(2);
    expect(hit.passage).toContain('young kelp recruited on the cleared rock');
    expect(liveOcrThreads()).toBe(0);
  });

  it('reads only the pages without a text layer, and leaves the others as they were', async () => {
    const typed = await makePdf(['Typed cover page of the survey report.', '']);
    const added = await upload(s, ada, typed, 'cover.pdf');
    await settled(s);
    const doc = await s.client(ada).documents.get.query({ documentId: added.id });
    expect(doc.text).toBe('Typed cover page of the survey report.\n\n');
    // The blank second page was read by OCR and had nothing: the document is ready, nothing marked.
    expect(doc.ocrPages).toEqual([]);
    expect(doc.index?.state).toBe('ready');
  });

  it('ends as no_text (failed, with the reason) when OCR finds nothing either', async () => {
    const added = await upload(s, ada, await makeScannedPdf(['blank']), 'blank-scan.pdf');
    await settled(s);
    const doc = await s.client(ada).documents.get.query({ documentId: added.id });
    expect(doc.index).toMatchObject({ state: 'failed', reason: OCR_MESSAGES.noText });
    expect(doc.ocrPages).toEqual([]);
    expect(doc.text.trim()).toBe('');
    // Indexing it again cannot find text either: refused, and it stays failed with its reason.
    const again = await s.call('mutation', 'documents.reindex', { documentId: added.id }, ada);
    expect([again.status, again.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(again.error?.message).toMatch(/no text to index/);
    await settled(s);
    const after = await s.client(ada).documents.get.query({ documentId: added.id });
    expect(after.index).toMatchObject({ state: 'failed', reason: OCR_MESSAGES.noText });
  });

  it('forgets the kept PDF when the document is removed while it waits for OCR', async () => {
    // Its pages in another order: the first test's file again would be refused as a duplicate.
    const added = await upload(s, ada, await makeScannedPdf(['page-2', 'page-1']), 'removed-scan.pdf');
    await s.client(ada).documents.remove.mutate({ documentId: added.id });
    await settled(s);
    const rs = await s.app.app.execute({
      sql: 'SELECT count(*) AS n FROM ocr_jobs WHERE document_id = ?',
      args: [added.id],
    });
    expect(Number(rs.rows[0]!.n)).toBe(0);
  });
});

describe('the limits of OCR', () => {
  it('stops at OCR_MAX_PAGES scanned pages per file and says so', async () => {
    const capped = await startTestServer({ OCR_MAX_PAGES: '1' });
    try {
      const token = await capped.login('user-ada');
      const added = await upload(capped, token, await makeScannedPdf(['page-1', 'page-2']), 'capped.pdf');
      const during = await capped.client(token).documents.get.query({ documentId: added.id });
      expect(during.index).toMatchObject({ state: 'recognizing', total: 1 });
      await settled(capped);
      const doc = await capped.client(token).documents.get.query({ documentId: added.id });
      expect(doc.ocrPages).toEqual([1]);
      expect(doc.index).toMatchObject({ state: 'ready', note: OCR_MESSAGES.pageCap(1, 2) });
      expect(doc.index!.note).toBe(
        'OCR stopped after 1 page (OCR_MAX_PAGES); 1 more scanned page was not read.',
      );
    } finally {
      await capped.close();
    }
  });

  it('refuses to start with a language that is not installed (no download at run time)', () => {
    expect(() => loadConfig({ OCR_LANGUAGES: 'eng+xyz' })).toThrow(ConfigError);
    expect(() => loadConfig({ OCR_LANGUAGES: 'eng+xyz' })).toThrow(
      /OCR_LANGUAGES: xyz is not installed \(add the npm package @tesseract\.js-data\/xyz/,
    );
    expect(() => loadConfig({ OCR_LANGUAGES: '../eng' })).toThrow(/not a Tesseract language code/);
    expect(loadConfig({}).ocr.languages.map((l) => l.code)).toEqual(['eng']);
    expect(loadConfig({ OCR_LANGUAGES: 'eng' }).ocr).toMatchObject({ maxPages: 50, pageSeconds: 60 });
  });
});
