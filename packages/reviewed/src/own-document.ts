/**
 * Reviewed knowledge belongs to a document's owner: what a document is, and whose, is the
 * library's to say (@sponge/library), never a statement of ours on its tables.
 */
import type { Client } from '@libsql/client';
import { getDocumentOwnership } from '@sponge/library';
import { notFound } from './errors.ts';

/**
 * Passes for the owner's own live document; anything else — another owner's, one shared with or
 * published to the caller, a removed one, none — is `not_found`, so the answer confirms nothing.
 */
export async function requireOwnDocument(db: Client, ownerId: string, documentId: string): Promise<void> {
  const doc = await getDocumentOwnership(db, documentId);
  if (!doc || doc.removedAt !== null || doc.ownerId !== ownerId) throw notFound('The document');
}
