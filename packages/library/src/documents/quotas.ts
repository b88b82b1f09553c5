/**
 * What one owner's library may hold (SPEC §6b: LIBRARY_MAX_DOCUMENTS, _CHARACTERS, _CHUNKS). A
 * document past any of them is refused, nothing stored, with `quota` naming the first limit
 * it would pass. The checks that decide are in the statements that add (one statement each, so
 * two additions at once cannot both take the last room); this reads what is held, for the words.
 */
import type { Client } from '@libsql/client';
import { LibraryError } from '../errors.ts';
import { formatCount } from '../extract/messages.ts';
import { USAGE } from './rules.ts';

export interface LibraryQuotas {
  documents: number;
  characters: number;
  chunks: number;
}

/** What one owner's live documents hold, counted as the quotas count. */
export type LibraryUsage = LibraryQuotas;

/** The owner's live documents, characters and chunks (stored or still to be indexed). */
export async function libraryUsage(db: Client, ownerId: string): Promise<LibraryUsage> {
  const rs = await db.execute({ sql: USAGE, args: [ownerId] });
  const r = rs.rows[0]!;
  return { documents: Number(r.documents), characters: Number(r.characters), chunks: Number(r.chunks) };
}

/** `quota`, naming the first limit the new document would pass (SPEC §9). */
export function quotaError(
  quotas: LibraryQuotas,
  usage: LibraryUsage,
  adding: { characters: number; chunks: number },
): LibraryError {
  const message =
    usage.documents + 1 > quotas.documents
      ? `Your library holds ${formatCount(usage.documents)} documents; the limit is ${formatCount(quotas.documents)} documents. Remove one to add another.`
      : usage.characters + adding.characters > quotas.characters
        ? `Your library holds ${formatCount(usage.characters)} characters of text; with this document it would pass the limit of ${formatCount(quotas.characters)} characters.`
        : `Your library holds ${formatCount(usage.chunks)} search passages (chunks); with this document's ${formatCount(adding.chunks)} it would pass the limit of ${formatCount(quotas.chunks)} chunks.`;
  return new LibraryError('quota', message);
}
