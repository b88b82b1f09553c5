/**
 * The indexer and the search index against a real libSQL file: indexing resumes after a stop
 * without embedding stored chunks again, failures are recorded in plain words, and two search
 * indexes on one database (two API processes) both follow adds and removals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { EmbeddingError, createLocalEmbeddingAdapter } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { holdLock as holdLockIn } from '@oh/memory/testing';
import type { LockHolder } from '@oh/memory/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openLibraryDatabase } from '../alone.ts';
import { insertDocument, removeDocument } from '../documents/documents.ts';
import { LIBRARY_ALONE } from '../migrations.ts';
import { chunkDocument } from './chunks.ts';
import { EMBED_BATCH, createIndexer } from './indexer.ts';
import { prepareDocumentIndex } from './index-store.ts';
import { createLibrarySearch } from './search.ts';

const log = pino({ level: 'silent' });

/** Another process holding the database's write lock until told to let go, ended with the test. */
async function holdLock(path: string): Promise<LockHolder> {
  const holder = await holdLockIn(path);
  cleanups.push(() => holder.kill());
  return holder;
}
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

async function openDb(adapter: EmbeddingAdapter): Promise<Client> {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-indexer-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openLibraryDatabase(`file:${join(dir, 'sponge.db')}`, adapter);
  cleanups.push(() => db.close());
  await db.execute(
    "INSERT INTO users (id, name, created_at) VALUES ('u1', 'Ada', '2026-01-01T00:00:00.000Z')",
  );
  await db.execute(
    "INSERT INTO users (id, name, created_at) VALUES ('u2', 'Grace', '2026-01-01T00:00:00.000Z')",
  );
  return db;
}

/** The local adapter, counting what it embeds and able to fail or stop its caller on cue. */
function countingAdapter(onEmbed: (call: number) => void = () => {}) {
  const inner = createLocalEmbeddingAdapter();
  const seen = { calls: 0, texts: 0 };
  const adapter: EmbeddingAdapter = {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(texts) {
      seen.calls++;
      onEmbed(seen.calls);
      seen.texts += texts.length;
      return inner.embed(texts);
    },
  };
  return { adapter, seen };
}

/** A document of `paragraphs` chunks on two pages. */
function longPages(paragraphs: number): string[] {
  const para = (i: number) => `Paragraph ${i} on kelp, urchins and otters number ${i}.`;
  const half = Math.ceil(paragraphs / 2);
  return [
    Array.from({ length: half }, (_, i) => para(i)).join('\n\n'),
    Array.from({ length: paragraphs - half }, (_, i) => para(half + i)).join('\n\n'),
  ];
}

async function state(db: Client, id: string) {
  const rs = await db.execute({
    sql: 'SELECT index_state, index_error, index_done, index_total FROM documents WHERE id = ?',
    args: [id],
  });
  return rs.rows[0]!;
}

describe('the indexer', () => {
  it('resumes after a stop without embedding the stored chunks again', async () => {
    let stop: (() => Promise<void>) | null = null;
    const first = countingAdapter((call) => {
      if (call === 2) void stop?.();
    });
    const db = await openDb(first.adapter);
    const pages = longPages(3 * EMBED_BATCH);
    await insertDocument(
      db,
      { id: 'd1', ownerId: 'u1', title: 'Kelp', authors: [], abstract: '', pages, source: 'pdf' },
      new Date(),
    );
    const total = chunkDocument({ title: 'Kelp', abstract: '', pages }).length;

    const a = createIndexer({ db, adapter: first.adapter, log });
    stop = () => a.stop();
    a.kick();
    await a.idle();
    const mid = await state(db, 'd1');
    expect(mid.index_state).toBe('indexing');
    expect(Number(mid.index_done)).toBe(2 * EMBED_BATCH);
    expect(Number(mid.index_total)).toBe(total);

    // "After a restart": a new indexer on the same database.
    const second = countingAdapter();
    const b = createIndexer({ db, adapter: second.adapter, log });
    b.kick();
    await b.idle();
    expect((await state(db, 'd1')).index_state).toBe('ready');
    expect(second.seen.texts).toBe(total - 2 * EMBED_BATCH);
    const rows = await db.execute(
      "SELECT COUNT(*) AS n, MIN(page) AS p1, MAX(page) AS p2 FROM document_chunks WHERE document_id = 'd1'",
    );
    expect(rows.rows[0]).toMatchObject({ n: total, p1: 1, p2: 2 });
  });

  it('merges the keyword index into one b-tree once much of it was written since the last merge', async () => {
    // Each write adds a b-tree to FTS5's index, and its automerge leaves several: a library of a
    // million chunks indexed a batch at a time held 10, and finding which terms 100 chunks hold
    // took 18–26 ms a search against 2.6–2.8 merged (measured).
    const segments = async (db: Client) =>
      Number((await db.execute('SELECT count(DISTINCT segid) AS n FROM document_keywords_idx')).rows[0]!.n);
    const run = async (mergeKeywordsAfter: number) => {
      const { adapter } = countingAdapter();
      const db = await openDb(adapter);
      for (let i = 0; i < 12; i++)
        await insertDocument(
          db,
          { id: `d${i}`, ownerId: 'u1', title: `Kelp ${i}`, authors: [], abstract: '', pages: longPages(3) },
          new Date(),
        );
      const indexer = createIndexer({ db, adapter, log, mergeKeywordsAfter });
      indexer.kick();
      await indexer.idle();
      await indexer.stop();
      return db;
    };
    const unmerged = await run(Number.POSITIVE_INFINITY);
    expect(await segments(unmerged)).toBeGreaterThan(1);
    const merged = await run(1);
    expect(await segments(merged)).toBe(1);
    // The same rows, found the same way.
    const hits = async (db: Client) =>
      (
        await db.execute(
          "SELECT rowid FROM document_keywords WHERE document_keywords MATCH 'otters' ORDER BY rowid",
        )
      ).rows.length;
    expect(await hits(merged)).toBe(await hits(unmerged));
    expect(await hits(merged)).toBeGreaterThan(0);
  });

  it('records a failing embedding service in plain words, and goes on with the next document', async () => {
    const good = createLocalEmbeddingAdapter();
    const failing: EmbeddingAdapter = {
      id: good.id,
      dimensions: good.dimensions,
      embed: (texts) =>
        texts.some((t) => t.startsWith('Broken'))
          ? Promise.reject(
              new EmbeddingError('http', 'HTTP 503 from the endpoint', {
                status: 503,
                retryable: true,
                attempts: 3,
              }),
            )
          : good.embed(texts),
    };
    const db = await openDb(failing);
    await insertDocument(
      db,
      { id: 'bad', ownerId: 'u1', title: 'Broken', authors: [], abstract: '', pages: ['x'] },
      new Date(1),
    );
    await insertDocument(
      db,
      { id: 'ok', ownerId: 'u1', title: 'Fine', authors: [], abstract: '', pages: ['y'] },
      new Date(2),
    );
    const indexer = createIndexer({ db, adapter: failing, log });
    indexer.kick();
    await indexer.idle();
    const bad = await state(db, 'bad');
    expect(bad.index_state).toBe('failed');
    expect(String(bad.index_error)).toMatch(/^The embedding service failed \(.*503.*\)\. Try again later\.$/);
    expect((await state(db, 'ok')).index_state).toBe('ready');
  });

  it('takes only a real EmbeddingError for the embedding service, and logs anything else as an error', async () => {
    const good = createLocalEmbeddingAdapter();
    // A bug that merely carries the name: the old check (err.name === 'EmbeddingError') took it
    // for the embedding service and logged it as a warning.
    const buggy: EmbeddingAdapter = {
      id: good.id,
      dimensions: good.dimensions,
      embed: () =>
        Promise.reject(Object.assign(new TypeError('vectors is not iterable'), { name: 'EmbeddingError' })),
    };
    const db = await openDb(buggy);
    await insertDocument(
      db,
      { id: 'doc', ownerId: 'u1', title: 'Kelp', authors: [], abstract: '', pages: ['x'] },
      new Date(1),
    );
    const logged: Array<[string, string]> = [];
    const recording = {
      warn: (_: object, message: string) => logged.push(['warn', message]),
      error: (_: object, message: string) => logged.push(['error', message]),
    };
    const indexer = createIndexer({ db, adapter: buggy, log: recording });
    indexer.kick();
    await indexer.idle();
    const doc = await state(db, 'doc');
    expect(doc.index_state).toBe('failed');
    expect(String(doc.index_error)).toMatch(/^Indexing failed unexpectedly/);
    expect(logged).toEqual([['error', 'indexing a document failed unexpectedly']]);
  });

  it("does not fail a document on another process's lock: it is indexed once the lock is gone", async () => {
    const { adapter } = countingAdapter();
    const db = await openDb(adapter);
    // The API's app database waits up to 10 s for a lock; the test does not.
    await db.execute('PRAGMA busy_timeout = 0');
    await insertDocument(
      db,
      { id: 'doc', ownerId: 'u1', title: 'Kelp', authors: [], abstract: '', pages: ['kelp and otters'] },
      new Date(1),
    );
    const path = (await db.execute('PRAGMA database_list')).rows[0]!.file as string;
    const holder = await holdLock(path);
    const logged: string[] = [];
    const indexer = createIndexer({
      db,
      adapter,
      log: { warn: (_, m) => logged.push(m), error: (_, m) => logged.push(m) },
    });
    cleanups.push(() => void indexer.stop());
    indexer.kick();
    await indexer.idle();
    expect(logged).toEqual(['indexing a document waits for a database lock']);
    expect((await state(db, 'doc')).index_state).not.toBe('failed');
    await holder.release();
    await expect.poll(async () => (await state(db, 'doc')).index_state, { timeout: 10_000 }).toBe('ready');
  });

  it('writes nothing for a document removed while it was being indexed', async () => {
    const box: { db?: Client } = {};
    const { adapter } = countingAdapter((call) => {
      if (call === 1 && box.db) void removeDocument(box.db, 'd1', new Date());
    });
    const db = (box.db = await openDb(adapter));
    await insertDocument(
      db,
      {
        id: 'd1',
        ownerId: 'u1',
        title: 'Gone',
        authors: [],
        abstract: '',
        pages: longPages(2 * EMBED_BATCH),
      },
      new Date(),
    );
    const indexer = createIndexer({ db, adapter, log });
    indexer.kick();
    await indexer.idle();
    const rs = await db.execute("SELECT COUNT(*) AS n FROM document_chunks WHERE document_id = 'd1'");
    expect(Number(rs.rows[0]!.n)).toBe(0);
    expect((await state(db, 'd1')).index_state).not.toBe('ready');
  });
});

describe('the search index', () => {
  it('two processes on one database both see an add and a removal at their next search', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const db = await openDb(adapter);
    const one = createLibrarySearch({ db, adapter });
    const two = createLibrarySearch({ db, adapter });
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    const indexer = createIndexer({ db, adapter, log });
    const add = async (id: string, owner: string, text: string) => {
      await insertDocument(
        db,
        { id, ownerId: owner, title: id, authors: [], abstract: '', pages: [text] },
        new Date(),
      );
      indexer.kick();
      await indexer.idle();
    };
    await add('kelp', 'u1', 'Kelp forests and sea urchins on rocky reefs.');
    expect((await one.search('u1', 'kelp urchins', 5)).map((h) => h.id)).toEqual(['kelp']);
    expect((await two.search('u1', 'kelp urchins', 5)).map((h) => h.id)).toEqual(['kelp']);

    await add('otter', 'u1', 'Sea otters eat urchins and protect kelp.');
    await add('foreign', 'u2', 'Kelp urchins otters, the same words exactly.');
    for (const idx of [one, two]) {
      const ids = (await idx.search('u1', 'otters eat urchins', 5)).map((h) => h.id);
      expect(ids[0]).toBe('otter');
      expect(ids).not.toContain('foreign');
    }

    await removeDocument(db, 'otter', new Date());
    for (const idx of [one, two])
      expect((await idx.search('u1', 'otters eat urchins', 5)).map((h) => h.id)).not.toContain('otter');
    expect((await two.search('u2', 'kelp', 5)).map((h) => h.id)).toEqual(['foreign']);
  });

  it('drops the least recently searched owner over its vector budget, and rebuilds it on its next search', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const db = await openDb(adapter);
    const search = createLibrarySearch({ db, adapter, maxVectors: 3 });
    cleanups.push(() => search.close());
    const indexer = createIndexer({ db, adapter, log });
    await insertDocument(
      db,
      { id: 'a', ownerId: 'u1', title: 'Kelp', authors: [], abstract: '', pages: ['Kelp one.\n\nKelp two.'] },
      new Date(),
    );
    await insertDocument(
      db,
      {
        id: 'b',
        ownerId: 'u2',
        title: 'Otters',
        authors: [],
        abstract: '',
        pages: ['Otters one.\n\nOtters two.'],
      },
      new Date(),
    );
    indexer.kick();
    await indexer.idle();
    expect((await search.search('u1', 'kelp', 5)).map((h) => h.id)).toEqual(['a']);
    expect((await search.search('u2', 'otters', 5)).map((h) => h.id)).toEqual(['b']);
    // u1's index (2 chunks) went when u2's (2 chunks) came in; asking again brings it back.
    expect((await search.search('u1', 'kelp', 5)).map((h) => h.id)).toEqual(['a']);
  });

  it('sends ready documents back to indexing when their chunks are gone for the current model', async () => {
    const adapter = createLocalEmbeddingAdapter();
    const db = await openDb(adapter);
    await insertDocument(
      db,
      { id: 'd1', ownerId: 'u1', title: 'T', authors: [], abstract: '', pages: ['text'] },
      new Date(),
    );
    const indexer = createIndexer({ db, adapter, log });
    indexer.kick();
    await indexer.idle();
    expect((await state(db, 'd1')).index_state).toBe('ready');
    await db.execute('DELETE FROM document_chunks');
    await prepareDocumentIndex(db, adapter, LIBRARY_ALONE);
    expect((await state(db, 'd1')).index_state).toBe('indexing');
  });
});
