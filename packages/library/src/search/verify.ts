/**
 * The `verify` command's check of the library's search indexes (SPEC §6b): every ready document
 * must have one vector (for the configured model) and one keyword entry per chunk, and nothing
 * may be indexed for a document that is removed or gone. Both indexes are derived from the
 * documents' text: `--repair` drops what has no document and sends every document with a gap
 * back to the indexer, which refills what is missing (keywords alone cost no embedding), then
 * the check runs again.
 */
import type { Client } from '@libsql/client';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { VerifyFinding } from '@oh/memory';
import { deleteKeywordStatements } from './keyword-index.ts';
import { createIndexer } from './indexer.ts';
import type { IndexerLog } from './indexer.ts';
import { prepareDocumentIndex } from './index-store.ts';
import type { LibrarySchema } from '../migrations.ts';
import { live, searchable } from '../documents/rules.ts';

export interface LibraryVerification {
  /** Ready documents checked, and the chunks they should have. */
  documents: number;
  chunks: number;
  findings: VerifyFinding[];
}

/** Documents with a gap that one run reports by name; the rest are counted. */
const NAMED = 50;

/** Checks the indexes of every ready document, read only. */
export async function verifyLibrary(db: Client, model: string): Promise<LibraryVerification> {
  const out: LibraryVerification = { documents: 0, chunks: 0, findings: [] };
  const rs = await db.execute({
    sql: `SELECT d.id, d.index_total AS total,
            (SELECT COUNT(*) FROM document_chunks c WHERE c.document_id = d.id AND c.model = ? AND c.chunk < d.index_total) AS vectors,
            (SELECT COUNT(*) FROM document_chunk_spans s JOIN document_keywords k ON k.rowid = s.id
              WHERE s.document_id = d.id AND s.chunk < d.index_total) AS keywords
          FROM documents d WHERE ${searchable('d')} ORDER BY d.id`,
    args: [model],
  });
  let gaps = 0;
  for (const r of rs.rows) {
    out.documents++;
    const total = Number(r.total);
    out.chunks += total;
    for (const [table, n] of [
      ['document_chunks', Number(r.vectors)],
      ['document_keywords', Number(r.keywords)],
    ] as const) {
      if (n === total) continue;
      if (gaps++ < NAMED)
        out.findings.push({
          table,
          message: `document ${String(r.id)}: ${n} of its ${total} chunks are in ${table === 'document_chunks' ? 'the vector index' : 'the keyword index'}`,
          repairable: true,
        });
    }
  }
  if (gaps > NAMED)
    out.findings.push({
      table: 'documents',
      message: `… and ${gaps - NAMED} more gaps`,
      repairable: true,
    });
  const orphans = await db.execute(`SELECT
      (SELECT COUNT(*) FROM document_chunks c WHERE NOT EXISTS (${ofLiveDocument('c')})) AS vectors,
      (SELECT COUNT(*) FROM document_chunk_spans s WHERE NOT EXISTS (${ofLiveDocument('s')})) AS spans,
      (SELECT COUNT(*) FROM document_keywords k
        WHERE NOT EXISTS (SELECT 1 FROM document_chunk_spans s WHERE s.id = k.rowid)) AS keywords`);
  const o = orphans.rows[0]!;
  for (const [table, n] of [
    ['document_chunks', Number(o.vectors)],
    ['document_chunk_spans', Number(o.spans)],
    ['document_keywords', Number(o.keywords)],
  ] as const) {
    if (n > 0)
      out.findings.push({
        table,
        message: `${n} ${table} row${n === 1 ? '' : 's'} of no live document`,
        repairable: true,
      });
  }
  return out;
}

/** A document that may hold index rows: it exists and is not removed. */
function ofLiveDocument(alias: string): string {
  return `SELECT 1 FROM documents d WHERE d.id = ${alias}.document_id AND ${live('d')}`;
}

/**
 * Repairs both indexes: rows of no live document go, documents with a gap go back to indexing and
 * the indexer runs until nothing waits. Returns how many documents it sent back.
 */
export async function repairLibrary(
  db: Client,
  adapter: EmbeddingAdapter,
  schema: LibrarySchema,
  log: IndexerLog,
): Promise<number> {
  await prepareDocumentIndex(db, adapter, schema);
  await db.batch(
    [
      `DELETE FROM document_chunks WHERE NOT EXISTS (${ofLiveDocument('document_chunks')})`,
      ...deleteKeywordStatements(`NOT EXISTS (${ofLiveDocument('document_chunk_spans')})`, []),
      'DELETE FROM document_keywords WHERE rowid NOT IN (SELECT id FROM document_chunk_spans)',
      // A span whose keyword row is gone: dropped, so the indexer writes both again.
      'DELETE FROM document_chunk_spans WHERE id NOT IN (SELECT rowid FROM document_keywords)',
    ],
    'write',
  );
  const sent = await db.execute({
    sql: `UPDATE documents SET index_state = 'indexing', index_error = NULL, index_done = 0
          WHERE ${searchable('documents')} AND (
            (SELECT COUNT(*) FROM document_chunks c WHERE c.document_id = documents.id AND c.model = ? AND c.chunk < documents.index_total) != index_total
            OR (SELECT COUNT(*) FROM document_chunk_spans s WHERE s.document_id = documents.id AND s.chunk < documents.index_total) != index_total)`,
    args: [adapter.id],
  });
  if (sent.rowsAffected > 0) {
    const indexer = createIndexer({ db, adapter, log });
    indexer.kick();
    await indexer.idle();
    await indexer.stop();
  }
  return sent.rowsAffected;
}
