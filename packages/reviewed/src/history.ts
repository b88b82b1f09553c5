/**
 * What is on record about a document's reviewed knowledge (SPEC §7, issue 18), for its owner:
 * the history of decisions, each with the record as decided under which profile release, and an
 * export of the records in view at one revision with their provenance, as canonical JSON that can
 * be checked and cited outside the product (every record's digest recomputes from it).
 */
import type { Client } from '@libsql/client';
import { canonicalJson } from '@oh/memory';
import type { JsonValue, ReviewedRecord } from '@oh/memory';
import { kindOf } from '@sponge/contract';
import type { Link, McpToolOutput, OwnerInput } from '@sponge/contract';
import { listVisibleDocuments } from '@sponge/library';
import { ReviewError } from './errors.ts';
import { requireOwnDocument } from './own-document.ts';
import { userNames } from './people.ts';
import type { ReviewDecision, ReviewedKnowledge } from './types.ts';

const EXPORT_FORMAT = 'sponge-reviewed-knowledge/1';

/** Where a document's reviewed knowledge is read, with what names its sources and reviewers. */
export interface ReviewRecords {
  /** The application database: the library's documents, the reviewers' names. */
  db: Client;
  reviewed: ReviewedKnowledge;
}

type Profile = ReviewDecision['profile'];
type Mark = NonNullable<ReviewedRecord['marks']>[number];

export interface HistoryEntry {
  id: string;
  name: string;
  kind: string;
  decision: 'accept' | 'reject';
  comment: string;
  reviewerId: string;
  /** Null when the user is gone. */
  reviewerName: string | null;
  revision: number | null;
  digest: string;
  /** The record as decided: its text, its profile fields (canonical) and the links they made. */
  text: string;
  fields: Record<string, JsonValue> | null;
  links: Link[];
  /** The profile release that validated the fields (digest null on decisions made before it was kept). */
  profile: Profile;
  passage: string;
  /** The library document cited; the title is null when the owner can no longer read it. */
  source: { documentId: string; title: string | null };
  at: string;
}

/** The profile fields inside a reviewed record's data (`{ profile, version, fields }`). */
function fieldsOf(data: JsonValue | null): Record<string, JsonValue> | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const fields = data.fields;
  return fields !== null && typeof fields === 'object' && !Array.isArray(fields) ? fields : null;
}

/** The titles of the documents `userId` may read, by id (the library's rule). */
async function titles(db: Client, userId: string): Promise<Map<string, string>> {
  return new Map((await listVisibleDocuments(db, userId)).map((d) => [d.id, d.title]));
}

/** Every decision on the document, newest first. Owner only (`not_found` otherwise). */
export async function reviewHistory(
  { db, reviewed }: ReviewRecords,
  userId: string,
  documentId: string,
): Promise<{ latestRevision: number; decisions: HistoryEntry[] }> {
  await requireOwnDocument(db, userId, documentId);
  const decisions = await reviewed.decisions(documentId);
  const [names, visible] = await Promise.all([
    userNames(
      db,
      decisions.map((d) => d.reviewerId),
    ),
    titles(db, userId),
  ]);
  return {
    latestRevision: await reviewed.latestRevision(documentId),
    decisions: decisions.map((d) => ({
      id: d.id,
      name: d.name,
      kind: kindOf(d.name),
      decision: d.decision,
      comment: d.comment,
      reviewerId: d.reviewerId,
      reviewerName: names.get(d.reviewerId) ?? null,
      revision: d.revision,
      digest: d.digest,
      text: d.text,
      fields: fieldsOf(d.data),
      links: d.links,
      profile: d.profile,
      passage: d.passage,
      source: { documentId: d.sourceDocumentId, title: visible.get(d.sourceDocumentId) ?? null },
      at: d.at,
    })),
  };
}

/** One record of an export: its content (what the digest covers) and where it comes from. */
interface ExportedRecord {
  name: string;
  kind: string;
  text: string;
  data: JsonValue | null;
  links: Link[];
  digest: string;
  /** The revision that accepted this content. */
  fromRevision: number;
  source: { documentId: string; title: string | null };
  passage: string;
  decision: { id: string; reviewer: { id: string; name: string | null }; comment: string; at: string };
  profile: Profile;
  /** What corrects or retracts the record at the exported revision (empty when nothing does). */
  marks: Mark[];
}

/** A file-name-safe slug of a title. */
function slug(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return s || 'document';
}

/**
 * The records in view at `revision` of a document the caller owns (checked by the caller), with
 * their provenance: what the export holds and what the MCP endpoint lists as reviewed findings.
 */
async function recordsInView(
  { db, reviewed }: ReviewRecords,
  userId: string,
  documentId: string,
  revision: number,
): Promise<{ title: string; records: ExportedRecord[] }> {
  const [records, decisions, visible] = await Promise.all([
    revision === 0 ? Promise.resolve([]) : reviewed.recordsAt(documentId, revision),
    reviewed.decisions(documentId),
    titles(db, userId),
  ]);
  const byId = new Map(decisions.map((d) => [d.id, d]));
  const names = await userNames(
    db,
    records.map((r) => r.reviewerId),
  );
  return {
    title: visible.get(documentId) ?? documentId,
    records: records.map((r) => ({
      name: r.name,
      kind: r.kind,
      text: r.text,
      data: r.data,
      links: r.links,
      digest: r.digest,
      fromRevision: r.revision,
      source: { documentId: r.sourceDocumentId, title: visible.get(r.sourceDocumentId) ?? null },
      passage: r.passage,
      decision: {
        id: r.decisionId,
        reviewer: { id: r.reviewerId, name: names.get(r.reviewerId) ?? null },
        comment: r.comment,
        at: byId.get(r.decisionId)?.at ?? r.createdAt,
      },
      profile: byId.get(r.decisionId)?.profile ?? null,
      marks: r.marks ?? [],
    })),
  };
}

/**
 * A document's reviewed knowledge as the owner's own agent reads it over MCP (SPEC §7d): the
 * records in view at the newest revision, each with its source, passage, decision and the
 * revision that accepted it. Owner only (`not_found` otherwise).
 */
export async function reviewedFindings(
  on: ReviewRecords,
  userId: string,
  documentId: string,
): Promise<McpToolOutput<'list_reviewed_findings'>> {
  await requireOwnDocument(on.db, userId, documentId);
  const revision = await on.reviewed.latestRevision(documentId);
  const { title, records } = await recordsInView(on, userId, documentId, revision);
  return {
    documentId,
    title,
    revision,
    findings: records.map((r) => ({
      name: r.name,
      kind: r.kind,
      text: r.text,
      source: r.source,
      passage: r.passage,
      decision: {
        decision: 'accept' as const,
        reviewer: r.decision.reviewer.name,
        comment: r.decision.comment,
        at: r.decision.at,
      },
      revision: r.fromRevision,
      marks: r.marks,
    })),
  };
}

/**
 * The records in view at `revision` (the newest by default), with their provenance, as the
 * canonical JSON (RFC 8785) of `{ format, document, revision, exportedAt, records }`. Owner only.
 */
export async function reviewExport(
  on: ReviewRecords,
  userId: string,
  input: OwnerInput<'review.export'>,
  now: Date,
): Promise<{ filename: string; json: string }> {
  await requireOwnDocument(on.db, userId, input.documentId);
  const latest = await on.reviewed.latestRevision(input.documentId);
  const revision = input.revision ?? latest;
  if (revision > latest) {
    throw new ReviewError(
      'invalid_input',
      `Invalid input: revision: revision ${revision} does not exist; the newest revision of this document is ${latest}`,
    );
  }
  const { title, records } = await recordsInView(on, userId, input.documentId, revision);
  const json = canonicalJson({
    format: EXPORT_FORMAT,
    document: { id: input.documentId, title },
    revision,
    exportedAt: now.toISOString(),
    records,
  });
  return { filename: `${slug(title)}-reviewed-knowledge-rev${revision}.json`, json };
}
