import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { applyMigrations, openDatabase } from '@oh/memory';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLibrary } from '../library.ts';
import type { Library, UploadFile } from '../library.ts';
import { LIBRARY_ALONE } from '../migrations.ts';
import { openTestDatabase } from '../testing/database.ts';
import { prepareDocumentIndex } from '../search/index-store.ts';
import { addOwner } from '../alone.ts';
import { makePdf } from '@sponge/testing/pdf-fixtures';
import { DEFAULT_LIBRARY_QUOTAS } from '../limits.ts';
import { beginExtractionStatements } from '../uploads/extraction-store.ts';
import { getVisibleDocument, listVisibleDocuments } from './documents.ts';
import { citationKeyBase, cleanMetadata } from './metadata.ts';

const adapter = createLocalEmbeddingAdapter();
const log = { warn: () => {}, error: () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function library(): Promise<{ db: Client; library: Library }> {
  const test = await openTestDatabase(adapter, {
    owners: [
      { id: 'ada', name: 'Ada' },
      { id: 'bob', name: 'Bob' },
    ],
  });
  cleanups.push(() => test.close());
  const lib = createLibrary({ db: test.db, adapter, log });
  cleanups.push(() => lib.close());
  return { db: test.db, library: lib };
}

const text = (words: string) => ({ title: 'Untitled', authors: [], source: 'text' as const, pages: [words] });

function textFile(content: string, filename = 'notes.txt'): UploadFile {
  return {
    bytes: new TextEncoder().encode(content),
    filename,
    mediaType: 'text/plain',
    title: undefined,
    fallbackTitle: filename.replace(/\.[a-z]+$/, ''),
  };
}

async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    const e = err as { reason?: string; existingId?: string; message: string };
    return { reason: e.reason, existingId: e.existingId, message: e.message };
  }
  throw new Error('expected a refusal');
}

async function rows(db: Client, ownerId: string): Promise<number> {
  const rs = await db.execute({
    sql: 'SELECT count(*) AS n FROM documents WHERE owner_id = ?',
    args: [ownerId],
  });
  return Number(rs.rows[0]!.n);
}

describe('citation keys', () => {
  it('are the first author’s family name in ASCII with the year, else the first title word', () => {
    expect(citationKeyBase(['Hughes, Terry P.'], 'Global warming', 2017)).toBe('hughes2017');
    expect(citationKeyBase(['Terry P. Hughes Jr.'], 'Global warming', 2017)).toBe('hughes2017');
    expect(citationKeyBase(['Jörg Müller-Lüdenscheidt'], 'x', null)).toBe('mullerludenscheidt');
    expect(citationKeyBase([], 'The Kelp Forests of Chile', 2001)).toBe('kelp2001');
    expect(citationKeyBase([], 'gnu-standards', null)).toBe('gnu');
    expect(citationKeyBase([], '…', null)).toBe('doc');
  });

  it('are unique in the owner’s library (a, b… after the first) and never change with an edit', async () => {
    const { db, library: lib } = await library();
    const meta = { authors: ['Hughes, T. P.'], year: 2017 };
    const first = await lib.add('ada', { ...text('one'), metadata: meta }, new Date());
    const second = await lib.add('ada', { ...text('two'), metadata: meta }, new Date());
    const third = await lib.add('ada', { ...text('three'), metadata: meta }, new Date());
    const other = await lib.add('bob', { ...text('one'), metadata: meta }, new Date());
    const keys = async (owner: string) =>
      Object.fromEntries((await listVisibleDocuments(db, owner)).map((d) => [d.id, d.citationKey]));
    expect(await keys('ada')).toEqual({
      [first.id]: 'hughes2017',
      [second.id]: 'hughes2017a',
      [third.id]: 'hughes2017b',
    });
    expect(await keys('bob')).toEqual({ [other.id]: 'hughes2017' });
    const edited = await lib.update('ada', second.id, { authors: ['Smith, J.'], year: 1999 });
    expect(edited.citationKey).toBe('hughes2017a');
  });
});

describe('metadata on add and upload', () => {
  it('keeps what the caller says, cleaned, over the file name', async () => {
    const { db, library: lib } = await library();
    const added = await lib.upload('ada', textFile('Coral bleaching in 2016.'), {
      metadata: {
        title: 'Global warming and recurrent mass bleaching of corals',
        authors: ['Hughes, Terry P.', 'Kerry, James T.'],
        year: 2017,
        doi: 'https://doi.org/10.1038/NATURE21707',
        venue: 'Nature',
        abstract:
          'During 2015–2016, record temperatures triggered a pan-tropical episode of coral bleaching.',
        tags: ['#corals', 'Corals', 'bleaching'],
      },
    });
    const doc = await getVisibleDocument(db, 'ada', added.id);
    expect(doc).toMatchObject({
      title: 'Global warming and recurrent mass bleaching of corals',
      authors: ['Hughes, Terry P.', 'Kerry, James T.'],
      year: 2017,
      doi: '10.1038/nature21707',
      venue: 'Nature',
      abstract: 'During 2015–2016, record temperatures triggered a pan-tropical episode of coral bleaching.',
      tags: ['corals', 'bleaching'],
      citationKey: 'hughes2017',
    });
  });

  it('keeps what a PDF says it is (its Info, XMP, a DOI on its pages), refusing it again by that DOI', async () => {
    const { db, library: lib } = await library();
    const bytes = new Uint8Array(await readFile(new URL('../extract/fixtures/xmp.pdf', import.meta.url)));
    const file = { ...textFile(''), bytes, filename: 'scan-0042.pdf', mediaType: 'application/pdf' };
    const added = await lib.upload('ada', file, { metadata: { tags: ['kelp'] } });
    expect(await getVisibleDocument(db, 'ada', added.id)).toMatchObject({
      title: 'Kelp Forests Return after Urchin Removal',
      authors: ['Chen Li', 'Dana Roe'],
      year: 2023,
      doi: '10.5555/exl.2023.7',
      venue: 'Example Letters in Ecology',
      tags: ['kelp'],
      citationKey: 'li2023',
    });
    const pasted = { ...text('Kelp returns.'), metadata: { doi: 'https://doi.org/10.5555/EXL.2023.7' } };
    expect(await refusal(lib.add('ada', pasted, new Date()))).toMatchObject({
      reason: 'duplicate',
      existingId: added.id,
      message: 'Already in your library: Li and Roe 2023 — "Kelp Forests Return after Urchin Removal"',
    });
  });

  it('drops what is no metadata at all (a file may say anything)', () => {
    expect(
      cleanMetadata({
        year: 99999,
        doi: 'not a doi',
        authors: ['', 'A\u202EB', 'A\u202EB', 7],
        tags: 'x',
        venue: 3,
      }),
    ).toEqual({ authors: ['AB'] });
    expect(cleanMetadata(null)).toEqual({});
    expect(cleanMetadata({ year: '2017' })).toEqual({ year: 2017 });
  });
});

describe('duplicates (SPEC §6d)', () => {
  it('refuses the same bytes again with the existing id, storing nothing', async () => {
    const { db, library: lib } = await library();
    const first = await lib.upload('ada', textFile('Kelp canopy returned after the storm.'), {
      metadata: {
        authors: ['Hughes, Terry P.', 'Kerry, J.', 'Baird, A.'],
        year: 2017,
        title: 'Global warming and recurrent mass bleaching of corals in the Great Barrier Reef',
      },
    });
    const before = await rows(db, 'ada');
    expect(
      await refusal(lib.upload('ada', textFile('Kelp canopy returned after the storm.', 'again.txt'))),
    ).toEqual({
      reason: 'duplicate',
      existingId: first.id,
      message:
        'Already in your library: Hughes et al. 2017 — "Global warming and recurrent mass bleaching of corals in the…"',
    });
    expect(await rows(db, 'ada')).toBe(before);
    expect(lib.uploads.stats()).toMatchObject({ running: 0 });
    // Another owner's library is theirs: the same file is new there.
    await expect(lib.upload('bob', textFile('Kelp canopy returned after the storm.'))).resolves.toBeTruthy();
  });

  it('refuses the same pasted text, and the same DOI however it is written', async () => {
    const { db, library: lib } = await library();
    const first = await lib.add(
      'ada',
      { ...text('Urchins graze kelp.'), metadata: { doi: '10.1000/abc' } },
      new Date(),
    );
    expect(await refusal(lib.add('ada', text('Urchins graze kelp.'), new Date()))).toMatchObject({
      reason: 'duplicate',
      existingId: first.id,
    });
    expect(
      await refusal(
        lib.add('ada', { ...text('Other words.'), metadata: { doi: 'doi:10.1000/ABC' } }, new Date()),
      ),
    ).toMatchObject({
      reason: 'duplicate',
      existingId: first.id,
      message: 'Already in your library: "Untitled"',
    });
    expect(
      await refusal(
        lib.upload('ada', textFile('A third text.'), { metadata: { doi: 'https://doi.org/10.1000/abc' } }),
      ),
    ).toMatchObject({ reason: 'duplicate', existingId: first.id });
    expect(await rows(db, 'ada')).toBe(1);
  });

  it('refuses a PDF whose DOI the owner has once it is read, leaving no row, no job and no queue slot', async () => {
    const { db, library: lib } = await library();
    const first = await lib.add(
      'ada',
      { ...text('Kelp.'), metadata: { doi: '10.1038/nature21707' } },
      new Date(),
    );
    const pdf = await makePdf(['Global warming and recurrent mass bleaching of corals.']);
    const file = { ...textFile(''), bytes: pdf, filename: 'hughes.pdf', mediaType: 'application/pdf' };
    expect(
      await refusal(lib.upload('ada', file, { metadata: { doi: 'https://doi.org/10.1038/nature21707' } })),
    ).toMatchObject({ reason: 'duplicate', existingId: first.id });
    expect(await rows(db, 'ada')).toBe(1);
    const jobs = await db.execute('SELECT count(*) AS n FROM extraction_jobs');
    expect(Number(jobs.rows[0]!.n)).toBe(0);
    expect(lib.uploads.stats()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('stores one of two identical documents added at once: the database refuses the second', async () => {
    const { db, library: lib } = await library();
    const both = await Promise.allSettled([
      lib.add('ada', text('Added twice at once.'), new Date()),
      lib.add('ada', text('Added twice at once.'), new Date()),
    ]);
    const added = both.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : []));
    const refused = both.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as { reason: string; existingId: string }] : [],
    );
    expect(added).toHaveLength(1);
    expect(refused).toMatchObject([{ reason: 'duplicate', existingId: added[0] }]);
    expect(await rows(db, 'ada')).toBe(1);
  });

  it('lets a removed document be added again', async () => {
    const { db, library: lib } = await library();
    const first = await lib.add('ada', text('Urchins graze kelp.'), new Date());
    const { removeDocument } = await import('./documents.ts');
    await removeDocument(db, first.id, new Date());
    await expect(lib.add('ada', text('Urchins graze kelp.'), new Date())).resolves.toBeTruthy();
  });
});

describe('documents.update', () => {
  it('replaces each field given, the tags as a set, and answers the document as it stands', async () => {
    const { library: lib } = await library();
    const { id } = await lib.add(
      'ada',
      { ...text('Kelp.'), metadata: { tags: ['kelp', 'chile'] } },
      new Date(),
    );
    const doc = await lib.update('ada', id, {
      title: 'Kelp forests',
      authors: ['Ada Lovelace'],
      year: 2001,
      doi: '10.5555/kelp',
      venue: 'Marine Ecology',
      abstract: 'Forests of kelp.',
      tags: ['chile', 'urchins'],
    });
    expect(doc).toMatchObject({
      title: 'Kelp forests',
      authors: ['Ada Lovelace'],
      year: 2001,
      doi: '10.5555/kelp',
      venue: 'Marine Ecology',
      abstract: 'Forests of kelp.',
      tags: ['chile', 'urchins'],
      citationKey: 'untitled',
    });
    expect(await lib.update('ada', id, { year: null, doi: null })).toMatchObject({ year: null, doi: null });
    expect(await lib.update('ada', id, { tags: [] })).toMatchObject({ tags: [], title: 'Kelp forests' });
  });

  it('refuses an abstract that would take the owner past the chunk quota, changing nothing', async () => {
    const test = await openTestDatabase(adapter, { owners: [{ id: 'ada', name: 'Ada' }] });
    cleanups.push(() => test.close());
    const lib = createLibrary({
      db: test.db,
      adapter,
      log,
      quotas: { ...DEFAULT_LIBRARY_QUOTAS, chunks: 6 },
    });
    cleanups.push(() => lib.close());
    const { id } = await lib.add('ada', text('Kelp.'), new Date());
    await lib.indexer.idle();
    // A few sentences fit; 20,000 characters are about 25 more passages than the quota's 6.
    await expect(lib.update('ada', id, { abstract: 'Forests of kelp.' })).resolves.toBeTruthy();
    await lib.indexer.idle();
    const long = Array.from({ length: 400 }, (_, i) => `Sentence ${i} about kelp canopies.`).join(' ');
    expect(
      await refusal(
        lib.update('ada', id, { abstract: long.slice(0, 20_000), venue: 'Nature', tags: ['kelp'] }),
      ),
    ).toMatchObject({
      reason: 'quota',
      message: expect.stringMatching(
        /^Your library holds \d+ search passages \(chunks\); this abstract adds \d+, past the limit of 6\./,
      ),
    });
    const doc = await getVisibleDocument(test.db, 'ada', id);
    expect([doc?.abstract, doc?.venue, doc?.tags, doc?.index.state]).toEqual([
      'Forests of kelp.',
      '',
      [],
      'ready',
    ]);
  });

  it('waits for an upload to be read: its details are the file’s until then', async () => {
    const { db, library: lib } = await library();
    await db.batch(
      beginExtractionStatements(
        { id: 'doc_reading', ownerId: 'ada', title: 'scan', source: 'pdf', sha256: 'x' },
        new Date(),
        DEFAULT_LIBRARY_QUOTAS,
      ),
      'write',
    );
    expect(await refusal(lib.update('ada', 'doc_reading', { title: 'Mine' }))).toEqual({
      reason: 'invalid_input',
      existingId: undefined,
      message: 'This document is still being read; edit its details once it is in your library.',
    });
  });

  it('is the owner’s only: another owner, a removed or unknown document is not found, changing nothing', async () => {
    const { db, library: lib } = await library();
    const { id } = await lib.add('ada', text('Kelp.'), new Date());
    expect(await refusal(lib.update('bob', id, { title: 'Mine now' }))).toMatchObject({
      reason: 'not_found',
    });
    expect(await refusal(lib.update('ada', 'doc_none', { title: 'x' }))).toMatchObject({
      reason: 'not_found',
    });
    expect((await getVisibleDocument(db, 'ada', id))?.title).toBe('Untitled');
  });

  it('refuses a DOI another of the owner’s documents has, with its id', async () => {
    const { library: lib } = await library();
    const first = await lib.add('ada', { ...text('One.'), metadata: { doi: '10.1000/one' } }, new Date());
    const second = await lib.add('ada', text('Two.'), new Date());
    expect(await refusal(lib.update('ada', second.id, { doi: '10.1000/one' }))).toMatchObject({
      reason: 'duplicate',
      existingId: first.id,
    });
    // Its own DOI again is no duplicate.
    await expect(lib.update('ada', first.id, { doi: '10.1000/one', venue: 'V' })).resolves.toMatchObject({
      venue: 'V',
    });
  });

  it('indexes a ready document again when its title changes, so search finds the new one', async () => {
    const { library: lib } = await library();
    const { id } = await lib.add('ada', text('Urchin barrens spread along the coast.'), new Date());
    await lib.indexer.idle();
    const doc = await lib.update('ada', id, { title: 'Sea otters', abstract: 'Otters eat urchins.' });
    expect(doc.index.state).toBe('indexing');
    await lib.indexer.idle();
    const [hit] = await lib.search.search('ada', 'otters', 5);
    expect(hit).toMatchObject({ documentId: id, title: 'Sea otters' });
  });
});

describe('an edit while the document is being indexed', () => {
  it('takes the indexer’s lease away, so the document is indexed again with its new title', async () => {
    const { db, library: lib } = await library();
    const { id } = await lib.add('ada', text('Urchin barrens spread along the coast.'), new Date());
    await lib.indexer.idle();
    // As while another process indexes the text as it was: its lease held for an hour.
    await db.batch(
      [
        { sql: `UPDATE documents SET index_state = 'indexing' WHERE id = ?`, args: [id] },
        {
          sql: `INSERT INTO work_leases (work, document_id, holder, until_ms) VALUES ('index', ?, 'elsewhere', ?)`,
          args: [id, Date.now() + 3_600_000],
        },
      ],
      'write',
    );
    await lib.update('ada', id, { title: 'Sea otters' });
    const lease = await db.execute({
      sql: `SELECT 1 FROM work_leases WHERE document_id = ? AND holder = 'elsewhere'`,
      args: [id],
    });
    expect(lease.rows).toEqual([]);
    lib.indexer.kick();
    await lib.indexer.idle();
    expect((await getVisibleDocument(db, 'ada', id))?.index.state).toBe('ready');
    expect((await lib.search.search('ada', 'sea otters', 5))[0]).toMatchObject({
      documentId: id,
      title: 'Sea otters',
    });
  });
});

describe('tags in search', () => {
  it('narrows documents.search to the documents with the tag, any case or #', async () => {
    const { library: lib } = await library();
    const reef = await lib.add(
      'ada',
      { ...text('Kelp and coral reefs bleach.'), metadata: { tags: ['Reefs'] } },
      new Date(),
    );
    await lib.add(
      'ada',
      { ...text('Kelp canopy and coral cover.'), metadata: { tags: ['kelp'] } },
      new Date(),
    );
    await lib.indexer.idle();
    expect((await lib.search.search('ada', 'kelp coral', 10)).length).toBe(2);
    const hits = await lib.search.search('ada', 'kelp coral', 10, { tag: '#reefs' });
    expect(hits.map((h) => h.documentId)).toEqual([reef.id]);
    expect(hits[0]).toMatchObject({ tags: ['Reefs'], citationKey: 'untitled' });
    expect(await lib.search.search('ada', 'kelp coral', 10, { tag: 'none' })).toEqual([]);
    expect(await lib.search.search('ada', 'kelp coral', 10, { tag: 'reefs', mode: 'vector' })).toHaveLength(
      1,
    );
    expect(await lib.search.search('ada', 'kelp coral', 10, { tag: 'reefs', mode: 'keyword' })).toHaveLength(
      1,
    );
  });
});

describe('migration 027 on a library made before it', () => {
  it('keeps every document, and gives each a citation key after the first read, which does not wait for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-metadata-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase({ url: `file:${join(dir, 'library.db')}` });
    cleanups.push(() => db.close());
    const index = LIBRARY_ALONE.migrations.findIndex(
      (m) => 'name' in m && m.name === '027_document_metadata',
    );
    expect(index).toBeGreaterThan(0);
    const before = LIBRARY_ALONE.migrations.slice(0, index);
    await applyMigrations(db, LIBRARY_ALONE.namespace, before);
    await prepareDocumentIndex(db, adapter, { ...LIBRARY_ALONE, migrations: before });
    await addOwner(db, { id: 'ada', name: 'Ada' });
    for (const [id, authors] of [
      ['doc_a', '["Hughes, T."]'],
      ['doc_b', '["Hughes, T."]'],
    ])
      await db.execute({
        sql: `INSERT INTO documents (id, owner_id, title, authors, text, created_at) VALUES (?, 'ada', 'Reefs', ?, 'x', ?)`,
        args: [id!, authors!, `2020-01-0${id === 'doc_a' ? 1 : 2}T00:00:00Z`],
      });
    await applyMigrations(db, LIBRARY_ALONE.namespace, LIBRARY_ALONE.migrations);
    const missing = async () =>
      Number((await db.execute('SELECT count(*) AS n FROM documents WHERE citation_key IS NULL')).rows[0]!.n);
    expect(await missing()).toBe(2);
    // The first read answers at once, without the keys, and gives them after it.
    const first = await listVisibleDocuments(db, 'ada');
    expect(first.map((d) => [d.id, d.citationKey, d.year, d.doi, d.venue, d.tags])).toEqual([
      ['doc_b', '', null, null, '', []],
      ['doc_a', '', null, null, '', []],
    ]);
    for (let waited = 0; (await missing()) > 0; waited += 10) {
      expect(waited).toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const listed = await listVisibleDocuments(db, 'ada');
    expect(listed.map((d) => d.citationKey).sort()).toEqual(['hughes', 'hughesa']);
    // Chosen once: read again, the same.
    expect((await getVisibleDocument(db, 'ada', 'doc_a'))?.citationKey).toBe(listed[1]!.citationKey);
  });
});
