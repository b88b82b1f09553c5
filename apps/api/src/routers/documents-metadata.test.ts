/**
 * What a document is, over HTTP (SPEC §6d, issue 41): the metadata in the library's view and
 * its owner's edit of it (`documents.update`), duplicates refused CONFLICT `duplicate` with the
 * existing document's id and nothing stored, and `documents.search` narrowed by a tag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';

let s: TestServer;
let ada: string;
let grace: string;

beforeAll(async () => {
  s = await startTestServer();
  ada = await s.login('user-ada');
  grace = await s.login('user-grace');
});
afterAll(async () => {
  await s?.close();
});

function textForm(name: string, text: string): FormData {
  const f = new FormData();
  f.append('file', new Blob([text], { type: 'text/plain' }), name);
  return f;
}

async function documentRows(): Promise<number> {
  const rs = await s.app.app.execute('SELECT count(*) AS n FROM documents');
  return Number(rs.rows[0]!.n);
}

describe('documents.update', () => {
  it('edits title, authors, year, DOI, venue, abstract and tags; the list and get show them, the key stays', async () => {
    const c = s.client(ada);
    const { id } = await c.documents.add.mutate({
      title: 'gnu-standards',
      text: 'Coding standards for GNU.',
    });
    const before = (await c.documents.list.query()).find((d) => d.id === id)!;
    expect(before).toMatchObject({
      year: null,
      doi: null,
      venue: '',
      abstract: '',
      tags: [],
      citationKey: 'gnu',
    });
    const updated = await c.documents.update.mutate({
      documentId: id,
      title: 'GNU Coding Standards',
      authors: ['Richard Stallman'],
      year: 1992,
      doi: 'https://doi.org/10.5555/GNU.1992',
      venue: 'Free Software Foundation',
      abstract: 'How GNU programs are written.',
      tags: ['#software', 'Software', 'style'],
    });
    const expected = {
      id,
      title: 'GNU Coding Standards',
      authors: ['Richard Stallman'],
      year: 1992,
      doi: '10.5555/gnu.1992',
      venue: 'Free Software Foundation',
      abstract: 'How GNU programs are written.',
      tags: ['software', 'style'],
      citationKey: 'gnu',
    };
    expect(updated).toMatchObject(expected);
    expect(updated).not.toHaveProperty('text');
    expect((await c.documents.list.query()).find((d) => d.id === id)).toMatchObject(expected);
    expect(await c.documents.get.query({ documentId: id })).toMatchObject(expected);
  });

  it('is NOT_FOUND for anyone but the owner and refuses bad fields in words, changing nothing', async () => {
    const { id } = await s.client(ada).documents.add.mutate({ title: 'Mine', text: 'Only mine to edit.' });
    const other = await s.call('mutation', 'documents.update', { documentId: id, title: 'Theirs' }, grace);
    expect([other.status, other.error?.data.reason]).toEqual([404, 'not_found']);
    const bad = await s.call('mutation', 'documents.update', { documentId: id, year: 20170, doi: 'x' }, ada);
    expect([bad.status, bad.error?.data.reason]).toEqual([400, 'invalid_input']);
    expect(bad.error?.message).toMatch(/year: year is 2100 or earlier/);
    expect(bad.error?.message).toMatch(/doi: expected a DOI like 10\.1038\/nature21707/);
    expect((await s.client(ada).documents.get.query({ documentId: id })).title).toBe('Mine');
  });
});

describe('duplicates', () => {
  it('an upload of the same bytes is CONFLICT duplicate with existingId, in words, and stores nothing', async () => {
    const c = s.client(ada);
    const first = await c.documents.upload.mutate(
      textForm('reef-notes.txt', 'Reef notes: bleaching in 2016.'),
    );
    const rows = await documentRows();
    const again = await s.call(
      'mutation',
      'documents.upload',
      textForm('copy.txt', 'Reef notes: bleaching in 2016.'),
      ada,
    );
    expect(again.status).toBe(409);
    expect(again.error?.data).toMatchObject({ code: 'CONFLICT', reason: 'duplicate', existingId: first.id });
    expect(again.error?.message).toBe('Already in your library: "reef-notes"');
    expect(await documentRows()).toBe(rows);
  });

  it('a pasted text with a DOI the owner has is refused too, and an edit to it', async () => {
    const c = s.client(ada);
    const { id } = await c.documents.add.mutate({ title: 'With a DOI', text: 'Text with its DOI.' });
    await c.documents.update.mutate({
      documentId: id,
      doi: '10.1038/nature21707',
      year: 2017,
      authors: ['Hughes, T. P.'],
    });
    const other = await c.documents.add.mutate({ title: 'Another', text: 'Another text.' });
    const edit = await s.call(
      'mutation',
      'documents.update',
      { documentId: other.id, doi: 'doi:10.1038/NATURE21707' },
      ada,
    );
    expect([edit.status, edit.error?.data.reason, edit.error?.data.existingId]).toEqual([
      409,
      'duplicate',
      id,
    ]);
    expect(edit.error?.message).toBe('Already in your library: Hughes 2017 — "With a DOI"');
  });
});

describe('tags in search', () => {
  it('documents.search({ query, tag }) narrows to the documents with that tag', async () => {
    const c = s.client(ada);
    const a = await c.documents.add.mutate({
      title: 'Otters',
      text: 'Sea otters keep urchin barrens in check.',
    });
    const b = await c.documents.add.mutate({
      title: 'Urchins',
      text: 'Urchin barrens spread where otters vanished.',
    });
    await c.documents.update.mutate({ documentId: a.id, tags: ['predators'] });
    await c.documents.update.mutate({ documentId: b.id, tags: ['grazers'] });
    await s.app.library.indexer.idle();
    const all = await c.documents.search.query({ query: 'otters urchin barrens' });
    expect(all.map((h) => h.documentId)).toEqual(expect.arrayContaining([a.id, b.id]));
    const tagged = await c.documents.search.query({ query: 'otters urchin barrens', tag: 'Predators' });
    expect(tagged.map((h) => h.documentId)).toEqual([a.id]);
    expect(tagged[0]).toMatchObject({ tags: ['predators'], citationKey: 'otters', year: null });
  });
});
