/**
 * A document's text lives apart from its row (migration 028, issue 41 point 9): an owner's library
 * of 10,000 documents of 60,000 characters made every add and every list walk each document's
 * text, stored in its row, to reach the columns after it. The quota check is answered from an
 * index alone, the list never reads a text, and a library made before the move reads the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, InStatement } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { applyMigrations, openDatabase } from '@oh/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { addOwner } from '../alone.ts';
import { createLibrary } from '../library.ts';
import { LIBRARY_ALONE } from '../migrations.ts';
import { DEFAULT_LIBRARY_QUOTAS } from '../limits.ts';
import { claimOcrJob, insertOcrJobStatement, savePage } from '../ocr/ocr-store.ts';
import { chunkDocument } from '../search/chunks.ts';
import { prepareDocumentIndex } from '../search/index-store.ts';
import { openTestDatabase } from '../testing/database.ts';
import { beginExtractionStatements } from '../uploads/extraction-store.ts';
import type { Lease } from '../work-lease.ts';
import {
  getVisibleDocument,
  insertDocument,
  joinPages,
  listVisibleDocuments,
  publishDocument,
  removeDocument,
} from './documents.ts';
import { readOwnPassage, readVisiblePage } from './reading.ts';
import { shareDocument } from './sharing.ts';
import { USAGE } from './rules.ts';

const adapter = createLocalEmbeddingAdapter();
const AT = new Date('2026-03-09T10:00:00Z');
const silent = { warn: () => {}, error: () => {} };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fresh(): Promise<Client> {
  const t = await openTestDatabase(adapter, { owners: [{ id: 'ada', name: 'Ada' }] });
  cleanups.push(() => t.close());
  return t.db;
}

/** `db`, with every statement it is given kept in `seen`. */
function recording(db: Client): { db: Client; seen: InStatement[] } {
  const seen: InStatement[] = [];
  const proxy = new Proxy(db, {
    get(target, key, receiver) {
      if (key === 'execute')
        return (stmt: InStatement) => {
          seen.push(stmt);
          return target.execute(stmt);
        };
      const v: unknown = Reflect.get(target, key, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { db: proxy, seen };
}

async function plan(db: Client, stmt: InStatement): Promise<string[]> {
  const { sql, args } = typeof stmt === 'string' ? { sql: stmt, args: [] } : stmt;
  const rs = await db.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: args ?? [] });
  return rs.rows.map((r) => String(r.detail));
}

async function columns(db: Client, table: string): Promise<string[]> {
  const rs = await db.execute(`SELECT name FROM pragma_table_info('${table}')`);
  return rs.rows.map((r) => String(r.name));
}

/** The plan of Ada's list, one document of hers in the library. */
async function listPlan(): Promise<string> {
  const db = await fresh();
  await insertDocument(
    db,
    { id: 'reef', ownerId: 'ada', title: 'Reef', authors: [], abstract: '', pages: ['x'] },
    AT,
  );
  const { db: watched, seen } = recording(db);
  await listVisibleDocuments(watched, 'ada');
  expect(seen).toHaveLength(1);
  return (await plan(db, seen[0]!)).join('\n');
}

describe("an owner's documents without their texts", () => {
  it("answers the owner's quota usage from a covering index, never the documents' rows", async () => {
    const db = await fresh();
    const steps = await plan(db, { sql: USAGE, args: ['ada'] });
    expect(steps.join('\n')).toMatch(
      /^SEARCH documents USING COVERING INDEX documents_usage \(owner_id=\?\)$/,
    );
  });

  it("lists the owner's documents without reading a text: the documents' rows hold none", async () => {
    const db = await fresh();
    await insertDocument(
      db,
      { id: 'reef', ownerId: 'ada', title: 'Reef', authors: [], abstract: '', pages: ['one', 'two'] },
      AT,
    );
    const { db: watched, seen } = recording(db);
    const listed = await listVisibleDocuments(watched, 'ada');
    expect(listed.map((d) => [d.id, d.pages, d.characters])).toEqual([['reef', 2, 8]]);
    expect(seen).toHaveLength(1);
    const list = seen[0]!;
    expect(typeof list === 'string' ? list : list.sql).not.toMatch(/document_texts/);
    expect((await plan(db, list)).join('\n')).not.toMatch(/document_texts/);
    const held = await columns(db, 'documents');
    expect(held).toContain('pages');
    for (const gone of ['text', 'page_starts', 'page_starts_cp']) expect(held).not.toContain(gone);
    expect(await columns(db, 'document_texts')).toEqual([
      'document_id',
      'text',
      'page_starts',
      'page_starts_cp',
    ]);
  });

  it("finds a reader's list from the reader, never by walking every owner's documents", async () => {
    const steps = await listPlan();
    expect(steps).not.toMatch(/SCAN d\b/);
    expect(steps).toMatch(/SEARCH d USING (COVERING )?INDEX \w+ \(owner_id=\?\)/);
  });

  it("reads the owner's documents in the list's order and their tags in theirs, sorting neither", async () => {
    const steps = await listPlan();
    expect(steps).toMatch(/SEARCH d USING INDEX documents_listed \(owner_id=\?\)/);
    expect(steps).toMatch(/SEARCH document_tags USING COVERING INDEX document_tags_order \(document_id=\?\)/);
    // One sort: of what others share or publish, found through the shares and publications.
    expect(steps.match(/USE TEMP B-TREE FOR ORDER BY/g)).toHaveLength(1);
  });

  it('lists the own and the shared or published in one order: most recently active, then title and id by their bytes', async () => {
    const db = await fresh();
    await addOwner(db, { id: 'bob', name: 'Bob' });
    const at = (minute: number) => new Date(AT.getTime() + minute * 60_000);
    const doc = (id: string, ownerId: string, title: string, minute: number) =>
      insertDocument(db, { id, ownerId, title, authors: [], abstract: '', pages: [id] }, at(minute));
    await doc('own-old', 'ada', 'Old', 0);
    await doc('own-z', 'ada', 'Zulu', 3);
    await doc('own-e', 'ada', 'Édition', 3); // 'É' is 0xC3 in UTF-8, after 'Z' (localeCompare puts it first)
    await doc('own-a', 'ada', 'apple', 3); // lowercase after uppercase
    await doc('bob-shared', 'bob', 'Shared', 1);
    await shareDocument(db, 'bob-shared', 'ada', at(2));
    await doc('bob-public', 'bob', 'apricot', 1); // between 'apple' and 'Édition'
    await publishDocument(db, 'bob-public', at(3));
    await doc('bob-newest', 'bob', 'Newest', 4);
    await publishDocument(db, 'bob-newest', at(4));
    await doc('bob-hidden', 'bob', 'Hidden', 5);
    const listed = await listVisibleDocuments(db, 'ada');
    expect(listed.map((d) => [d.id, d.access])).toEqual([
      ['bob-newest', 'public'],
      ['own-z', 'owner'],
      ['own-a', 'owner'],
      ['bob-public', 'public'],
      ['own-e', 'owner'],
      ['bob-shared', 'shared'],
      ['own-old', 'owner'],
    ]);
    // Bob's own list holds his four, the two shared or published to others among them.
    expect((await listVisibleDocuments(db, 'bob')).map((d) => d.id)).toEqual([
      'bob-hidden',
      'bob-newest',
      'bob-shared',
      'bob-public',
    ]);
  });

  it("lists each document as a read of it gives it, whatever its state, and Bob's as Bob may see them", async () => {
    const db = await fresh();
    await addOwner(db, { id: 'bob', name: 'Bob' });
    const doc = (id: string, ownerId = 'ada') =>
      insertDocument(
        db,
        { id, ownerId, title: id, authors: ['Hughes, T.'], abstract: 'A.', pages: [id] },
        AT,
      );
    await doc('ready');
    await db.batch(
      [
        `UPDATE documents SET index_state = 'ready', index_done = 1, index_total = 1, year = 2017,
           doi = '10.1/x', venue = 'Nature', ocr_note = 'page 3 left out' WHERE id = 'ready'`,
        `INSERT INTO document_tags (document_id, tag, folded, position) VALUES ('ready', 'Kelp', 'kelp', 1), ('ready', 'reef', 'reef', 0)`,
      ],
      'write',
    );
    await doc('failed');
    await db.execute(
      `UPDATE documents SET index_state = 'failed', index_error = 'no text' WHERE id = 'failed'`,
    );
    await doc('odd-authors');
    await db.execute(`UPDATE documents SET authors = 'not json' WHERE id = 'odd-authors'`);
    await doc('scanned');
    await db.batch(
      insertOcrJobStatement(
        {
          documentId: 'scanned',
          ownerId: 'ada',
          pdf: new Uint8Array([1]),
          pages: [1, 2, 3],
          note: 'over the cap',
        },
        AT,
      ),
      'write',
    );
    await db.batch(
      beginExtractionStatements(
        { id: 'reading', ownerId: 'ada', title: 'scan', source: 'pdf', sha256: 'x' },
        AT,
        DEFAULT_LIBRARY_QUOTAS,
      ),
      'write',
    );
    await doc('bobs-shared', 'bob');
    await shareDocument(db, 'bobs-shared', 'ada', new Date(AT.getTime() + 60_000));
    await doc('bobs-public', 'bob');
    await publishDocument(db, 'bobs-public', new Date(AT.getTime() + 120_000));
    for (const reader of ['ada', 'bob']) {
      const listed = await listVisibleDocuments(db, reader);
      expect(listed.length).toBe(reader === 'ada' ? 7 : 2);
      for (const item of listed) {
        const read = await getVisibleDocument(db, reader, item.id);
        expect(read).not.toBeNull();
        const { text: _t, pageStarts: _p, ocrPages: _o, memoryInStagedRuns: _m, ...summary } = read!;
        expect(item).toEqual(summary);
      }
    }
    const byId = new Map((await listVisibleDocuments(db, 'ada')).map((d) => [d.id, d]));
    expect(byId.get('ready')).toMatchObject({
      authors: ['Hughes, T.'],
      year: 2017,
      doi: '10.1/x',
      venue: 'Nature',
      tags: ['reef', 'Kelp'],
      access: 'owner',
      publishedAt: null,
      index: { state: 'ready', reason: null, done: 1, total: 1, note: 'page 3 left out' },
    });
    expect(byId.get('failed')!.index).toMatchObject({ state: 'failed', reason: 'no text' });
    expect(byId.get('odd-authors')).toMatchObject({ authors: [], year: null, doi: null, tags: [] });
    expect(byId.get('scanned')!.index).toEqual({
      state: 'recognizing',
      reason: null,
      done: 0,
      total: 3,
      note: 'over the cap',
    });
    expect(byId.get('reading')).toMatchObject({
      citationKey: '',
      index: { state: 'extracting', reason: null, done: 0, total: 0, note: null },
    });
    expect(byId.get('bobs-shared')).toMatchObject({
      access: 'shared',
      ownerName: 'Bob',
      lastActivityAt: new Date(AT.getTime() + 60_000).toISOString(),
    });
    expect(byId.get('bobs-public')).toMatchObject({
      access: 'public',
      publishedAt: new Date(AT.getTime() + 120_000).toISOString(),
      lastActivityAt: new Date(AT.getTime() + 120_000).toISOString(),
    });
  });

  it('lists only the documents asked for, among those the reader may read', async () => {
    const db = await fresh();
    const doc = (id: string, ownerId: string) =>
      insertDocument(db, { id, ownerId, title: id, authors: [], abstract: '', pages: [id] }, AT);
    await doc('reef', 'ada');
    await doc('kelp', 'ada');
    await doc('wrasse', 'ada');
    await addOwner(db, { id: 'bob', name: 'Bob' });
    await doc('bobs', 'bob');
    const listed = await listVisibleDocuments(db, 'ada', ['wrasse', 'reef', 'bobs', 'none']);
    expect(listed.map((d) => d.id).sort()).toEqual(['reef', 'wrasse']);
    expect(await listVisibleDocuments(db, 'ada', [])).toEqual([]);
  });

  it('writes a document and its text together, or neither, and lets the text go when it is removed', async () => {
    const db = await fresh();
    const library = createLibrary({
      db,
      adapter,
      log: silent,
      quotas: { documents: 1, characters: 1_000, chunks: 100 },
    });
    cleanups.push(() => library.close());
    const texts = async () =>
      (await db.execute('SELECT document_id, text FROM document_texts ORDER BY document_id')).rows.map(
        (r) => [String(r.document_id), String(r.text)],
      );
    const { id } = await library.add(
      'ada',
      { title: 'Reef', authors: [], source: 'text', pages: ['kelp'] },
      AT,
    );
    expect(await texts()).toEqual([[id, 'kelp']]);
    // Past the quota: nothing, its text included.
    await expect(
      library.add('ada', { title: 'Otter', authors: [], source: 'text', pages: ['otters'] }, AT),
    ).rejects.toMatchObject({ reason: 'quota' });
    expect(await texts()).toEqual([[id, 'kelp']]);
    expect(Number((await db.execute('SELECT count(*) AS n FROM documents')).rows[0]!.n)).toBe(1);
    await library.indexer.idle();
    await removeDocument(db, id, AT);
    expect(await texts()).toEqual([]);
    expect(await getVisibleDocument(db, 'ada', id)).toBeNull();
  });

  it("keeps OCR's page write a compare-and-swap on the text: a page saved on a stale read writes nothing", async () => {
    const db = await fresh();
    await insertDocument(
      db,
      {
        id: 'scan',
        ownerId: 'ada',
        title: 'Scan',
        authors: [],
        abstract: '',
        pages: ['', ''],
        source: 'pdf',
      },
      AT,
    );
    await db.batch(
      insertOcrJobStatement(
        { documentId: 'scan', ownerId: 'ada', pdf: new Uint8Array([1]), pages: [1, 2], note: null },
        AT,
      ),
      'write',
    );
    expect((await claimOcrJob(db, 'worker', AT, new Set()))?.documentId).toBe('scan');
    const lease: Lease = { work: 'ocr', documentId: 'scan', holder: 'worker' };
    // Both pages read the document before either writes, then write in the order they were
    // saved: the second on a text the first has changed since.
    let reads = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => (bothRead = resolve));
    let writes: Promise<unknown> = Promise.resolve();
    const racing = new Proxy(db, {
      get(target, key, receiver) {
        if (key === 'execute')
          return async (stmt: InStatement) => {
            const rs = await target.execute(stmt);
            if (++reads === 2) bothRead();
            await barrier;
            return rs;
          };
        if (key === 'batch')
          return (stmts: InStatement[], mode: 'write') => {
            const done = writes.then(() => target.batch(stmts, mode));
            writes = done.catch(() => undefined);
            return done;
          };
        const v: unknown = Reflect.get(target, key, receiver);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    await Promise.all([
      savePage(racing, lease, { page: 1, text: 'First page read.', outcome: 'read' }, AT),
      savePage(racing, lease, { page: 2, text: 'Second page read.', outcome: 'read' }, AT),
    ]);
    const doc = await getVisibleDocument(db, 'ada', 'scan');
    // The first write stands whole; the second, made on the text as it was before the first, is
    // refused whole: the text, its pages, its length and the pages OCR read agree.
    expect([doc?.text, doc?.pageStarts, doc?.characters, doc?.ocrPages]).toEqual([
      'First page read.\n\n',
      [0, 18],
      18,
      [1],
    ]);
  });
});

describe('migration 028 on a library made before it', () => {
  // Pages as the documents were stored: characters outside the BMP (SQL counts them as one, as
  // JavaScript counts two), an empty page, a row from before 023 (no code-point starts).
  const REEF = [
    'Page one: the reef survey of Lizard Island.',
    'Page two: 𝑥 = 4 °C and 🐟 counts; sea otters eat urchins.',
    '',
    'Page four, after an empty page: 𝛼 and 𝛽, then bleaching thresholds.',
  ];
  const OLD = [
    'Before the code points: 🐚 shells on the first page.',
    'Kelp holdfasts anchor on the second page.',
  ];
  const NOTE = ['Mangrove roots shelter juvenile fish in the estuary.'];

  it('moves every live text over and reads the same: text, pages, a page, a passage, search', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-texts-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase({ url: `file:${join(dir, 'library.db')}` });
    cleanups.push(() => db.close());
    const { namespace, migrations } = LIBRARY_ALONE;
    const index = migrations.findIndex((m) => 'name' in m && m.name === '028_document_texts');
    expect(index).toBeGreaterThan(0);
    const before = migrations.slice(0, index);
    await applyMigrations(db, namespace, before);
    await prepareDocumentIndex(db, adapter, { namespace, migrations: before });
    await addOwner(db, { id: 'ada', name: 'Ada' }, AT);

    // Rows as the schema before 028 holds them (as insertDocument and uploads wrote them).
    const row = (id: string, pages: string[], cp: boolean, source = 'text') => {
      const { text, pageStarts, pageStartsCp } = joinPages(pages);
      return {
        sql: `INSERT INTO documents (id, owner_id, title, authors, abstract, text, source, page_starts,
                page_starts_cp, characters, index_total, created_at, citation_key)
              VALUES (?, 'ada', ?, '[]', '', ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [
          id,
          `Title ${id}`,
          text,
          source,
          JSON.stringify(pageStarts),
          cp ? JSON.stringify(pageStartsCp) : null,
          text.length,
          chunkDocument({ title: `Title ${id}`, abstract: '', pages }).length,
          AT.toISOString(),
          id,
        ],
      };
    };
    await db.batch(
      [
        row('reef', REEF, true, 'pdf'),
        row('old', OLD, false, 'pdf'),
        row('note', NOTE, true),
        // Removed: emptied as removal empties it.
        {
          sql: `INSERT INTO documents (id, owner_id, title, text, page_starts, page_starts_cp, created_at, removed_at,
                  index_state, index_error)
                VALUES ('gone', 'ada', 'Gone', '', '[0]', '[0]', ?, ?, 'failed', 'removed')`,
          args: [AT.toISOString(), AT.toISOString()],
        },
        // An upload still being read: no text and no pages yet.
        {
          sql: `INSERT INTO documents (id, owner_id, title, text, source, page_starts, created_at)
                VALUES ('coming', 'ada', 'Coming', '', 'pdf', '[]', ?)`,
          args: [AT.toISOString()],
        },
        {
          sql: `INSERT INTO extraction_jobs (document_id, done, total, started_at, alive_at) VALUES ('coming', 1, 3, ?, ?)`,
          args: [AT.toISOString(), AT.toISOString()],
        },
      ],
      'write',
    );

    await applyMigrations(db, namespace, migrations);

    expect(await columns(db, 'documents')).not.toContain('text');
    const moved = await db.execute('SELECT document_id FROM document_texts ORDER BY document_id');
    expect(moved.rows.map((r) => String(r.document_id))).toEqual(['coming', 'note', 'old', 'reef']);
    const listed = await listVisibleDocuments(db, 'ada');
    expect(listed.map((d) => [d.id, d.pages, d.characters, d.index.state]).sort()).toEqual([
      ['coming', 0, 0, 'extracting'],
      ['note', 1, joinPages(NOTE).text.length, 'indexing'],
      ['old', 2, joinPages(OLD).text.length, 'indexing'],
      ['reef', 4, joinPages(REEF).text.length, 'indexing'],
    ]);
    for (const [id, pages] of [
      ['reef', REEF],
      ['old', OLD],
      ['note', NOTE],
    ] as const) {
      const { text, pageStarts } = joinPages(pages);
      const doc = await getVisibleDocument(db, 'ada', id);
      expect([doc?.text, doc?.pageStarts, doc?.pages]).toEqual([text, pageStarts, pages.length]);
      for (const [i, page] of pages.entries())
        expect((await readVisiblePage(db, 'ada', { documentId: id, page: i + 1 })).text).toBe(page);
      expect((await readOwnPassage(db, 'ada', { documentId: id, page: pages.length })).text).toBe(
        pages.at(-1),
      );
    }
    await expect(readVisiblePage(db, 'ada', { documentId: 'coming', page: 1 })).rejects.toMatchObject({
      reason: 'invalid_input',
    });
    expect(await getVisibleDocument(db, 'ada', 'gone')).toBeNull();

    // The indexer reads the moved texts: search finds each on its page.
    const library = createLibrary({ db, adapter, log: silent });
    cleanups.push(() => library.close());
    library.indexer.kick();
    await library.indexer.idle();
    for (const [query, documentId, page] of [
      ['bleaching thresholds', 'reef', 4],
      ['kelp holdfasts anchor', 'old', 2],
      ['mangrove roots juvenile fish', 'note', 1],
    ] as const) {
      const [hit] = await library.search.search('ada', query, 3, { mode: 'keyword' });
      expect([hit?.documentId, hit?.page]).toEqual([documentId, page]);
    }
  });
});
