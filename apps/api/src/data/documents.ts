import type { Client, Row } from '@libsql/client';

export type Access = 'owner' | 'shared' | 'public';

export interface DocumentSummary {
  id: string;
  title: string;
  ownerId: string;
  ownerName: string;
  authors: string[];
  abstract: string;
  access: Access;
  publishedAt: string | null;
}

export interface DocumentRecord extends DocumentSummary {
  text: string;
  memoryInStagedRuns: boolean;
  createdAt: string;
}

const SUMMARY_COLUMNS = `d.id, d.title, d.owner_id, u.name AS owner_name, d.authors, d.abstract, p.published_at`;

// One rule, used by list and get alike: owner first, then a share, then a publication.
const ACCESS_SQL = `CASE WHEN d.owner_id = :user THEN 'owner'
                         WHEN s.user_id IS NOT NULL THEN 'shared'
                         WHEN p.document_id IS NOT NULL THEN 'public' END`;

const FROM_VISIBLE = `FROM documents d
  JOIN users u ON u.id = d.owner_id
  LEFT JOIN shares s ON s.document_id = d.id AND s.user_id = :user
  LEFT JOIN publications p ON p.document_id = d.id
  WHERE d.removed_at IS NULL
    AND (d.owner_id = :user OR s.user_id IS NOT NULL OR p.document_id IS NOT NULL)`;

function parseAuthors(v: unknown): string[] {
  try {
    const a: unknown = JSON.parse(String(v));
    return Array.isArray(a) ? a.map(String) : [];
  } catch {
    return [];
  }
}

function toSummary(r: Row): DocumentSummary {
  return {
    id: String(r.id),
    title: String(r.title),
    ownerId: String(r.owner_id),
    ownerName: String(r.owner_name),
    authors: parseAuthors(r.authors),
    abstract: String(r.abstract),
    access: String(r.access) as Access,
    publishedAt: r.published_at === null ? null : String(r.published_at),
  };
}

/** Every live document the user may read, with how they may read it. */
export async function listVisibleDocuments(db: Client, userId: string): Promise<DocumentSummary[]> {
  const rs = await db.execute({
    sql: `SELECT ${SUMMARY_COLUMNS}, ${ACCESS_SQL} AS access ${FROM_VISIBLE} ORDER BY access = 'owner' DESC, d.title, d.id`,
    args: { user: userId },
  });
  return rs.rows.map(toSummary);
}

/** The document if the user may read it (owner, shared, public); null otherwise or when removed. */
export async function getVisibleDocument(db: Client, userId: string, documentId: string): Promise<DocumentRecord | null> {
  const rs = await db.execute({
    sql: `SELECT ${SUMMARY_COLUMNS}, d.text, d.memory_in_staged_runs, d.created_at, ${ACCESS_SQL} AS access
          ${FROM_VISIBLE} AND d.id = :doc`,
    args: { user: userId, doc: documentId },
  });
  const r = rs.rows[0];
  if (!r) return null;
  return {
    ...toSummary(r),
    text: String(r.text),
    memoryInStagedRuns: Number(r.memory_in_staged_runs) === 1,
    createdAt: String(r.created_at),
  };
}

/** Ownership facts for checks (removed documents included, so callers can tell them apart). */
export interface DocumentOwnership {
  id: string;
  ownerId: string;
  removedAt: string | null;
  memoryInStagedRuns: boolean;
}

export async function getDocumentOwnership(db: Client, documentId: string): Promise<DocumentOwnership | null> {
  const rs = await db.execute({
    sql: 'SELECT id, owner_id, removed_at, memory_in_staged_runs FROM documents WHERE id = ?',
    args: [documentId],
  });
  const r = rs.rows[0];
  if (!r) return null;
  return {
    id: String(r.id),
    ownerId: String(r.owner_id),
    removedAt: r.removed_at === null ? null : String(r.removed_at),
    memoryInStagedRuns: Number(r.memory_in_staged_runs) === 1,
  };
}

export interface NewDocument {
  id: string;
  ownerId: string;
  title: string;
  authors: string[];
  abstract: string;
  text: string;
}

export async function insertDocument(db: Client, doc: NewDocument, now: Date): Promise<void> {
  await db.execute({
    sql: `INSERT INTO documents (id, owner_id, title, authors, abstract, text, memory_in_staged_runs, created_at)
          VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
    args: [doc.id, doc.ownerId, doc.title, JSON.stringify(doc.authors), doc.abstract, doc.text, now.toISOString()],
  });
}

/** Idempotent: sharing twice keeps the first share. */
export async function shareDocument(db: Client, documentId: string, userId: string, now: Date): Promise<void> {
  await db.execute({
    sql: `INSERT INTO shares (document_id, user_id, created_at) VALUES (?, ?, ?)
          ON CONFLICT (document_id, user_id) DO NOTHING`,
    args: [documentId, userId, now.toISOString()],
  });
}

export async function listShares(db: Client, documentId: string): Promise<Array<{ id: string; name: string }>> {
  const rs = await db.execute({
    sql: `SELECT u.id, u.name FROM shares s JOIN users u ON u.id = s.user_id WHERE s.document_id = ? ORDER BY u.name, u.id`,
    args: [documentId],
  });
  return rs.rows.map((r) => ({ id: String(r.id), name: String(r.name) }));
}

/** Idempotent: returns the first publication time. */
export async function publishDocument(db: Client, documentId: string, now: Date): Promise<string> {
  await db.execute({
    sql: `INSERT INTO publications (document_id, published_at) VALUES (?, ?) ON CONFLICT (document_id) DO NOTHING`,
    args: [documentId, now.toISOString()],
  });
  const rs = await db.execute({ sql: 'SELECT published_at FROM publications WHERE document_id = ?', args: [documentId] });
  return String(rs.rows[0]?.published_at);
}

/** Soft removal: the row stays so runs keep a target, but no one can see or use it any more. */
export async function removeDocument(db: Client, documentId: string, now: Date): Promise<string> {
  await db.execute({
    sql: 'UPDATE documents SET removed_at = ? WHERE id = ? AND removed_at IS NULL',
    args: [now.toISOString(), documentId],
  });
  const rs = await db.execute({ sql: 'SELECT removed_at FROM documents WHERE id = ?', args: [documentId] });
  return String(rs.rows[0]?.removed_at);
}

export async function setMemoryInStagedRuns(db: Client, documentId: string, on: boolean): Promise<void> {
  await db.execute({
    sql: 'UPDATE documents SET memory_in_staged_runs = ? WHERE id = ?',
    args: [on ? 1 : 0, documentId],
  });
}
