/**
 * A document's background work — OCR of its scanned pages, then its indexing — done once by the
 * API processes sharing one application database (issue 37 point 5; SPEC §6b "at most one
 * extraction or OCR job per owner at a time", §6c). Two clients on one database are two
 * processes: files in a temp folder, or one libSQL server with TEST_DATABASES=sqld.
 *
 * OCR reads a crop of a fixture scan's printed lines, at the API's priority, so a page is read in
 * about a second whatever the machine's load. The leases run on a clock the test moves; nothing
 * here waits for one to lapse.
 */
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { insertDocument, removeDocument } from './documents/documents.ts';
import { createLibrary } from './library.ts';
import type { Library } from './library.ts';
import { resolveOcrLanguages } from './ocr/languages.ts';
import { claimOcrJob, finishOcr, insertOcrJobStatement, savePage } from './ocr/ocr-store.ts';
import { liveOcrThreads } from './ocr/ocr-thread.ts';
import { chunkDocument, contentDigest, embeddingText } from './search/chunks.ts';
import { EMBED_BATCH, createIndexer } from './search/indexer.ts';
import { claimDocumentToIndex, libraryVersion, writeChunks } from './search/index-store.ts';
import { openTestDatabase } from './testing/database.ts';
import { makeSmallScanPdf } from './testing/page-box-pdf.ts';
import { WORK_LEASE_MS } from './work-lease.ts';
import type { Lease } from './work-lease.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  expect(liveOcrThreads()).toBe(0);
});

/** The API clock of both processes; tests move it. */
let clock = Date.parse('2026-03-02T09:00:00.000Z');
const now = () => new Date(clock);

/** Two clients on one new database (files, or a libSQL server), migrated, with the owners ada and grace. */
async function twoProcesses(adapter: EmbeddingAdapter): Promise<[Client, Client]> {
  const test = await openTestDatabase(adapter, {
    now,
    owners: [
      { id: 'ada', name: 'Ada' },
      { id: 'grace', name: 'Grace' },
    ],
  });
  cleanups.push(() => test.close());
  return [test.db, await test.connect()];
}

/** A logger at `debug` whose lines the test reads. */
function recordingLog() {
  const lines: Array<{ msg: string; documentId?: string; page?: number }> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines, pagesRead: () => lines.filter((l) => l.msg === 'OCR answered a page') };
}

function english() {
  const r = resolveOcrLanguages(['eng']);
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.languages;
}

/** One API process's library: OCR at the API's priority (the test waits for its words). */
function openLibrary(db: Client, adapter: EmbeddingAdapter, log: pino.Logger): Library {
  const library = createLibrary({
    db,
    adapter,
    log,
    now,
    ocr: { languages: english(), maxPages: 50, pageSeconds: 60, thread: { lowestPriority: false } },
  });
  cleanups.push(() => library.close());
  return library;
}

/** The local adapter, counting the passages it embeds. */
function countingAdapter() {
  const inner = createLocalEmbeddingAdapter();
  const seen = { texts: 0 };
  const adapter: EmbeddingAdapter = {
    id: inner.id,
    dimensions: inner.dimensions,
    embed(texts) {
      seen.texts += texts.length;
      return inner.embed(texts);
    },
  };
  return { adapter, seen };
}

async function documentRow(db: Client, id: string) {
  const rs = await db.execute({
    sql: `SELECT d.index_state, d.index_error, d.ocr_pages, t.text
          FROM documents d LEFT JOIN document_texts t ON t.document_id = d.id WHERE d.id = ?`,
    args: [id],
  });
  return rs.rows[0]!;
}

/** A scanned document of `ownerId` waiting for OCR of `pages`, as an upload leaves it. */
async function scanWaiting(db: Client, id: string, ownerId: string, pdf: Uint8Array, pages: number[]) {
  await insertDocument(
    db,
    { id, ownerId, title: id, authors: [], abstract: '', pages: pages.map(() => ''), source: 'pdf' },
    now(),
  );
  await db.batch(insertOcrJobStatement({ documentId: id, ownerId, pdf, pages, note: null }, now()), 'write');
  // Jobs are taken oldest first: the next one is a moment younger.
  clock += 1;
}

async function ocrJob(db: Client, id: string) {
  const rs = await db.execute({ sql: 'SELECT done FROM ocr_jobs WHERE document_id = ?', args: [id] });
  return rs.rows[0] ? { done: Number(rs.rows[0].done) } : null;
}

const ocrLease = (documentId: string, holder: string): Lease => ({ work: 'ocr', documentId, holder });

describe('OCR jobs taken by API processes', () => {
  it('gives a job to one of two processes asking at once, and one job per owner at a time to all', async () => {
    const [a, b] = await twoProcesses(createLocalEmbeddingAdapter());
    const pdf = makeSmallScanPdf(['blank']);
    await scanWaiting(a, 'ada-1', 'ada', pdf, [1]);
    await scanWaiting(a, 'ada-2', 'ada', pdf, [1]);
    await scanWaiting(a, 'grace-1', 'grace', pdf, [1]);

    const none = new Set<string>();
    const [first, second] = await Promise.all([
      claimOcrJob(a, 'process-a', now(), none),
      claimOcrJob(b, 'process-b', now(), none),
    ]);
    // One took Ada's first scan; the other, not her second (hers is being read), Grace's.
    expect([first?.documentId, second?.documentId].sort()).toEqual(['ada-1', 'grace-1']);
    expect(await claimOcrJob(b, 'process-c', now(), none)).toBeNull();

    // Ada's first ends: her second may go.
    const adaHolder = first?.documentId === 'ada-1' ? 'process-a' : 'process-b';
    await finishOcr(a, ocrLease('ada-1', adaHolder), { pageSeconds: 60 });
    expect(await ocrJob(a, 'ada-1')).toBeNull();
    expect((await claimOcrJob(b, 'process-c', now(), none))?.documentId).toBe('ada-2');
  });

  it('lets a lapsed lease be taken over, and its old holder write nothing more', async () => {
    const [a, b] = await twoProcesses(createLocalEmbeddingAdapter());
    await scanWaiting(a, 'scan', 'ada', makeSmallScanPdf(['blank', 'blank']), [1, 2]);
    const none = new Set<string>();
    const stalled = ocrLease('scan', 'stalled');
    expect((await claimOcrJob(a, 'stalled', now(), none))?.done).toBe(0);
    expect(await savePage(a, stalled, { page: 1, text: '', outcome: 'read' }, now())).toBe(true);

    // Renewed by that page: not lapsed one lease later from the start, lapsed one after the page.
    clock += WORK_LEASE_MS - 1;
    expect(await claimOcrJob(b, 'other', now(), none)).toBeNull();
    clock += 1;
    const taken = await claimOcrJob(b, 'other', now(), none);
    expect(taken).toMatchObject({ documentId: 'scan', pages: [1, 2], done: 1 });

    // The stalled process comes back: its page and its end are refused, and change nothing.
    expect(
      await savePage(a, stalled, { page: 2, text: 'Words of a page read twice.', outcome: 'read' }, now()),
    ).toBe(false);
    expect(await finishOcr(a, stalled, { pageSeconds: 60 })).toBe(false);
    expect(await ocrJob(a, 'scan')).toEqual({ done: 1 });
    expect(String((await documentRow(a, 'scan')).text)).not.toMatch(/read twice/);
  });
});

describe('OCR on two API processes', () => {
  it("reads a scan's page once when both look for OCR work at the same time", async () => {
    const adapter = createLocalEmbeddingAdapter();
    const [a, b] = await twoProcesses(adapter);
    const logA = recordingLog();
    const logB = recordingLog();
    const one = openLibrary(a, adapter, logA.log);
    const two = openLibrary(b, adapter, logB.log);

    // Added on the first (which starts its OCR), and the second looks for work at once.
    const added = await one.add(
      'ada',
      {
        title: 'Kelp survey (scan)',
        authors: [],
        source: 'pdf',
        pages: [''],
        scan: { pdf: makeSmallScanPdf(['page-1']), pages: [1] },
      },
      now(),
    );
    two.recognizer.kick();
    await Promise.all([one.recognizer.idle(), two.recognizer.idle()]);
    await Promise.all([one.indexer.idle(), two.indexer.idle()]);

    expect([...logA.pagesRead(), ...logB.pagesRead()].map((l) => [l.documentId, l.page])).toEqual([
      [added.id, 1],
    ]);
    const doc = await documentRow(a, added.id);
    expect(doc).toMatchObject({ index_state: 'ready', index_error: null, ocr_pages: '[1]' });
    expect(String(doc.text)).toMatch(/Kelp forests along the northern coast/);
  });
});

describe('OCR taken over from a process that died', () => {
  it('is resumed by another process at its first page not done, once its lease has lapsed', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const [a, b] = await twoProcesses(adapter);
    await scanWaiting(a, 'scan', 'ada', makeSmallScanPdf(['page-1', 'page-2']), [1, 2]);
    // A process took the job, stored page 1, and died.
    const dead = ocrLease('scan', 'dead');
    expect(await claimOcrJob(a, 'dead', now(), new Set())).not.toBeNull();
    expect(
      await savePage(
        a,
        dead,
        { page: 1, text: 'Kelp forests, as the first process read them.', outcome: 'read' },
        now(),
      ),
    ).toBe(true);

    const log = recordingLog();
    const survivor = openLibrary(b, adapter, log.log);
    survivor.recognizer.kick();
    await survivor.recognizer.idle();
    // Its lease still runs: the job is left alone.
    expect(log.pagesRead()).toEqual([]);
    expect(await ocrJob(b, 'scan')).toEqual({ done: 1 });

    clock += WORK_LEASE_MS;
    survivor.recognizer.kick();
    await survivor.recognizer.idle();
    await survivor.indexer.idle();
    expect(log.pagesRead().map((l) => l.page)).toEqual([2]);
    const doc = await documentRow(b, 'scan');
    expect(doc).toMatchObject({ index_state: 'ready', ocr_pages: '[1,2]' });
    expect(String(doc.text)).toMatch(
      /^Kelp forests, as the first process read them\.\n\nSea otters returned/,
    );
  });
});

describe('indexing on two API processes', () => {
  it('embeds and writes a document once when both look for indexing work at the same time', async () => {
    const first = countingAdapter();
    const second = countingAdapter();
    const [a, b] = await twoProcesses(first.adapter);
    const para = (i: number) => `Paragraph ${i} on kelp, urchins and otters number ${i}.`;
    const pages = [Array.from({ length: 2 * EMBED_BATCH }, (_, i) => para(i)).join('\n\n')];
    await insertDocument(
      a,
      { id: 'd1', ownerId: 'ada', title: 'Kelp', authors: [], abstract: '', pages, source: 'pdf' },
      now(),
    );
    const total = chunkDocument({ title: 'Kelp', abstract: '', pages }).length;
    const log = pino({ level: 'silent' });
    const one = createIndexer({ db: a, adapter: first.adapter, log, now });
    const two = createIndexer({ db: b, adapter: second.adapter, log, now });
    cleanups.push(
      () => one.stop(),
      () => two.stop(),
    );

    one.kick();
    two.kick();
    await Promise.all([one.idle(), two.idle()]);

    expect(first.seen.texts + second.seen.texts).toBe(total);
    expect((await documentRow(a, 'd1')).index_state).toBe('ready');
    // Made ready once: its owner's search indexes rebuild once.
    expect(await libraryVersion(a, 'ada')).toBe(1);
  });

  it('resumes a document whose indexer died once its lease has lapsed, embedding only what it had not stored', async () => {
    const first = countingAdapter();
    const second = countingAdapter();
    const [a, b] = await twoProcesses(first.adapter);
    const para = (i: number) => `Paragraph ${i} on kelp, urchins and otters number ${i}.`;
    const pages = [Array.from({ length: 2 * EMBED_BATCH }, (_, i) => para(i)).join('\n\n')];
    const doc = { id: 'd1', ownerId: 'ada', title: 'Kelp', authors: [], abstract: '', pages };
    await insertDocument(a, { ...doc, source: 'pdf' }, now());
    const chunks = chunkDocument(doc);

    // A process took the document, stored its first batch, and died.
    expect((await claimDocumentToIndex(a, 'dead', now(), new Set()))?.id).toBe('d1');
    const key = {
      id: 'd1',
      ownerId: 'ada',
      digest: contentDigest(doc),
      model: first.adapter.id,
      holder: 'dead',
    };
    const batch = chunks.slice(0, EMBED_BATCH);
    const vectors = await first.adapter.embed(batch.map((c) => embeddingText(doc.title, c)));
    const progress = { done: EMBED_BATCH, total: chunks.length };
    const stored = batch.map((chunk, n) => ({ chunk, vector: vectors[n]! }));
    expect(await writeChunks(a, key, stored, progress, now())).toBe(true);

    const log = pino({ level: 'silent' });
    const survivor = createIndexer({ db: b, adapter: second.adapter, log, now });
    cleanups.push(() => survivor.stop());
    survivor.kick();
    await survivor.idle();
    expect(second.seen.texts).toBe(0);
    expect((await documentRow(b, 'd1')).index_state).toBe('indexing');

    clock += WORK_LEASE_MS;
    survivor.kick();
    await survivor.idle();
    expect(second.seen.texts).toBe(chunks.length - EMBED_BATCH);
    expect((await documentRow(b, 'd1')).index_state).toBe('ready');
    expect(await libraryVersion(b, 'ada')).toBe(1);
    // The dead process's late write is refused.
    expect(await writeChunks(a, key, stored, progress, now())).toBe(false);
  });

  it('stops indexing a document removed meanwhile at its next write, and lets it go', async () => {
    const { adapter, seen } = countingAdapter();
    const [a] = await twoProcesses(adapter);
    const para = (i: number) => `Paragraph ${i} on kelp, urchins and otters number ${i}.`;
    const pages = [Array.from({ length: 3 * EMBED_BATCH }, (_, i) => para(i)).join('\n\n')];
    await insertDocument(
      a,
      { id: 'd1', ownerId: 'ada', title: 'Kelp', authors: [], abstract: '', pages, source: 'pdf' },
      now(),
    );
    const removing = {
      ...adapter,
      embed: async (texts: string[]) => {
        if (seen.texts === 0) await removeDocument(a, 'd1', now());
        return adapter.embed(texts);
      },
    };
    const indexer = createIndexer({ db: a, adapter: removing, log: pino({ level: 'silent' }), now });
    cleanups.push(() => indexer.stop());
    indexer.kick();
    await indexer.idle();
    // Its first batch was embedded as the removal came; nothing after it.
    expect(seen.texts).toBe(EMBED_BATCH);
    const leases = await a.execute('SELECT count(*) AS n FROM work_leases');
    expect(Number(leases.rows[0]!.n)).toBe(0);
  });
});
