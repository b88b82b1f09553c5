/**
 * The library's rules about a document, in SQL, written once: every statement of the library
 * that asks whether a document stands, or which of an owner's documents search may rank, builds
 * it from here. `alias` names the documents table in the statement (`documents` itself, or `d`).
 *
 * The app's own statements that must read a document in the same statement as their rows (a run
 * and its document, on every agent call) take the joins at the end of this file, through the
 * package's entry: the rule stays here, and a run still costs one statement.
 */
import type { Value } from '@libsql/client';

/**
 * Live: not removed by its owner. A removed document keeps its row (emptied, with its title) so
 * that runs keep a target; nobody can see or use it any more.
 */
export const live = (alias: string) => `${alias}.removed_at IS NULL`;

/**
 * Searchable: live and indexed. Exactly the condition of migration 014's partial index
 * `documents_searchable`, so a statement that says it is answered from that index.
 */
export const searchable = (alias: string) => `${alias}.index_state = 'ready' AND ${live(alias)}`;

/**
 * The owner's searchable documents, read from `documents_searchable` by name. Left to itself the
 * planner took `documents_usage` (migration 028), which lacks `index_state`, and read each
 * document's row to check it: at 10,000 documents, summing their chunks took 15 ms that way and
 * 0.6 ms from this index (measured). One argument, the owner; follow it with more conditions
 * (`AND …`) or nothing.
 */
export const OWNER_SEARCHABLE = `documents INDEXED BY documents_searchable
  WHERE owner_id = ? AND ${searchable('documents')}`;

/** A live document of id `?` exists (for a write conditional on the document still standing). */
export const LIVE_DOCUMENT = `EXISTS (SELECT 1 FROM documents WHERE id = ? AND ${live('documents')})`;

/**
 * What one owner's live documents hold, counted as the quotas count: documents, characters of
 * text, and chunks stored or still to be indexed (`index_total` is known from the start). One
 * argument, the owner.
 */
export const USAGE = `SELECT count(*) AS documents, coalesce(sum(characters), 0) AS characters,
                 coalesce(sum(index_total), 0) AS chunks
            FROM documents WHERE owner_id = ? AND ${live('documents')}`;

/** Where a document stands for the app's checks (a run's document, read with the run). */
export interface DocumentOwner {
  id: string;
  ownerId: string;
  removedAt: string | null;
  memoryInStagedRuns: boolean;
}

/**
 * SQL for an app's statement about its own rows that reads their document in the same statement.
 * `documentId` and `ownerId` are SQL expressions of that statement (`r.document_id`).
 *
 * @example
 * const doc = documentSql('d');
 * `SELECT r.id, ${doc.ownerColumns} FROM runs r ${doc.leftJoin('r.document_id')} WHERE r.token_hash = ?`
 * // then doc.ownerOf(row): the document (removed or not), or null when it is gone
 */
export function documentSql(alias: string) {
  return {
    /** `JOIN` of the document only while it is live and still `ownerId`'s. */
    joinLiveOwnedBy: (documentId: string, ownerId: string) =>
      `JOIN documents AS ${alias} ON ${alias}.id = ${documentId} AND ${live(alias)} AND ${alias}.owner_id = ${ownerId}`,
    /** `LEFT JOIN` of the document, removed or not, for `ownerColumns`. */
    leftJoin: (documentId: string) => `LEFT JOIN documents AS ${alias} ON ${alias}.id = ${documentId}`,
    /** The columns `ownerOf` reads. */
    ownerColumns: `${alias}.id AS doc_id, ${alias}.owner_id AS doc_owner_id, ${alias}.removed_at AS doc_removed_at,
                 ${alias}.memory_in_staged_runs AS doc_memory_in_staged_runs`,
    /** A row's columns by name: a Row, or a point read's plain row (`readRow` of @oh/memory). */
    ownerOf: (row: Record<string, Value>): DocumentOwner | null =>
      row.doc_id === null || row.doc_id === undefined
        ? null
        : {
            id: String(row.doc_id),
            ownerId: String(row.doc_owner_id),
            removedAt: row.doc_removed_at === null ? null : String(row.doc_removed_at),
            memoryInStagedRuns: Number(row.doc_memory_in_staged_runs) === 1,
          },
  };
}
