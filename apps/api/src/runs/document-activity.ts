/**
 * The documents a person may read, as the library lists them, with what their runs add for the
 * owner: a run accepted or a chat message is activity on the document (the library knows only
 * when it was added, shared or published), and the owner's newest session with working memory on
 * it is what the library view shows the memory of. Runs are the app's rows, so the app adds them.
 */
import type { Client } from '@libsql/client';
import { getVisibleDocument, listVisibleDocuments } from '@sponge/library';
import type { DocumentRecord, DocumentSummary } from '@sponge/library';

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

/** Text compared as SQLite's BINARY collation does: by the bytes of its UTF-8. */
const binary = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Every document the user may read, most recently active first (then by title and id). */
export async function listReadableDocuments(db: Client, userId: string): Promise<ReadableDocument[]> {
  const docs = await listVisibleDocuments(db, userId);
  const activity = await runActivity(
    db,
    docs.filter((d) => d.access === 'owner').map((d) => d.id),
  );
  return docs
    .map((d) => withActivity(d, activity))
    .sort(
      (a, b) => binary(b.lastActivityAt, a.lastActivityAt) || binary(a.title, b.title) || binary(a.id, b.id),
    );
}

/** One document the user may read (null otherwise), with its runs' activity for its owner. */
export async function getReadableDocument(
  db: Client,
  userId: string,
  documentId: string,
): Promise<(DocumentRecord & { newestSessionId: string | null }) | null> {
  const doc = await getVisibleDocument(db, userId, documentId);
  if (!doc) return null;
  return withActivity(doc, doc.access === 'owner' ? await runActivity(db, [doc.id]) : new Map());
}
