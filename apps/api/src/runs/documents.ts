/**
 * The documents procedures' work beyond one call of the library (routers/documents.ts says what
 * each answers; the MCP listing takes the library view too). What runs add for a document's owner:
 * a run accepted or a chat message is activity on the document (the library knows only when it
 * was added, shared or published), and the owner's newest session with working memory on it is
 * what the library view shows the memory of; runs are the app's rows, so the app adds them. And
 * sharing with an account (accounts are the app's), and removal with its runs' sessions.
 */
import type { Client } from '@libsql/client';
import { checkpointWal } from '@oh/memory';
import {
  getVisibleDocument,
  listOrder,
  listShares,
  listVisibleDocuments,
  removeDocument,
  shareByEmail,
  shareDocument,
} from '@sponge/library';
import type { DocumentSummary } from '@sponge/library';
import { getAccount, getUser } from '../accounts/users.ts';
import type { AppDeps } from '../deps.ts';
import { invalidInput, notFound } from '../errors.ts';
import { requireOwnedDocument } from './access.ts';
import { clearQuotesStatement } from './research.ts';
import { listRuns } from './runs.ts';

interface RunActivity {
  /** The newest run accepted or chat message on the document, or null. */
  lastAt: string | null;
  /** The owner's newest session with working memory on it, or null. */
  newestSessionId: string | null;
}

export type ReadableDocument = DocumentSummary & { newestSessionId: string | null };

/** What the runs of each of `documentIds` add (every run of a document is its owner's). */
async function runActivity(db: Client, documentIds: readonly string[]): Promise<Map<string, RunActivity>> {
  if (documentIds.length === 0) return new Map();
  const rs = await db.execute({
    sql: `SELECT d.value AS id,
            max(coalesce((SELECT max(r.accepted_at) FROM runs r WHERE r.document_id = d.value), ''),
                coalesce((SELECT max(m.at) FROM runs r JOIN transcript_messages m ON m.run_id = r.id
                          WHERE r.document_id = d.value), '')) AS last_at,
            (SELECT r.session_id FROM runs r WHERE r.document_id = d.value AND r.session_id IS NOT NULL
              ORDER BY r.accepted_at DESC, r.id DESC LIMIT 1) AS newest_session
          FROM json_each(?) AS d`,
    args: [JSON.stringify(documentIds)],
  });
  return new Map(
    rs.rows.map((r) => [
      String(r.id),
      {
        lastAt: r.last_at === '' || r.last_at === null ? null : String(r.last_at),
        newestSessionId: r.newest_session === null ? null : String(r.newest_session),
      },
    ]),
  );
}

/** A document with its runs' activity when the reader owns it (anyone else sees none of it). */
function withActivity<D extends DocumentSummary>(
  doc: D,
  activity: ReadonlyMap<string, RunActivity>,
): D & { newestSessionId: string | null } {
  const runs = doc.access === 'owner' ? activity.get(doc.id) : undefined;
  const lastAt = runs?.lastAt ?? null;
  return {
    ...doc,
    lastActivityAt: lastAt !== null && lastAt > doc.lastActivityAt ? lastAt : doc.lastActivityAt,
    newestSessionId: runs?.newestSessionId ?? null,
  };
}

/** Every document the user may read, most recently active first (then by title and id). */
export async function listReadableDocuments(db: Client, userId: string): Promise<ReadableDocument[]> {
  const docs = await listVisibleDocuments(db, userId);
  const activity = await runActivity(
    db,
    docs.filter((d) => d.access === 'owner').map((d) => d.id),
  );
  return docs.map((d) => withActivity(d, activity)).sort(listOrder);
}

/** The fields of a document everyone who may read it sees, and the owner's indexing state. */
export function summaryView(d: DocumentSummary) {
  return {
    id: d.id,
    title: d.title,
    ownerId: d.ownerId,
    ownerName: d.ownerName,
    authors: d.authors,
    abstract: d.abstract,
    ...{ year: d.year, doi: d.doi, venue: d.venue, tags: d.tags, citationKey: d.citationKey },
    access: d.access,
    published: d.publishedAt !== null,
    source: d.source,
    pages: d.pages,
    characters: d.characters,
    addedAt: d.createdAt,
    lastActivityAt: d.lastActivityAt,
    index: d.access === 'owner' ? d.index : null,
  };
}

/** ACCEPT_RUNS_UNTIL as an ISO time once it has passed (new runs are refused from then on), else null. */
function runsClosedSince(until: Date | null, now: Date): string | null {
  return until !== null && now.getTime() >= until.getTime() ? until.toISOString() : null;
}

export async function libraryView(deps: AppDeps, readerId: string) {
  const docs = await listReadableDocuments(deps.app, readerId);
  const sessionIds = docs.flatMap((d) => (d.newestSessionId ? [d.newestSessionId] : []));
  const sessions = await deps.store.getSessions(sessionIds);
  return docs.map((d) => {
    const s = d.access === 'owner' && d.newestSessionId ? sessions.get(d.newestSessionId) : undefined;
    return {
      ...summaryView(d),
      memory: s
        ? { sessionId: s.id, state: s.state, forgetsAt: s.expiresAt, forgottenAt: s.forgottenAt }
        : null,
    };
  });
}

export async function documentView(deps: AppDeps, readerId: string, documentId: string) {
  const doc = await getVisibleDocument(deps.app, readerId, documentId);
  if (!doc) throw notFound('The document');
  const isOwner = doc.access === 'owner';
  const d = withActivity(doc, isOwner ? await runActivity(deps.app, [doc.id]) : new Map());
  return {
    ...summaryView(d),
    text: d.text,
    pageStarts: d.pageStarts,
    // Pages whose text OCR recognised: everyone who reads the text sees which ones to check.
    ocrPages: d.ocrPages,
    publishedAt: d.publishedAt,
    createdAt: d.createdAt,
    sharedWith: isOwner ? await listShares(deps.app, d.id) : null,
    memoryInStagedRuns: isOwner ? d.memoryInStagedRuns : null,
    // So the web app can say "closed since …" instead of offering a question chat.ask would refuse.
    runsClosedSince: isOwner ? runsClosedSince(deps.config.acceptRunsUntil, deps.now()) : null,
  };
}

export async function shareWith(
  deps: AppDeps,
  ownerId: string,
  input: { documentId: string; userId?: string | undefined; email?: string | undefined },
) {
  await requireOwnedDocument(deps, ownerId, input.documentId);
  if (input.email !== undefined) {
    if ((await getAccount(deps.app, ownerId))?.email === input.email)
      throw invalidInput('email: that is your own address; you already own this document.');
    // It waits, also when an account has the address now: whoever signed up first with an
    // address holds it, so the owner confirms the account by its name, or sends a link.
    await shareByEmail(deps.app, input.documentId, input.email, deps.now());
  } else {
    const userId = input.userId!;
    if (userId === ownerId) throw invalidInput('userId: you already own this document.');
    // By id: ids are random (the demo's are listed by auth.demoUsers anyway), so this answer
    // tells nothing an id's holder does not know.
    if (!(await getUser(deps.app, userId))) throw notFound('The user');
    await shareDocument(deps.app, input.documentId, userId, deps.now());
  }
  return { documentId: input.documentId, sharedWith: await listShares(deps.app, input.documentId) };
}

export async function removeOwnDocument(deps: AppDeps, ownerId: string, documentId: string) {
  await requireOwnedDocument(deps, ownerId, documentId);
  // Quotes of its text in the citations of agent replies go with it (migration 015).
  const removedAt = await removeDocument(deps.app, documentId, deps.now(), [
    clearQuotesStatement(documentId),
  ]);
  deps.library.search.forget(ownerId);
  await checkpointWal(deps.app, deps.config.appDb.url);
  const runs = await listRuns(deps.app, documentId);
  const sessionIds = runs.flatMap((r) => (r.sessionId ? [r.sessionId] : []));
  const sessions = await deps.store.getSessions(sessionIds);
  let forgotten = 0;
  for (const s of sessions.values()) {
    if (s.state === 'open' || s.state === 'expired') {
      try {
        await deps.store.forget(s.id);
        forgotten++;
      } catch (err) {
        // The document is already removed; a session that cannot be forgotten now is purged
        // at expiry anyway. Log it rather than fail the removal.
        deps.log.warn({ err, sessionId: s.id }, 'forget on document removal failed');
      }
    }
  }
  return { documentId, removedAt, forgottenSessions: forgotten };
}
