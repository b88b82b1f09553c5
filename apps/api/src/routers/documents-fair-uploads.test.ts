/**
 * Fair and bounded uploads (SPEC §6b, issue 24 point 8), over HTTP with real PDFs and real
 * extraction threads: one running and one waiting extraction per owner, a bounded queue and a
 * deadline on waiting that answer 429 `busy` with `retryAfterSeconds`, and per-owner quotas that
 * answer 429 `quota`. Every refusal leaves nothing stored.
 *
 * The slow PDF (makeSlowPdf) takes pdf.js well past the 30 s extraction limit, so while it runs
 * its owner's job holds one of the two threads for the whole test; closing the server stops it.
 * The assertions are on scheduling (what ran, what is still waiting), never on how long it took.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makeSlowPdf } from '@sponge/testing/pdf-fixtures';
import { startTestServer } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';
import { pending, until, upload } from '../testing/uploads.ts';
import type { UploadAnswer } from '../testing/uploads.ts';
import { livePdfThreads } from '@sponge/library';

async function documentRows(s: TestServer): Promise<{ documents: number; chunks: number }> {
  await s.app.library.indexer.idle();
  const rs = await s.app.app.execute(
    'SELECT (SELECT COUNT(*) FROM documents) AS documents, (SELECT COUNT(*) FROM document_chunks) AS chunks',
  );
  return { documents: Number(rs.rows[0]!.documents), chunks: Number(rs.rows[0]!.chunks) };
}

function expectBusy(a: UploadAnswer): void {
  expect([a.status, a.body.error?.data?.reason], JSON.stringify(a.body)).toEqual([429, 'busy']);
  const after = a.body.error.data.retryAfterSeconds as number;
  expect(Number.isInteger(after) && after >= 1).toBe(true);
  expect(a.retryAfter).toBe(String(after));
  expect(a.body.error.message).toMatch(/busy/i);
}

describe('one owner’s slow PDFs and another owner’s upload', () => {
  let s: TestServer;
  let ada: string;
  let grace: string;
  let rosalind: string;
  const stragglers: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    // One waiting job in all, so the second test can fill the queue with few uploads.
    s = await startTestServer({ UPLOAD_QUEUE_SIZE: '1' });
    ada = await s.login('user-ada');
    grace = await s.login('user-grace');
    rosalind = await s.login('user-rosalind');
  });
  afterAll(async () => {
    await s?.close();
    await Promise.all(stragglers);
    expect(livePdfThreads()).toBe(0);
  });

  it("B's tiny PDF is extracted while A's first slow PDF runs, ahead of A's second; A's third and fourth are busy", async () => {
    // Four different files (the same one twice is a duplicate, refused before any queue).
    const slow = (n: number) => makeSlowPdf({ text: `A slow page, file ${n}.` });
    const before = await documentRows(s);

    const a1 = pending(upload(s, ada, slow(1), 'slow-1.pdf'));
    stragglers.push(a1.answer);
    await until(() => s.app.library.uploads.stats().running === 1);
    const a2 = pending(upload(s, ada, slow(2), 'slow-2.pdf'));
    stragglers.push(a2.answer);
    await until(() => s.app.library.uploads.stats().waiting === 1);
    // A already has a job running and one waiting.
    const [a3, a4] = await Promise.all([
      upload(s, ada, slow(3), 'slow-3.pdf'),
      upload(s, ada, slow(4), 'slow-4.pdf'),
    ]);
    expectBusy(a3);
    expectBusy(a4);

    const b = await upload(s, grace, await makePdf(['Reef sharks patrol the outer slope.']), 'tiny.pdf');
    expect([b.status, b.body.result?.data?.title]).toEqual([200, 'tiny']);
    // B ran on the thread A's second job may not take while A's first runs: A's jobs are both
    // still in, unanswered, and the second has not started.
    expect(s.app.library.uploads.stats()).toEqual({ running: 1, waiting: 1 });
    expect([a1.settled(), a2.settled()]).toEqual([false, false]);
    // B's was added; A's first two are in A's library as extracting, the busy two left nothing.
    expect(await documentRows(s)).toMatchObject({ documents: before.documents + 3 });
    const extracting = (await s.client(ada).documents.list.query()).filter(
      (d) => d.index?.state === 'extracting',
    );
    expect(extracting.map((d) => d.title).sort()).toEqual(['slow-1', 'slow-2']);
  }, 60_000);

  it('a full queue answers busy and stores nothing', async () => {
    // Both threads busy (A's first, Rosalind's), A's second waiting: the queue (1) is full.
    const r1 = pending(upload(s, rosalind, makeSlowPdf(), 'slow-r.pdf'));
    stragglers.push(r1.answer);
    await until(() => s.app.library.uploads.stats().running === 2);
    const before = await documentRows(s);
    const b2 = await upload(s, grace, await makePdf(['Another short note.']), 'tiny-2.pdf');
    expectBusy(b2);
    expect(b2.body.error.message).toMatch(/queue/i);
    expect(await documentRows(s)).toEqual(before);
    expect((await s.call('query', 'health')).data).toEqual({ ok: true });
  }, 60_000);
});

describe('the deadline on waiting', () => {
  let s: TestServer;
  let ada: string;
  const stragglers: Array<Promise<unknown>> = [];

  beforeAll(async () => {
    s = await startTestServer({ UPLOAD_QUEUE_WAIT_SECONDS: '1' });
    ada = await s.login('user-ada');
  });
  afterAll(async () => {
    await s?.close();
    await Promise.all(stragglers);
  });

  it('refuses a job that waited past the deadline with busy, storing nothing', async () => {
    const a1 = pending(upload(s, ada, makeSlowPdf(), 'slow.pdf'));
    stragglers.push(a1.answer);
    await until(() => s.app.library.uploads.stats().running === 1);
    const before = await documentRows(s);
    // Its owner's slow job holds the way; a thread is free, but it is not this owner's turn.
    const a2 = await upload(s, ada, await makePdf(['Waits behind the slow one.']), 'tiny.pdf');
    expectBusy(a2);
    expect(a2.body.error.message).toMatch(/waited/i);
    expect(a1.settled()).toBe(false);
    expect(s.app.library.uploads.stats()).toEqual({ running: 1, waiting: 0 });
    expect(await documentRows(s)).toEqual(before);
  }, 60_000);
});

describe('the cap on upload bodies being received at once', () => {
  let s: TestServer;
  let ada: string;

  beforeAll(async () => {
    s = await startTestServer({ UPLOADS_IN_FLIGHT: '1' });
    ada = await s.login('user-ada');
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers busy while another body is still coming in, and takes uploads again once it is in', async () => {
    const before = await documentRows(s);
    // A multipart body sent in two halves: between them, its upload is in flight.
    const boundary = 'sponge-in-flight';
    const pdf = Buffer.from(await makePdf(['Sent in two halves.']));
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="halves.pdf"\r\n` +
          'Content-Type: application/pdf\r\n\r\n',
      ),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const req = request(`${s.url}/trpc/documents.upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ada}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(body.length),
      },
    });
    const slow = new Promise<{ status: number; body: Json }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
    });
    req.write(body.subarray(0, 100));
    await until(async () => (await s.app.uploadPlaces.taken()) === 1);

    expectBusy(await upload(s, ada, await makePdf(['Another one.']), 'other.pdf'));
    expect(await documentRows(s)).toEqual(before);

    req.end(body.subarray(100));
    const first = await slow;
    expect([first.status, first.body.result?.data?.title]).toEqual([200, 'halves']);
    await until(async () => (await s.app.uploadPlaces.taken()) === 0);
    const again = await upload(s, ada, await makePdf(['Room again.']), 'again.pdf');
    expect(again.status).toBe(200);
  }, 60_000);
});

describe('per-owner library quotas', () => {
  let s: TestServer;
  let rosalind: string;

  beforeAll(async () => {
    s = await startTestServer({
      LIBRARY_MAX_DOCUMENTS: '3',
      LIBRARY_MAX_CHARACTERS: '2000',
      LIBRARY_MAX_CHUNKS: '5',
    });
    // The demo library gives Rosalind no documents of her own.
    rosalind = await s.login('user-rosalind');
  });
  afterAll(async () => {
    await s?.close();
  });

  const add = (text: string, title = 'Note') =>
    s.call('mutation', 'documents.add', { title, text }, rosalind);

  async function expectQuota(
    r: { status: number; error?: { message: string; data: { reason?: string } } },
    limit: RegExp,
  ) {
    expect([r.status, r.error?.data.reason]).toEqual([429, 'quota']);
    expect(r.error!.message).toMatch(limit);
  }

  it('answers quota, naming the limit, for chunks, characters and documents; nothing is stored', async () => {
    expect((await add('The first note: one paragraph.')).status).toBe(200);
    const before = await documentRows(s);

    // 1 chunk stored + 5 paragraphs = 6 chunks, over 5.
    const chunks = await add(['One.', 'Two.', 'Three.', 'Four.', 'Five.'].join('\n\n'));
    await expectQuota(chunks, /5 chunks/);
    // 30 characters stored + 1,990 = over 2,000 (in 3 chunks, within the chunk limit).
    const chars = await add('x'.repeat(1_990));
    await expectQuota(chars, /2,000 characters/);
    const upload = new FormData();
    upload.append('file', new Blob([await makePdf(['y'.repeat(1_990)])]), 'long.pdf');
    await expectQuota(await s.call('mutation', 'documents.upload', upload, rosalind), /2,000 characters/);
    expect(await documentRows(s)).toEqual(before);

    expect((await add('Second.')).status).toBe(200);
    expect((await add('Third.')).status).toBe(200);
    const full = await documentRows(s);
    await expectQuota(await add('Fourth.'), /3 documents/);
    const tiny = new FormData();
    tiny.append('file', new Blob([await makePdf(['A fourth document.'])]), 'fourth.pdf');
    await expectQuota(await s.call('mutation', 'documents.upload', tiny, rosalind), /3 documents/);
    expect(await documentRows(s)).toEqual(full);

    // Removing one makes room again.
    const own = (await s.client(rosalind).documents.list.query()).filter((d) => d.access === 'owner');
    await s.client(rosalind).documents.remove.mutate({ documentId: own[0]!.id });
    expect((await add('Fourth, now that there is room.')).status).toBe(200);
  }, 60_000);
});
