/**
 * Rows of reviewed knowledge as `createReviewedKnowledge` returns them: a record in view, a
 * decision on record (with its profile release, also for decisions made before it was kept).
 */
import type { Row } from '@libsql/client';
import type { JsonValue, Link, ReviewedRecord } from '@oh/memory';
import { num, parseStoredData, parseStoredLinks, str, strOrNull } from '@oh/memory';
import type { ReviewDecision, ReviewDecisionInput, ReviewProfile } from './types.ts';

/** A decision input once checked (`reviewDecisionInputSchema`, knowledge.ts). */
export type ValidDecision = Omit<ReviewDecisionInput, 'record'> & {
  record: { name: string; text: string };
};

/** The decision `decide` just recorded, in the shape `decisions()` reads it back. */
export function decisionOut(
  valid: ValidDecision,
  made: { id: string; kind: string; data: string | null; links: Link[]; digest: string; at: string },
): Omit<ReviewDecision, 'revision'> {
  return {
    id: made.id,
    documentId: valid.documentId,
    name: valid.record.name,
    kind: made.kind,
    text: valid.record.text,
    // As stored: canonical, so what is returned now is what `decisions()` returns later.
    data: parseStoredData(made.data),
    links: made.links,
    profile: valid.profile ? { ...valid.profile } : null,
    decision: valid.decision,
    comment: valid.comment,
    reviewerId: valid.reviewerId,
    sourceDocumentId: valid.sourceDocumentId,
    passage: valid.passage,
    digest: made.digest,
    at: made.at,
  };
}

export function toRecord(row: Row): ReviewedRecord {
  return {
    kind: str(row.kind),
    name: str(row.name),
    text: str(row.text),
    data: parseStoredData(row.data),
    links: parseStoredLinks(row.links),
    digest: str(row.digest),
    documentId: str(row.document_id),
    revision: num(row.from_revision),
    sourceDocumentId: str(row.source_document_id),
    passage: str(row.passage),
    reviewerId: str(row.reviewer_id),
    decisionId: str(row.decision_id),
    comment: str(row.comment),
    createdAt: str(row.created_at),
  };
}

/**
 * The profile of a decision: from its own columns, or, for a decision recorded before they
 * existed, the name and version its data carries (the digest was not kept then).
 */
function profileOf(row: Row, data: JsonValue | null): ReviewProfile | null {
  const name = strOrNull(row.profile_name);
  const version = strOrNull(row.profile_version);
  if (name !== null && version !== null) return { name, version, digest: strOrNull(row.profile_digest) };
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const { profile, version: v } = data;
    if (typeof profile === 'string' && typeof v === 'string')
      return { name: profile, version: v, digest: null };
  }
  return null;
}

export function toDecision(row: Row): ReviewDecision {
  const revision = strOrNull(row.revision);
  const data = parseStoredData(row.data);
  return {
    id: str(row.id),
    documentId: str(row.document_id),
    name: str(row.name),
    kind: str(row.kind),
    text: str(row.text),
    data,
    links: parseStoredLinks(row.links),
    profile: profileOf(row, data),
    decision: str(row.decision) as ReviewDecision['decision'],
    comment: str(row.comment),
    reviewerId: str(row.reviewer_id),
    sourceDocumentId: str(row.source_document_id),
    passage: str(row.passage),
    digest: str(row.digest),
    revision: revision === null ? null : Number(revision),
    at: str(row.at),
  };
}
