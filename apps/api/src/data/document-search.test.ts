import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openAppDatabase } from '../stores.ts';
import { ensureDocumentsIndexed, prepareDocumentIndex, searchReadableDocuments } from './document-search.ts';
import { APP_MIGRATIONS } from './migrations.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** The application database as app.ts opens it, before `prepareDocumentIndex`. */
async function openApp(): Promise<Client> {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-docsearch-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const db = await openAppDatabase({ url: `file:${join(dir, 'sponge.db')}` });
  cleanups.push(() => db.close());
  await migrate(db, 'app', APP_MIGRATIONS);
  await db.batch(
    [
      "INSERT INTO users (id, name, created_at) VALUES ('u1', 'Ada', '2026-01-01T00:00:00.000Z')",
      `INSERT INTO documents (id, owner_id, title, abstract, text, created_at)
       VALUES ('d1', 'u1', 'Reef heat', 'Coral bleaching after marine heatwaves.', 'Recovery took years.', '2026-01-01T00:00:00.000Z')`,
    ],
    'write',
  );
  return db;
}

const DOC = { id: 'd1', title: 'Reef heat', abstract: 'Coral bleaching after marine heatwaves.', text: 'Recovery took years.' };
const count = async (db: Client) => Number((await db.execute('SELECT count(*) AS n FROM document_chunks')).rows[0]?.n);
const columnType = async (db: Client) =>
  (await db.execute("SELECT type FROM pragma_table_info('document_chunks') WHERE name = 'embedding'")).rows[0]?.type;
const sized = async (db: Client) =>
  (await db.execute("SELECT name FROM _migrations WHERE namespace = 'app' AND name LIKE '005_%'")).rows.map((r) => r.name);

describe('document_chunks as a derived migration', () => {
  it('is sized for the adapter, recorded, idempotent, and rebuilt for another dimension', async () => {
    const db = await openApp();
    const adapter = createLocalEmbeddingAdapter({ dimensions: 64 });
    await prepareDocumentIndex(db, adapter);
    expect(await sized(db)).toEqual(['005_document_chunks_sized (F32_BLOB(64))']);
    expect(await columnType(db)).toBe('F32_BLOB(64)');
    expect(await ensureDocumentsIndexed(db, adapter, [DOC])).toBe(1);
    const chunks = await count(db);
    expect(chunks).toBeGreaterThan(0);

    // Opening again with the same adapter keeps the vectors.
    await migrate(db, 'app', APP_MIGRATIONS);
    await prepareDocumentIndex(db, adapter);
    expect(await count(db)).toBe(chunks);

    const narrow = createLocalEmbeddingAdapter({ dimensions: 32 });
    await prepareDocumentIndex(db, narrow);
    expect(await sized(db)).toEqual(['005_document_chunks_sized (F32_BLOB(32))']);
    expect(await columnType(db)).toBe('F32_BLOB(32)');
    expect(await count(db)).toBe(0);
    const hits = await searchReadableDocuments(db, narrow, 'u1', 'coral bleaching', 5);
    expect(hits.map((h) => h.id)).toEqual(['d1']);
  });

  it('opens a database whose table was resized before the migration existed', async () => {
    const db = await openApp();
    // What prepareDocumentIndex used to do for a 48-dimension adapter, outside any record.
    await db.batch(
      [
        'DROP TABLE document_chunks',
        `CREATE TABLE document_chunks (
          document_id TEXT NOT NULL REFERENCES documents(id), chunk INTEGER NOT NULL, digest TEXT NOT NULL,
          model TEXT NOT NULL, embedding F32_BLOB(48) NOT NULL, PRIMARY KEY (document_id, chunk))`,
      ],
      'write',
    );
    const adapter = createLocalEmbeddingAdapter({ dimensions: 48 });
    await ensureDocumentsIndexed(db, adapter, [DOC]);
    expect(await sized(db)).toEqual([]);

    await prepareDocumentIndex(db, adapter);
    expect(await sized(db)).toEqual(['005_document_chunks_sized (F32_BLOB(48))']);
    const hits = await searchReadableDocuments(db, adapter, 'u1', 'coral bleaching', 5);
    expect(hits.map((h) => h.id)).toEqual(['d1']);
    expect(await count(db)).toBeGreaterThan(0);
  });
});
