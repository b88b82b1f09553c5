/**
 * One page of a document (`documents.page`, issue 39): what the review dialog loads for a note's
 * cited page, for whoever may read the document, by a session or an API key. Page 1,900 of a
 * 2,000-page document of about a million characters comes out of the database alone: no value the
 * size of the whole text ever reaches the API (the dialog opened in 74 s when it did).
 */
import type { Client, ResultSet } from '@libsql/client';
import { insertDocument } from '@sponge/library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';

let s: TestServer;
let ada: string;
let grace: string;

// 2,000 pages of ~545 characters (1.09M in all), a mathematical letter on every tenth page so that
// JavaScript's and SQL's counts of the text differ as they do in a real paper.
const PAGES = Array.from({ length: 2000 }, (_, i) =>
  `Page ${i + 1}${i % 10 === 0 ? ' 𝛼' : ''}: ${'Kelp canopy cover was surveyed along the transect. '.repeat(10)}`.trim(),
);

beforeAll(async () => {
  [s, ada, grace] = await startSignedIn('user-ada', 'user-grace');
  await insertDocument(
    s.app.app,
    { id: 'doc-long', ownerId: 'user-ada', title: 'A long survey', authors: [], abstract: '', pages: PAGES },
    new Date('2026-03-09T10:00:00Z'),
  );
});
afterAll(() => s?.close());

/** The longest text value any statement returned to the API while `call` ran. */
async function longestValueRead(db: Client, call: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  const see = (rs: ResultSet) => {
    for (const row of rs.rows)
      for (const v of Object.values(row)) if (typeof v === 'string') longest = Math.max(longest, v.length);
    return rs;
  };
  const { execute, batch } = db;
  db.execute = async (...args: Parameters<Client['execute']>) => see(await execute.apply(db, args));
  db.batch = async (...args: Parameters<Client['batch']>) => (await batch.apply(db, args)).map(see);
  try {
    await call();
  } finally {
    db.execute = execute;
    db.batch = batch;
  }
  return longest;
}

describe('documents.page', () => {
  it('reads page 1,900 of 2,000 without the rest of the text leaving the database', async () => {
    const c = s.client(ada);
    let page: Awaited<ReturnType<typeof c.documents.page.query>> | undefined;
    const longest = await longestValueRead(s.app.app, async () => {
      page = await c.documents.page.query({ documentId: 'doc-long', page: 1900 });
    });
    expect(page).toEqual({
      documentId: 'doc-long',
      title: 'A long survey',
      page: 1900,
      pages: 2000,
      text: PAGES[1899],
      ocr: false,
    });
    expect(longest).toBeLessThan(2_000);
    // The measure sees a whole text when one is read.
    expect(
      await longestValueRead(s.app.app, () => c.documents.get.query({ documentId: 'doc-long' })),
    ).toBeGreaterThan(1_000_000);
    expect((await c.documents.page.query({ documentId: 'doc-long', page: 1901 })).text).toBe(PAGES[1900]);
  });

  it("is the owner's by an API key too, and anyone's the document is shared or published with", async () => {
    const key = await s.client(ada).auth.createApiKey.mutate({ label: 'page test' });
    const byKey = await s.call('query', 'documents.page', { documentId: 'doc-long', page: 2000 }, key.apiKey);
    expect(byKey.status).toBe(200);
    expect(byKey.data.text).toBe(PAGES[1999]);

    const hidden = await errorOf(s.client(grace).documents.page.query({ documentId: 'doc-long', page: 1 }));
    expect(hidden).toMatchObject({
      code: 'NOT_FOUND',
      reason: 'not_found',
      message: 'The document was not found.',
    });
    await s.client(ada).documents.share.mutate({ documentId: 'doc-long', userId: 'user-grace' });
    expect((await s.client(grace).documents.page.query({ documentId: 'doc-long', page: 1 })).text).toBe(
      PAGES[0],
    );
  });

  it('says in words when the page is past the end or not a page at all', async () => {
    const c = s.client(ada);
    expect(await errorOf(c.documents.page.query({ documentId: 'doc-long', page: 2001 }))).toMatchObject({
      code: 'BAD_REQUEST',
      reason: 'invalid_input',
      message: 'page: the document has 2,000 pages; page 2,001 is past its end.',
    });
    for (const page of [0, 1.5]) {
      const r = await s.call('query', 'documents.page', { documentId: 'doc-long', page }, ada);
      expect([r.status, r.error?.data.reason, r.error?.message], r.text).toEqual([
        400,
        'invalid_input',
        `Invalid input: page: ${page === 0 ? 'page is at least 1' : 'page is a whole number'}`,
      ]);
    }
    expect((await errorOf(c.documents.page.query({ documentId: 'doc-none', page: 1 }))).reason).toBe(
      'not_found',
    );
  });
});
