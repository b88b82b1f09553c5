/**
 * Extraction in view (SPEC §6b, issue 27 point 6), over HTTP: an upload's document is in its
 * owner's library as `extracting` from the moment its file is in (page n of m while a PDF's thread
 * reads it), nothing else takes it up meanwhile, and it then gets its text and goes on. Every way
 * the upload can end without a document (a refusal, a failure, the client gone, the owner removing
 * it, the process dying) leaves nothing behind.
 *
 * The owner's one extraction slot is held by a job of the test's own (`uploads.run`), so an upload
 * waits in the queue, extracting, for exactly as long as the test wants: no timing is guessed.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { makeEncryptedPdf, makePdf, makeScannedPdf, makeSlowPdf } from '@sponge/testing/pdf-fixtures';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';
import { until, upload } from '../testing/uploads.ts';
import { EXTRACTION_STALE_MS } from '@sponge/library/testing';
import { livePdfThreads } from '@sponge/library';

/** Holds the owner's one extraction slot until `release()`: their next upload waits, extracting. */
function holdSlot(s: TestServer, ownerId: string): { release: () => Promise<void> } {
  let resolve = () => {};
  const held = s.app.library.uploads.run(ownerId, () => new Promise<void>((r) => (resolve = r)));
  return {
    release: async () => {
      resolve();
      await held;
    },
  };
}

async function extractionRows(s: TestServer): Promise<{ documents: number; jobs: number }> {
  const rs = await s.app.app.execute(
    `SELECT (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM extraction_jobs) AS jobs`,
  );
  return { documents: Number(rs.rows[0]!.documents), jobs: Number(rs.rows[0]!.jobs) };
}

async function documentExists(s: TestServer, id: string): Promise<boolean> {
  const rs = await s.app.app.execute({ sql: 'SELECT 1 FROM documents WHERE id = ?', args: [id] });
  return rs.rows.length > 0;
}

describe('an upload in the library while its text is extracted', () => {
  let s: TestServer;
  let ada: string;
  let grace: string;

  beforeAll(async () => ([s, ada, grace] = await startSignedIn('user-ada', 'user-grace')));
  afterAll(async () => {
    await s?.close();
    expect(livePdfThreads()).toBe(0);
  });

  const extractingIn = async (token: string) =>
    (await s.client(token).documents.list.query()).filter((d) => d.index?.state === 'extracting');

  it('is listed as extracting while it waits, is left alone by indexing, search, reindex and runs, then gets its text', async () => {
    const slot = holdSlot(s, 'user-ada');
    const pdf = await makePdf(['Mangrove roots trap the silt of the estuary.'], { title: 'Estuary silt' });
    const answer = upload(s, ada, pdf, 'estuary-notes.pdf');
    onTestFinished(slot.release);
    await until(() => s.app.library.uploads.stats().waiting === 1);

    // In the owner's library at once, under the file's name until the PDF's own title is read.
    const [listed, ...more] = await extractingIn(ada);
    expect(more).toEqual([]);
    expect(listed).toMatchObject({
      title: 'estuary-notes',
      source: 'pdf',
      pages: 0,
      characters: 0,
      index: { state: 'extracting', done: 0, total: 0, reason: null, note: null },
    });
    const id = listed!.id;
    const doc = await s.client(ada).documents.get.query({ documentId: id });
    expect([doc.text, doc.index?.state]).toEqual(['', 'extracting']);
    // Nobody else sees it.
    expect((await s.call('query', 'documents.get', { documentId: id }, grace)).status).toBe(404);

    // The indexer does not take it up (it would index the title alone and call it ready).
    s.app.library.indexer.kick();
    await s.app.library.indexer.idle();
    const row = await s.app.app.execute({
      sql: `SELECT index_state, (SELECT count(*) FROM document_chunks WHERE document_id = ?) AS chunks
            FROM documents WHERE id = ?`,
      args: [id, id],
    });
    expect([row.rows[0]!.index_state, Number(row.rows[0]!.chunks)]).toEqual(['indexing', 0]);
    // Search finds nothing of it, its title included.
    const hits = await s.client(ada).documents.search.query({ query: 'estuary notes' });
    expect(hits.map((h) => h.documentId)).not.toContain(id);
    // Reindex and runs refuse in words.
    for (const [path, input] of [
      ['documents.reindex', { documentId: id }],
      ['runs.accept', { documentId: id, mode: 'staged' }],
      ['chat.ask', { documentId: id, text: 'What traps the silt?' }],
    ] as const) {
      const r = await s.call('mutation', path, input, ada);
      expect([path, r.status, r.error?.data.reason]).toEqual([path, 400, 'invalid_input']);
      expect(r.error!.message, path).toMatch(/still being extracted/);
    }

    await slot.release();
    const done = await answer;
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    // The same document, now with its text and the PDF's own title.
    expect(done.body.result.data).toEqual({ id, title: 'Estuary silt', pages: 1, characters: 44 });
    expect(await extractionRows(s)).toMatchObject({ jobs: 0 });
    await s.app.library.indexer.idle();
    const ready = await s.client(ada).documents.get.query({ documentId: id });
    expect(ready).toMatchObject({ title: 'Estuary silt', pages: 1, index: { state: 'ready' } });
    expect(ready.text).toBe('Mangrove roots trap the silt of the estuary.');
    const found = await s.client(ada).documents.search.query({ query: 'mangrove roots trap silt' });
    expect(found[0]?.documentId).toBe(id);
    expect((await s.call('mutation', 'runs.accept', { documentId: id, mode: 'staged' }, ada)).status).toBe(
      200,
    );
  }, 60_000);

  it('shows page n of m as the thread reads; removed meanwhile, the upload stops and answers not found, leaving nothing', async () => {
    const before = await extractionRows(s);
    // Far past the time limit: only the removal ends it early.
    const walkAway = new AbortController();
    onTestFinished(() => walkAway.abort());
    const answer = upload(s, ada, makeSlowPdf(), 'slow-survey.pdf', { signal: walkAway.signal });
    let id = '';
    await until(async () => {
      const [d] = await extractingIn(ada);
      id = d?.id ?? '';
      return d !== undefined && d.index!.total === 2000 && d.index!.done > 0;
    });
    expect(await extractionRows(s)).toEqual({ documents: before.documents + 1, jobs: 1 });

    await s.client(ada).documents.remove.mutate({ documentId: id });
    const done = await answer;
    expect([done.status, done.body.error?.data?.reason]).toEqual([404, 'not_found']);
    expect(await extractionRows(s)).toEqual(before);
    expect(await documentExists(s, id)).toBe(false);
    await until(() => livePdfThreads() === 0);
  }, 60_000);

  it('removed while it waits for its turn: the upload answers not found, leaving nothing', async () => {
    const before = await extractionRows(s);
    const slot = holdSlot(s, 'user-ada');
    onTestFinished(slot.release);
    const answer = upload(s, ada, await makePdf(['Short-lived.']), 'short-lived.pdf');
    await until(() => s.app.library.uploads.stats().waiting === 1);
    const [d] = await extractingIn(ada);
    await s.client(ada).documents.remove.mutate({ documentId: d!.id });
    await slot.release();
    const done = await answer;
    expect([done.status, done.body.error?.data?.reason]).toEqual([404, 'not_found']);
    expect(await extractionRows(s)).toEqual(before);
  }, 60_000);

  it('a refused file (invalid_document, too_large) leaves nothing; its row was there while it was read', async () => {
    const before = await extractionRows(s);
    for (const [bytes, name, status, reason] of [
      [makeEncryptedPdf(), 'locked.pdf', 400, 'invalid_document'],
      // More pages than the limit: refused once the thread has counted them.
      [makeSlowPdf({ pages: 2001, operators: 1 }), 'too-many-pages.pdf', 413, 'too_large'],
    ] as const) {
      const slot = holdSlot(s, 'user-ada');
      onTestFinished(slot.release);
      const answer = upload(s, ada, bytes, name);
      await until(() => s.app.library.uploads.stats().waiting === 1);
      expect(await extractionRows(s), name).toEqual({ documents: before.documents + 1, jobs: 1 });
      await slot.release();
      const done = await answer;
      expect([name, done.status, done.body.error?.data?.reason]).toEqual([name, status, reason]);
      expect(await extractionRows(s), name).toEqual(before);
    }
  }, 60_000);

  it('a failure of our own (a thrown error) leaves nothing', async () => {
    const before = await extractionRows(s);
    const queue = s.app.library.uploads;
    const run = queue.run.bind(queue);
    let during: { documents: number; jobs: number } | undefined;
    queue.run = async () => {
      during = await extractionRows(s);
      throw new Error('the PDF thread could not start');
    };
    try {
      const done = await upload(s, ada, await makePdf(['Never read.']), 'never-read.pdf');
      expect([done.status, done.body.error?.data?.reason]).toEqual([500, 'internal']);
    } finally {
      queue.run = run;
    }
    expect(during).toEqual({ documents: before.documents + 1, jobs: 1 });
    expect(await extractionRows(s)).toEqual(before);
  });

  it('an upload whose client went away leaves the queue and leaves nothing', async () => {
    const before = await extractionRows(s);
    const slot = holdSlot(s, 'user-ada');
    onTestFinished(slot.release);
    const walkAway = new AbortController();
    const answer = upload(s, ada, await makePdf(['Nobody waits for me.']), 'abandoned.pdf', {
      signal: walkAway.signal,
    });
    await until(() => s.app.library.uploads.stats().waiting === 1);
    expect(await extractionRows(s)).toEqual({ documents: before.documents + 1, jobs: 1 });
    walkAway.abort();
    await expect(answer).rejects.toThrow();
    await until(async () => s.app.library.uploads.stats().waiting === 0);
    await until(async () => (await extractionRows(s)).jobs === 0);
    expect(await extractionRows(s)).toEqual(before);
  });
});

describe('a scan refused for a quota once read', () => {
  let s: TestServer;
  beforeAll(async () => {
    // Room for a document of one character: a two-page scan has two (the blank line between its
    // empty pages), known only once it has been read.
    s = await startTestServer({ LIBRARY_MAX_CHARACTERS: '1' });
  });
  afterAll(() => s?.close());

  it('leaves nothing: no document, no OCR job keeping the file', async () => {
    const rosalind = await s.login('user-rosalind');
    const before = await extractionRows(s);
    const done = await upload(s, rosalind, await makeScannedPdf(['blank', 'blank']), 'scan.pdf');
    expect([done.status, done.body.error?.data?.reason]).toEqual([429, 'quota']);
    expect(done.body.error.message).toMatch(/limit of 1 characters/);
    expect(await extractionRows(s)).toEqual(before);
    const ocr = await s.app.app.execute('SELECT count(*) AS n FROM ocr_jobs');
    expect(Number(ocr.rows[0]!.n)).toBe(0);
  });
});

describe('uploads a stopped process left extracting', () => {
  let first: TestServer;
  let second: TestServer | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('are deleted when an API starts; another live process’s upload stays until it stops beating', async () => {
    first = await startTestServer();
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    // Two uploads in flight as the database holds them: one whose process died a minute ago
    // (last beat then), one of a process still running (beat just now).
    for (const [id, beat] of [
      ['doc_dead', at(-60_000)],
      ['doc_live', at(0)],
    ] as const) {
      await first.app.app.batch(
        [
          {
            sql: `INSERT INTO documents (id, owner_id, title, source, created_at)
                  VALUES (?, 'user-ada', ?, 'pdf', ?)`,
            args: [id, id, beat],
          },
          {
            sql: `INSERT INTO document_texts (document_id, page_starts) VALUES (?, '[]')`,
            args: [id],
          },
          {
            sql: `INSERT INTO shares (document_id, user_id, created_at) VALUES (?, 'user-grace', ?)`,
            args: [id, beat],
          },
          {
            sql: `INSERT INTO extraction_jobs (document_id, done, total, started_at, alive_at) VALUES (?, 3, 9, ?, ?)`,
            args: [id, beat, beat],
          },
        ],
        'write',
      );
    }
    // The second API's clock stands still where the test moves it.
    let offset = 0;
    second = await startTestServer({}, { sameDataAs: first, now: () => new Date(now + offset) });
    const left = async () =>
      (
        await second!.app.app.execute(
          `SELECT d.id, (SELECT count(*) FROM shares s WHERE s.document_id = d.id) AS shares
           FROM documents d JOIN extraction_jobs j ON j.document_id = d.id ORDER BY d.id`,
        )
      ).rows.map((r) => [String(r.id), Number(r.shares)]);
    expect(await left()).toEqual([['doc_live', 1]]);
    expect(await documentExists(second, 'doc_dead')).toBe(false);

    // Once the live one has gone unbeaten for the stale time, the next sweep takes it too.
    offset = EXTRACTION_STALE_MS - 1_000;
    expect(await second.app.library.sweepExtractions()).toBe(0);
    offset = EXTRACTION_STALE_MS + 1_000;
    expect(await second.app.library.sweepExtractions()).toBe(1);
    expect(await left()).toEqual([]);
    expect(await documentExists(second, 'doc_live')).toBe(false);
  });
});

describe('the time a PDF may take to read (UPLOAD_READ_SECONDS)', () => {
  it('refuses a PDF still being read at the configured limit, leaving nothing', async () => {
    const s = await startTestServer({ UPLOAD_READ_SECONDS: '2' });
    onTestFinished(() => s.close());
    const ada = await s.login('user-ada');
    const before = await extractionRows(s);
    const started = performance.now();
    const done = await upload(s, ada, makeSlowPdf(), 'slow-survey.pdf');
    // Far under the 30 s default: the setting, not the default, stopped it.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect([done.status, done.body.error?.data?.reason]).toEqual([400, 'invalid_document']);
    expect(done.body.error?.message).toMatch(/took too long to read \(more than 2 seconds\)/);
    expect(await extractionRows(s)).toEqual(before);
    await until(() => livePdfThreads() === 0);
  }, 30_000);
});
