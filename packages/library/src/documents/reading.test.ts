/**
 * One page of a document for whoever may read it (the review dialog's cited page): cut out of the
 * stored text by the database, at the page's stored start, so the rest of the text never leaves
 * it. Pages with characters outside the Basic Multilingual Plane (math letters, emoji) come out
 * exact, also from a document stored before their starts were kept in the database's own count.
 */
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../testing/database.ts';
import { isLibraryError } from '../errors.ts';
import { insertDocument, publishDocument, removeDocument } from './documents.ts';
import { readVisiblePage } from './reading.ts';
import { shareDocument } from './sharing.ts';

const AT = new Date('2026-03-09T10:00:00Z');
const PAGES = [
  'Page one: the reef survey.',
  'Page two: 𝑥 = 4 °C and 🐟 counts; sea otters eat urchins.',
  '',
  'Page four, after an empty third page: 𝛼 and 𝛽, then the end.',
];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function library() {
  const t = await openTestDatabase(createLocalEmbeddingAdapter(), {
    owners: [
      { id: 'ada', name: 'Ada' },
      { id: 'grace', name: 'Grace' },
      { id: 'alan', name: 'Alan' },
    ],
  });
  cleanups.push(() => t.close());
  await insertDocument(
    t.db,
    { id: 'reef', ownerId: 'ada', title: 'Reef survey', authors: [], abstract: '', pages: PAGES },
    AT,
  );
  return t.db;
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  if (!isLibraryError(error)) throw error;
  return [error.reason, error.message];
}

describe('readVisiblePage', () => {
  it('reads each page exactly, astral characters before it or not', async () => {
    const db = await library();
    for (const [i, text] of PAGES.entries()) {
      expect(await readVisiblePage(db, 'ada', { documentId: 'reef', page: i + 1 })).toEqual({
        documentId: 'reef',
        title: 'Reef survey',
        page: i + 1,
        pages: 4,
        text,
        ocr: false,
      });
    }
  });

  it('reads a document stored before the database kept its own page starts, and keeps them then', async () => {
    const db = await library();
    await db.execute("UPDATE document_texts SET page_starts_cp = NULL WHERE document_id = 'reef'");
    expect((await readVisiblePage(db, 'ada', { documentId: 'reef', page: 4 })).text).toBe(PAGES[3]);
    const kept = await db.execute("SELECT page_starts_cp FROM document_texts WHERE document_id = 'reef'");
    expect(kept.rows[0]?.page_starts_cp).not.toBeNull();
    expect((await readVisiblePage(db, 'ada', { documentId: 'reef', page: 2 })).text).toBe(PAGES[1]);
  });

  it('is for whoever may read the document: its owner, a share, a publication', async () => {
    const db = await library();
    expect(await refusal(readVisiblePage(db, 'grace', { documentId: 'reef', page: 1 }))).toEqual([
      'not_found',
      'The document was not found.',
    ]);
    await shareDocument(db, 'reef', 'grace', AT);
    expect((await readVisiblePage(db, 'grace', { documentId: 'reef', page: 1 })).text).toBe(PAGES[0]);
    await publishDocument(db, 'reef', AT);
    expect((await readVisiblePage(db, 'alan', { documentId: 'reef', page: 1 })).text).toBe(PAGES[0]);
    await removeDocument(db, 'reef', AT);
    expect((await refusal(readVisiblePage(db, 'ada', { documentId: 'reef', page: 1 })))[0]).toBe('not_found');
  });

  it('says in words when the page is past the end, and marks a page OCR read', async () => {
    const db = await library();
    expect(await refusal(readVisiblePage(db, 'ada', { documentId: 'reef', page: 5 }))).toEqual([
      'invalid_input',
      'page: the document has 4 pages; page 5 is past its end.',
    ]);
    await db.execute(`UPDATE documents SET ocr_pages = '[2]' WHERE id = 'reef'`);
    expect((await readVisiblePage(db, 'ada', { documentId: 'reef', page: 2 })).ocr).toBe(true);
    expect((await readVisiblePage(db, 'ada', { documentId: 'reef', page: 1 })).ocr).toBe(false);
  });
});
