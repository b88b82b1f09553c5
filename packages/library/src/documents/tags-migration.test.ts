/**
 * Migration 029: tags stored whole before they were cut at commas and semicolons. On a libSQL
 * server too (TEST_DATABASES=sqld, vitest.config.ts): its first form, a TEMP table, was refused
 * there and stopped every API on a server at start.
 */
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { applyMigrations, openDatabase } from '@oh/memory';
import { startSqld } from '@oh/memory/testing';
import { normaliseTags } from '@sponge/contract';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addOwner } from '../alone.ts';
import { createLibrary } from '../library.ts';
import type { Library } from '../library.ts';
import { LIBRARY_ALONE } from '../migrations.ts';
import { prepareDocumentIndex } from '../search/index-store.ts';
import { getVisibleDocument } from './documents.ts';
import { tagStatements } from './metadata.ts';

const adapter = createLocalEmbeddingAdapter();
const log = { warn: () => {}, error: () => {} };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const text = (words: string) => ({ title: 'Untitled', authors: [], source: 'text' as const, pages: [words] });

/** A fresh database: a libSQL server of its own with TEST_DATABASES=sqld, else a file. */
async function databaseUrl(): Promise<string> {
  if (process.env.TEST_DATABASES === 'sqld') {
    const server = await startSqld();
    cleanups.push(() => server.stop());
    return server.url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sponge-tags-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `file:${join(dir, 'library.db')}`;
}

describe('migration 029 on tags stored before they were cut at commas and semicolons', () => {
  /** A library at migration 028 with the owner Ada, and a library working on it. */
  async function libraryAt028(): Promise<{ db: Client; library: Library }> {
    const db = await openDatabase({ url: await databaseUrl() });
    cleanups.push(() => db.close());
    const index = LIBRARY_ALONE.migrations.findIndex((m) => 'name' in m && m.name === '028_document_texts');
    expect(index).toBeGreaterThan(0);
    const before = LIBRARY_ALONE.migrations.slice(0, index + 1);
    await applyMigrations(db, LIBRARY_ALONE.namespace, before);
    await prepareDocumentIndex(db, adapter, { ...LIBRARY_ALONE, migrations: before });
    await addOwner(db, { id: 'ada', name: 'Ada' });
    const lib = createLibrary({ db, adapter, log });
    cleanups.push(() => lib.close());
    return { db, library: lib };
  }

  /** Tags written as they were before 3c74574: whole, whatever they hold (tagStatements cuts nothing). */
  const storeAsBefore = (db: Client, id: string, tags: string[]) =>
    db.batch(tagStatements(id, tags), 'write');

  async function stored(db: Client, id: string): Promise<Array<[string, string, number]>> {
    const rs = await db.execute({
      sql: 'SELECT tag, folded, position FROM document_tags WHERE document_id = ? ORDER BY position',
      args: [id],
    });
    return rs.rows.map((r) => [String(r.tag), String(r.folded), Number(r.position)]);
  }

  it('cuts each such tag where it stood, drops the repeats, and search narrows to each part', async () => {
    const { db, library: lib } = await libraryAt028();
    const mixed = await lib.add('ada', text('Corals and kelp along the reef crest.'), new Date());
    const plain = await lib.add('ada', text('Coral bleaching and heat on the reef.'), new Date());
    await lib.indexer.idle();
    await storeAsBefore(db, mixed.id, ['corals, kelp', 'a;b', 'kelp', 'plain']);
    await storeAsBefore(db, plain.id, ['Reefs', 'heat waves']);
    const plainBefore = await stored(db, plain.id);
    expect(await lib.search.search('ada', 'coral reef', 10, { tag: 'corals' })).toEqual([]);

    await applyMigrations(db, LIBRARY_ALONE.namespace, LIBRARY_ALONE.migrations);

    expect(await stored(db, mixed.id)).toEqual([
      ['corals', 'corals', 0],
      ['kelp', 'kelp', 1],
      ['a', 'a', 2],
      ['b', 'b', 3],
      ['plain', 'plain', 4],
    ]);
    expect((await getVisibleDocument(db, 'ada', mixed.id))?.tags).toEqual([
      'corals',
      'kelp',
      'a',
      'b',
      'plain',
    ]);
    expect(await stored(db, plain.id)).toEqual(plainBefore);
    for (const tag of ['kelp', 'corals', 'b']) {
      const hits = await lib.search.search('ada', 'coral reef', 10, { tag });
      expect(hits.map((h) => h.documentId)).toEqual([mixed.id]);
      expect(hits[0]?.tags).toEqual(['corals', 'kelp', 'a', 'b', 'plain']);
    }
    expect(
      (await lib.search.search('ada', 'coral reef', 10, { tag: 'heat waves' })).map((h) => h.documentId),
    ).toEqual([plain.id]);
  });

  it('keeps what normaliseTags keeps, in its order and case, with the folded form it would be written with', async () => {
    const { db, library: lib } = await libraryAt028();
    // As the old rules kept them: trimmed, no leading #, once whatever the case — but whole.
    const cases: string[][] = [
      ['Kelp ,\u00a0kelp', 'x; ##y', 'KELP; Corals,corals', 'ab,'],
      [' ;,', 'Reefs'],
      ['; ,#'],
      ['İstanbul; istanbul', 'ΟΔΟΣ;Αλς', '\u3000Heat\u2003,\ufeffwaves'],
      Array.from({ length: 30 }, (_, i) => `a${i}, b${i}`),
    ];
    const ids: string[] = [];
    for (const [i, tags] of cases.entries()) {
      const { id } = await lib.add('ada', text(`Tagged ${i}.`), new Date());
      await storeAsBefore(db, id, tags);
      ids.push(id);
    }
    await applyMigrations(db, LIBRARY_ALONE.namespace, LIBRARY_ALONE.migrations);
    for (const [i, tags] of cases.entries()) {
      const kept = normaliseTags(tags).slice(0, 50);
      expect(await stored(db, ids[i]!)).toEqual(kept.map((t, position) => [t, t.toLowerCase(), position]));
    }
    expect(await stored(db, ids[2]!)).toEqual([]);
    expect((await stored(db, ids[4]!)).at(-1)).toEqual(['b24', 'b24', 49]);
  });
});
