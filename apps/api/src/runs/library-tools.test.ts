/**
 * The research assistant's side of the API (SPEC §7b, issue 28), over HTTP: `library.search` and
 * `library.read` on the run owner's own documents only, a card in the transcript for each, and
 * `agent.say` citations the server judges (verified on the cited page ± 1, ignoring case and
 * spacing; unverified anywhere else; a note only when the run's session holds it) and the
 * transcript returns with the reply.
 */
import { randomBytes } from 'node:crypto';
import { rowsMentioning } from '@oh/memory/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDocument, shareDocument } from '@sponge/library';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { startTestServer, TEST_RUNTIME_KEY } from '../testing/harness.ts';
import type { Json, TestServer } from '../testing/harness.ts';

let s: TestServer;
let ada: string;
let grace: string;
/** Ada's chat run on the reef document (memory on), and Grace's on one of hers. */
let run: { runId: string; sessionId: string | null; runToken: string };
let graceRun: { runId: string; sessionId: string | null; runToken: string };

/** A unique term, so searches find only this file's documents. */
const TERM = `quokkafish${randomBytes(3).toString('hex')}`;

/** Five pages; page 2 ends and page 3 starts mid-sentence. */
const PAGES = [
  `Survey design. We revisited forty transects on the outer reef in ${TERM} country.`,
  'Grazing fish were counted along each transect. Recovery was fastest where herbivore density',
  'stayed high through the first winter. Macroalgae covered the slower sites by 2019.',
  'Settlement tiles recorded 3.2 recruits per tile near healthy reefs and almost none beyond 30 km.',
  'We conclude that recovery needs grazers and a nearby source of larvae.',
];

const DOCS = {
  /** Ada's five-page PDF. */
  pdf: 'doc-tools-pdf',
  /** Ada's one-page text with the term. */
  text: 'doc-tools-text',
  /** Ada's long text (past one passage). */
  long: 'doc-tools-long',
  /** Grace's, published and shared with Ada: never Ada's run's. */
  graces: 'doc-tools-grace',
  /** Ada's, removed before the tests. */
  removed: 'doc-tools-removed',
  /** Ada's scan whose OCR has not read a page yet: no text. */
  scan: 'doc-tools-scan',
};
const LONG_TEXT = Array.from({ length: 300 }, (_, i) => `Line ${i} of the long report.`).join('\n');
const GRACE_TEXT = `Grace's notes on ${TERM} habitats: connectivity between reefs decides recovery.`;

let clock = 0;
/** Strictly increasing, near the real time: transcript order is the order of the calls. */
const now = () => new Date((clock = Math.max(Date.now(), clock + 1)));

async function call(kind: 'query' | 'mutation', path: string, input: unknown, token = run.runToken) {
  return s.call(kind, path, input, token);
}

async function must(
  kind: 'query' | 'mutation',
  path: string,
  input: unknown,
  token = run.runToken,
): Promise<Json> {
  const r = await call(kind, path, input, token);
  if (!r.ok) throw new Error(`${path}: ${r.text}`);
  return r.data;
}

function refusal(r: {
  status: number;
  error?: { message: string; data: { code: string; reason?: string } };
}) {
  return [r.error?.data.code, r.error?.data.reason];
}

async function transcript(runId = run.runId, token = ada): Promise<Json[]> {
  return must('query', 'chat.transcript', { runId }, token);
}

/** A question Ada asks on the reef document, its run claimed as the hosted runtime claims it. */
async function askedRun(text: string): Promise<{ runId: string; token: string }> {
  const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text });
  const claimed = await must('mutation', 'runtime.claim', { runId }, TEST_RUNTIME_KEY);
  return { runId, token: claimed.runToken as string };
}

beforeAll(async () => {
  s = await startTestServer({}, { now });
  ada = await s.login('user-ada');
  grace = await s.login('user-grace');
  const db = s.app.app;
  const at = new Date();
  const doc = (
    id: string,
    ownerId: string,
    title: string,
    pages: string[],
    source: 'pdf' | 'text' = 'text',
  ) => insertDocument(db, { id, ownerId, title, authors: [], abstract: '', pages, source }, at);
  await doc(DOCS.pdf, 'user-ada', 'Recovery transects', PAGES, 'pdf');
  await doc(DOCS.text, 'user-ada', 'Field notes', [`A field note: ${TERM} sightings at the northern sites.`]);
  await doc(DOCS.long, 'user-ada', 'Long report', [LONG_TEXT]);
  await doc(DOCS.graces, 'user-grace', "Grace's habitats", [GRACE_TEXT]);
  await doc(DOCS.removed, 'user-ada', 'Removed soon', [`Removed text about ${TERM}.`]);
  await doc(DOCS.scan, 'user-ada', 'Scan', ['', ''], 'pdf');
  // The scan's OCR job, never kicked here (an upload of a scan would start the recognizer).
  await db.execute({
    sql: `INSERT INTO ocr_jobs (document_id, owner_id, pdf, pages, done, missed, created_at)
          VALUES (?, 'user-ada', x'00', '[1,2]', 0, '[]', ?)`,
    args: [DOCS.scan, at.toISOString()],
  });
  await must('mutation', 'documents.publish', { documentId: DOCS.graces }, grace);
  await shareDocument(db, DOCS.graces, 'user-ada', at);
  s.app.library.indexer.kick();
  await s.app.library.indexer.idle();
  await must('mutation', 'documents.remove', { documentId: DOCS.removed }, ada);
  run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
  graceRun = await s.acceptRun(grace, { documentId: DOCS.graces, mode: 'chat' });
});
afterAll(async () => {
  await s?.close();
});

describe('library.search', () => {
  it("finds the run owner's own documents only, never another owner's public or shared ones", async () => {
    const hits: Json[] = await must('query', 'library.search', { query: TERM, limit: 20 });
    // The two that hold the term first (meaning-based ranking may add others of Ada's after them).
    expect(
      hits
        .slice(0, 2)
        .map((h) => h.documentId)
        .sort(),
    ).toEqual([DOCS.pdf, DOCS.text]);
    const owners = await s.app.app.execute({
      sql: 'SELECT DISTINCT owner_id FROM documents WHERE id IN (SELECT value FROM json_each(?))',
      args: [JSON.stringify(hits.map((h) => h.documentId))],
    });
    expect(owners.rows.map((r) => r.owner_id)).toEqual(['user-ada']);
    expect(hits.map((h) => h.documentId)).not.toContain(DOCS.graces);
    for (const h of hits) {
      expect(Object.keys(h).sort()).toEqual([
        'documentId',
        'end',
        'page',
        'passage',
        'score',
        'start',
        'title',
      ]);
    }
    for (const h of hits.slice(0, 2)) expect(h.passage).toContain(TERM);
    expect(hits.find((h) => h.documentId === DOCS.text)).toMatchObject({ title: 'Field notes', page: 1 });
    // Narrowed to Grace's document (shared with Ada and published): no hits, never an error.
    expect(await must('query', 'library.search', { query: TERM, documentId: DOCS.graces })).toEqual([]);
    // Grace's run finds hers and none of Ada's.
    const graces: Json[] = await must(
      'query',
      'library.search',
      { query: TERM, limit: 20 },
      graceRun.runToken,
    );
    expect(graces[0].documentId).toBe(DOCS.graces);
    expect(graces.map((h) => h.documentId)).not.toContain(DOCS.pdf);
    expect(graces.map((h) => h.documentId)).not.toContain(DOCS.text);
  });

  it('gives each hit its page and span in the document', async () => {
    const [hit] = await must('query', 'library.search', {
      query: 'settlement tiles recruits',
      documentId: DOCS.pdf,
    });
    expect(hit).toMatchObject({ documentId: DOCS.pdf, title: 'Recovery transects', page: 4 });
    const read = await must('query', 'library.read', {
      documentId: DOCS.pdf,
      start: hit.start,
      length: hit.end - hit.start,
    });
    expect(read.text).toBe(hit.passage);
  });

  it('takes no owner, no limit past 20 and no unknown field', async () => {
    for (const input of [
      { query: TERM, limit: 21 },
      { query: TERM, ownerId: 'user-grace' },
      { query: '  ' },
    ]) {
      expect(refusal(await call('query', 'library.search', input))).toEqual(['BAD_REQUEST', 'invalid_input']);
    }
  });
});

describe('library.read', () => {
  it('reads from the start of the document, or of a page, with the page and span', async () => {
    const whole = await must('query', 'library.read', { documentId: DOCS.pdf });
    const text = PAGES.join('\n\n');
    expect(whole).toEqual({
      documentId: DOCS.pdf,
      title: 'Recovery transects',
      page: 1,
      pages: 5,
      start: 0,
      end: text.length,
      text,
      more: false,
    });
    const pageStart = PAGES.slice(0, 2).join('\n\n').length + 2;
    const p3 = await must('query', 'library.read', { documentId: DOCS.pdf, page: 3, start: 7, length: 20 });
    expect(p3).toMatchObject({ page: 3, pages: 5, start: pageStart + 7, end: pageStart + 27, more: true });
    expect(p3.text).toBe(PAGES[2]!.slice(7, 27));
    // A start past its page's end reads on into the next page, and says which page it starts on.
    const next = await must('query', 'library.read', {
      documentId: DOCS.pdf,
      page: 3,
      start: PAGES[2]!.length + 2,
    });
    expect(next).toMatchObject({ page: 4, text: PAGES.slice(3).join('\n\n') });
  });

  it('returns at most 4,000 characters and says whether the document goes on', async () => {
    const first = await must('query', 'library.read', { documentId: DOCS.long });
    expect(first).toMatchObject({ start: 0, end: 4_000, more: true, page: 1, pages: 1 });
    expect(first.text).toBe(LONG_TEXT.slice(0, 4_000));
    const last = await must('query', 'library.read', { documentId: DOCS.long, start: LONG_TEXT.length - 10 });
    expect(last).toMatchObject({ end: LONG_TEXT.length, more: false, text: LONG_TEXT.slice(-10) });
    const r = await call('query', 'library.read', { documentId: DOCS.long, length: 4_001 });
    expect(refusal(r)).toEqual(['BAD_REQUEST', 'invalid_input']);
  });

  it('refuses a page or a start past the end, in words', async () => {
    const page = await call('query', 'library.read', { documentId: DOCS.pdf, page: 6 });
    expect(refusal(page)).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(page.error?.message).toMatch(/has 5 pages; page 6 is past its end/);
    const onePage = await call('query', 'library.read', { documentId: DOCS.text, page: 2 });
    expect(onePage.error?.message).toMatch(/has 1 page; page 2 is past its end/);
    const start = await call('query', 'library.read', { documentId: DOCS.long, start: LONG_TEXT.length });
    expect(refusal(start)).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(start.error?.message).toMatch(/start: the document has [\d,]+ characters/);
  });

  it("answers another owner's, a shared, a public, a removed and a missing document alike: NOT_FOUND", async () => {
    const answers = [];
    for (const documentId of [DOCS.graces, 'doc-seagrass-carbon', DOCS.removed, 'doc-no-such-document']) {
      const r = await call('query', 'library.read', { documentId });
      answers.push([r.status, r.error?.data.code, r.error?.data.reason, r.error?.message]);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.slice(0, 3)).toEqual([404, 'NOT_FOUND', 'not_found']);
    // Grace's run reads hers.
    const hers = await must('query', 'library.read', { documentId: DOCS.graces }, graceRun.runToken);
    expect(hers.text).toBe(GRACE_TEXT);
  });

  it('refuses a document with no text yet, saying why', async () => {
    const r = await call('query', 'library.read', { documentId: DOCS.scan });
    expect(refusal(r)).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(r.error?.message).toMatch(/no text yet: OCR is reading its scanned pages \(0 of 2\)/);
  });

  it('is for run tokens only: owners, their API keys and the runtime key are refused', async () => {
    const key = (await must('mutation', 'auth.createApiKey', { label: 'tools' }, ada)).apiKey as string;
    for (const token of [ada, key, TEST_RUNTIME_KEY]) {
      expect(refusal(await call('query', 'library.read', { documentId: DOCS.pdf }, token))).toEqual([
        'FORBIDDEN',
        'forbidden',
      ]);
    }
    const none = await s.call('query', 'library.search', { query: TERM });
    expect(refusal(none)).toEqual(['UNAUTHORIZED', 'unauthenticated']);
  });
});

describe('library cards in the transcript', () => {
  it('shows each search and read, in time order with the messages, titled while the document is there', async () => {
    const { runId, token } = await askedRun('What limits recovery?');
    const found: Json[] = await must('query', 'library.search', { query: TERM }, token);
    await must('query', 'library.search', { query: 'grazers', documentId: DOCS.pdf }, token);
    const read = await must('query', 'library.read', { documentId: DOCS.pdf, page: 4 }, token);
    await must('query', 'library.read', { documentId: DOCS.text }, token);
    // Refused calls leave no card.
    await call('query', 'library.read', { documentId: DOCS.graces }, token);
    await call('query', 'library.read', { documentId: DOCS.pdf, page: 9 }, token);
    await must('mutation', 'agent.say', { text: 'Grazers and larvae.' }, token);
    const items = await transcript(runId);
    expect(items.map((i) => [i.type, i.action ?? i.role])).toEqual([
      ['message', 'you'],
      ['library', 'searched'],
      ['library', 'searched'],
      ['library', 'read'],
      ['library', 'read'],
      ['message', 'agent'],
    ]);
    expect(items[1]).toEqual({
      type: 'library',
      action: 'searched',
      query: TERM,
      count: found.length,
      at: items[1].at,
    });
    expect(items[2]).toMatchObject({ query: 'grazers', documentId: DOCS.pdf, title: 'Recovery transects' });
    expect(items[3]).toEqual({
      type: 'library',
      action: 'read',
      documentId: DOCS.pdf,
      title: 'Recovery transects',
      page: 4,
      start: read.start,
      end: read.end,
      at: items[3].at,
    });
    // The title is read with the transcript: once the document is removed, the card has none.
    await must('mutation', 'documents.remove', { documentId: DOCS.text }, ada);
    const after = await transcript(runId);
    expect(after[4]).toMatchObject({ action: 'read', documentId: DOCS.text });
    expect(after[4]).not.toHaveProperty('title');
    expect(after[3]).toMatchObject({ title: 'Recovery transects' });
  });
});

describe('agent.say citations', () => {
  const cite = (page: number, quote: string, documentId = DOCS.pdf) => ({ documentId, page, quote });

  it('verifies a quote on the cited page ± 1, ignoring case and spacing, across a page break', async () => {
    const said = await must('mutation', 'agent.say', {
      text: 'Recovery needs grazers.',
      citations: [
        cite(4, 'Settlement tiles recorded 3.2 recruits per tile'),
        // Page 4's quote cited as page 3 and as page 5: the page before or after counts.
        cite(3, 'Settlement tiles recorded 3.2 recruits per tile'),
        cite(5, 'Settlement tiles recorded 3.2 recruits per tile'),
        cite(2, '  RECOVERY was   fastest\nwhere HERBIVORE density '),
        // The end of page 2 and the start of page 3, as one quote.
        cite(2, 'where herbivore density stayed high through the first winter'),
      ],
    });
    expect(said.citations.map((c: Json) => c.status)).toEqual([
      'verified',
      'verified',
      'verified',
      'verified',
      'verified',
    ]);
    // Support is the hosted runtime's word on a verified quote: none was sent, nothing was checked.
    expect(said.citations[3]).toEqual({
      ...cite(2, 'RECOVERY was   fastest\nwhere HERBIVORE density'),
      status: 'verified',
      support: 'unchecked',
    });
    expect(typeof said.at).toBe('string');
  });

  it('marks unverified a quote two pages off, an altered quote, a page it lacks, and documents not the owner’s own', async () => {
    const said = await must('mutation', 'agent.say', {
      text: 'Some of this is wrong.',
      citations: [
        cite(2, 'Settlement tiles recorded 3.2 recruits per tile'),
        cite(4, 'Settlement tiles recorded 4.2 recruits per tile'),
        cite(6, 'We conclude that recovery needs grazers'),
        cite(1, 'connectivity between reefs decides recovery', DOCS.graces),
        cite(1, 'Removed text about', DOCS.removed),
        cite(1, 'anything at all', 'doc-no-such-document'),
      ],
    });
    expect(said.citations.map((c: Json) => c.status)).toEqual(Array(6).fill('unverified'));
    // The same quote is verified on its own document, from Grace's own run.
    const hers = await must(
      'mutation',
      'agent.say',
      { text: 'Hers.', citations: [cite(1, 'connectivity between reefs decides recovery', DOCS.graces)] },
      graceRun.runToken,
    );
    expect(hers.citations[0].status).toBe('verified');
  });

  it('never verifies a quote under 20 characters or 4 words, found or not (SPEC §7b)', async () => {
    const said = await must('mutation', 'agent.say', {
      text: 'Short quotes.',
      citations: [
        cite(4, 'S'),
        cite(4, 'near healthy reefs'),
        cite(4, 'Settlement tiles recorded'),
        cite(5, 'needs grazers and a'),
        cite(4, 'near    healthy\n  reefs   '),
        // Just long enough: 22 characters, 4 words.
        cite(4, 'near healthy reefs and'),
      ],
    });
    const statuses = ['unverified', 'unverified', 'unverified', 'unverified', 'unverified', 'verified'];
    expect(said.citations.map((c: Json) => c.status)).toEqual(statuses);
    const reply = (await transcript()).find((i) => i.type === 'message' && i.text === 'Short quotes.');
    expect(reply.citations.map((c: Json) => c.status)).toEqual(statuses);
    // A short quote stored as verified before the rule (an older server) is not shown as verified.
    await s.app.app.execute({
      sql: `UPDATE message_citations SET status = 'verified' WHERE quote = 'S'`,
      args: [],
    });
    const reread = (await transcript()).find((i) => i.type === 'message' && i.text === 'Short quotes.');
    expect(reread.citations[0]).toMatchObject({ quote: 'S', status: 'unverified' });
  });

  it('takes no status from the caller', async () => {
    const r = await call('mutation', 'agent.say', {
      text: 'Trust me.',
      citations: [{ ...cite(2, 'nothing like this'), status: 'verified' }],
    });
    expect(refusal(r)).toEqual(['BAD_REQUEST', 'invalid_input']);
  });

  it("judges a note by the run's session: held → note, never held or removed → unverified", async () => {
    const marker = `mk${randomBytes(6).toString('hex')}`;
    const kept = `lead:${marker}-kept`;
    const gone = `lead:${marker}-gone`;
    const agent = s.client(run.runToken);
    const { session } = await agent.agent.load.query();
    const v1 = await agent.agent.remember.mutate({
      basedOn: session.version,
      requestId: `${marker}-1`,
      changes: [
        { op: 'add', name: kept, text: 'Grazers matter.' },
        { op: 'add', name: gone, text: 'To be removed.' },
      ],
    });
    await agent.agent.remember.mutate({
      basedOn: v1.version,
      requestId: `${marker}-2`,
      changes: [{ op: 'remove', name: gone }],
    });
    const said = await must('mutation', 'agent.say', {
      text: `Noted. ${marker}`,
      citations: [
        { note: kept },
        { note: gone },
        { note: `lead:${marker}-never` },
        cite(4, 'near healthy reefs and almost none'),
      ],
    });
    expect(said.citations).toEqual([
      { note: kept, status: 'note' },
      { note: gone, status: 'unverified' },
      { note: `lead:${marker}-never`, status: 'unverified' },
      { ...cite(4, 'near healthy reefs and almost none'), status: 'verified', support: 'unchecked' },
    ]);
    const reply = (await transcript()).find((i) => i.type === 'message' && i.text === `Noted. ${marker}`);
    expect(reply.citations).toEqual([
      { note: kept, status: 'note' },
      { note: gone, status: 'unverified' },
      // A name the session never held is kept nowhere.
      { status: 'unverified' },
      {
        ...cite(4, 'near healthy reefs and almost none'),
        title: 'Recovery transects',
        status: 'verified',
        support: 'unchecked',
      },
    ]);
    // Note names are never copied into the application database: Forget now takes them from the transcript.
    expect(await rowsMentioning(s.app.app, [marker + '-'])).toEqual([]);
    await must('mutation', 'memory.forget', { sessionId: run.sessionId }, ada);
    const forgotten = (await transcript()).find((i) => i.type === 'message' && i.text === `Noted. ${marker}`);
    expect(forgotten.citations.slice(0, 3)).toEqual([
      { status: 'note' },
      { status: 'unverified' },
      { status: 'unverified' },
    ]);
  });

  it('returns the citations with the reply: titles while the document is the owner’s, quotes gone with a removed document', async () => {
    const { runId, token } = await askedRun('Cite it.');
    await must(
      'mutation',
      'documents.add',
      { title: 'Cited then removed', text: `Cited words about ${TERM}.` },
      ada,
    );
    const docs: Json[] = await must('query', 'documents.list', undefined, ada);
    const cited = docs.find((d) => d.title === 'Cited then removed').id as string;
    await must(
      'mutation',
      'agent.say',
      {
        text: 'Cited.',
        citations: [
          cite(1, `cited words about ${TERM}`, cited),
          cite(1, 'connectivity between reefs', DOCS.graces),
        ],
      },
      token,
    );
    const reply = (await transcript(runId)).at(-1);
    expect(reply).toMatchObject({ type: 'message', role: 'agent', text: 'Cited.' });
    expect(reply.citations).toEqual([
      {
        documentId: cited,
        title: 'Cited then removed',
        page: 1,
        quote: `cited words about ${TERM}`,
        status: 'verified',
        support: 'unchecked',
      },
      // Not Ada's: no title, whatever she may read of it elsewhere.
      {
        documentId: DOCS.graces,
        page: 1,
        quote: 'connectivity between reefs',
        status: 'unverified',
        support: 'unchecked',
      },
    ]);
    // A reply without citations has no citations field.
    expect((await transcript(runId))[0]).not.toHaveProperty('citations');
    await must('mutation', 'documents.remove', { documentId: cited }, ada);
    expect((await transcript(runId)).at(-1).citations[0]).toEqual({
      documentId: cited,
      page: 1,
      status: 'verified',
      support: 'unchecked',
    });
    expect(await rowsMentioning(s.app.app, [`cited words about ${TERM}`])).toEqual([]);
  });
});
