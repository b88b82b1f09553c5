/**
 * Ownership checks shared by the routers. Anything the caller may not act on answers NOT_FOUND
 * (reason `not_found`), never FORBIDDEN, so the answer does not confirm that the object exists
 * — also when the document is shared with or published to the caller (SPEC §6).
 */
import { getDocumentOwnership } from '@sponge/library';
import type { DocumentOwnership } from '@sponge/library';
import { getRun } from './runs.ts';
import type { Run } from './runs.ts';
import type { AppDeps } from '../deps.ts';
import { notFound } from '../errors.ts';

export async function requireOwnedDocument(
  deps: AppDeps,
  userId: string,
  documentId: string,
): Promise<DocumentOwnership> {
  const doc = await getDocumentOwnership(deps.app, documentId);
  if (!doc || doc.removedAt !== null || doc.ownerId !== userId) throw notFound('The document');
  return doc;
}

export async function requireOwnedRun(deps: AppDeps, userId: string, runId: string): Promise<Run> {
  const run = await getRun(deps.app, runId);
  if (!run || run.ownerId !== userId) throw notFound('The run');
  await requireOwnedDocument(deps, userId, run.documentId).catch(() => {
    throw notFound('The run');
  });
  return run;
}
