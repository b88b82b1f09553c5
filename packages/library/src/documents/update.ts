/**
 * The owner's edit of what a document is (`documents.update`, SPEC §6d): title, authors, year,
 * DOI, venue, abstract and tags. Only the owner's own live document, checked in the statements
 * that write it; the citation key stays as chosen. A title or an abstract is part of what search
 * embeds (search/chunks.ts), so changing one sends the document back to the indexer (one being
 * indexed too: the indexer at work on it loses its lease).
 */
import type { Client, InStatement, InValue } from '@libsql/client';
import { LibraryError, documentNotFound } from '../errors.ts';
import { chunkDocument } from '../search/chunks.ts';
import { getDocumentOwnership, getOwnDocument } from './documents.ts';
import type { DocumentRecord } from './documents.ts';
import { duplicateError, findDuplicate, refusingDuplicates, tagStatements } from './metadata.ts';
import type { CleanMetadata } from './metadata.ts';
import { formatCount } from '../extract/messages.ts';
import { libraryUsage } from './quotas.ts';
import type { LibraryQuotas } from './quotas.ts';
import { USAGE } from './rules.ts';

/** What `documents.update` changes: each field given replaces the stored one (null clears). */
export type DocumentPatch = CleanMetadata;

/**
 * Applies `patch` to the owner's document and answers it as it now stands. `not_found` for
 * anything but the owner's own live document; `invalid_input` while an upload is still being
 * read (its text and title are not there yet); `duplicate` with `existingId` for a DOI another
 * of the owner's documents has; `quota` when a longer abstract would take the owner's chunks past
 * `quotas`. True in `reindex` when the indexer has work.
 */
export async function updateDocument(
  db: Client,
  ownerId: string,
  documentId: string,
  patch: DocumentPatch,
  quotas: LibraryQuotas,
): Promise<{ document: DocumentRecord; reindex: boolean }> {
  const owned = await getDocumentOwnership(db, documentId);
  if (!owned || owned.removedAt !== null || owned.ownerId !== ownerId) throw documentNotFound();
  if (owned.extracting)
    throw new LibraryError(
      'invalid_input',
      'This document is still being read; edit its details once it is in your library.',
    );
  const before = await getOwnDocument(db, ownerId, documentId);
  if (!before) throw documentNotFound();
  if (patch.doi) {
    const same = await findDuplicate(db, ownerId, { doi: patch.doi }, documentId);
    if (same) throw duplicateError(same);
  }

  const set: string[] = [];
  const args: InValue[] = [];
  const field = (column: string, value: InValue | undefined) => {
    if (value === undefined) return;
    set.push(`${column} = ?`);
    args.push(value);
  };
  field('title', patch.title);
  field('authors', patch.authors && JSON.stringify(patch.authors));
  field('year', patch.year);
  field('doi', patch.doi);
  field('venue', patch.venue);
  field('abstract', patch.abstract);
  const title = patch.title ?? before.title;
  const abstract = patch.abstract ?? before.abstract;
  const changed = title !== before.title || abstract !== before.abstract;
  const reindex = changed && (before.index.state === 'ready' || before.index.state === 'indexing');
  let chunks = before.index.total;
  if (reindex) {
    const pages = before.pageStarts.map((start, i) =>
      before.text.slice(start, (before.pageStarts[i + 1] ?? before.text.length + 2) - 2),
    );
    set.push(`index_state = 'indexing', index_error = NULL, index_done = 0, index_total = ?`);
    chunks = chunkDocument({ title, abstract, pages }).length;
    args.push(chunks);
  }
  // Every write holds only while the document is still the owner's, live and not extracting; and
  // a longer abstract, more passages to search, only within the owner's chunk quota (the
  // document's own passages counted as they will be, not twice). The numbers are this function's.
  const grows = chunks > before.index.total;
  const owner = {
    sql: `owner_id = ? AND removed_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM extraction_jobs e WHERE e.document_id = documents.id)
          ${grows ? `AND (SELECT usage.chunks FROM (${USAGE}) AS usage) - index_total + ${chunks} <= ${quotas.chunks}` : ''}`,
    args: grows ? [ownerId, ownerId] : [ownerId],
  };
  const statements: InStatement[] = [];
  if (set.length > 0)
    statements.push({
      sql: `UPDATE documents SET ${set.join(', ')} WHERE id = ? AND ${owner.sql}`,
      args: [...args, documentId, ...owner.args],
    });
  // An indexer at work on the text as it was loses its lease, so it stops at its next write
  // instead of marking the old title's vectors ready; the document is taken up again as it is now.
  if (reindex)
    statements.push({
      sql: `DELETE FROM work_leases WHERE work = 'index' AND document_id = ?
              AND EXISTS (SELECT 1 FROM documents WHERE id = ? AND ${owner.sql})`,
      args: [documentId, documentId, ...owner.args],
    });
  if (patch.tags) statements.push(...tagStatements(documentId, patch.tags, owner));
  const results = await refusingDuplicates(
    db,
    ownerId,
    { doi: patch.doi ?? null },
    () => db.batch(statements, 'write'),
    documentId,
  );
  if (set.length > 0 && results[0]?.rowsAffected === 0) {
    const usage = grows ? await libraryUsage(db, ownerId) : null;
    if (usage && usage.chunks - before.index.total + chunks > quotas.chunks)
      throw new LibraryError(
        'quota',
        `Your library holds ${formatCount(usage.chunks)} search passages (chunks); this abstract adds ${formatCount(chunks - before.index.total)}, past the limit of ${formatCount(quotas.chunks)}. Shorten it, or remove a document first.`,
      );
    throw documentNotFound();
  }
  const document = await getOwnDocument(db, ownerId, documentId);
  if (!document) throw documentNotFound();
  return { document, reindex };
}
