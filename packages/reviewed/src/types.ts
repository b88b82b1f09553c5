/**
 * Reviewed knowledge as Sponge keeps it (SPEC §7): decisions on proposed records, each accept a
 * new revision of the document's knowledge. Oh's store sees only the read side of it
 * (`ReviewedKnowledgeReader`), which `ReviewedKnowledge` extends.
 */
import type { JsonValue, Link, ReviewedKnowledgeReader } from '@oh/memory';

/** The vocabulary profile release that validated a reviewed record (SPEC §7). */
export interface ReviewProfile {
  name: string;
  version: string;
  /** The pack's digest; null on decisions recorded before it was kept. */
  digest: string | null;
}

export interface ReviewDecisionInput {
  documentId: string;
  reviewerId: string;
  decision: 'accept' | 'reject';
  comment: string;
  /** The record as reviewed; its kind is the part of the name before the colon. */
  record: { name: string; text: string; data?: JsonValue; links?: Link[] };
  /** The library document the cited passage comes from (the API checks the passage occurs in it). */
  sourceDocumentId: string;
  passage: string;
  /** Where the proposal came from, e.g. `note:<sessionId>:<name>`; kept on record only. */
  proposedFrom?: string;
  /** The profile release whose codecs validated `record.data`, kept on the decision. */
  profile?: { name: string; version: string; digest: string };
}

export interface ReviewDecision {
  id: string;
  documentId: string;
  name: string;
  kind: string;
  /** The record as decided: text, data (canonical) and links, digested into `digest`. */
  text: string;
  data: JsonValue | null;
  links: Link[];
  /** The profile release that validated it (null when none was named). */
  profile: ReviewProfile | null;
  decision: 'accept' | 'reject';
  comment: string;
  reviewerId: string;
  sourceDocumentId: string;
  passage: string;
  digest: string;
  /** The revision an accept created; `null` for a reject. */
  revision: number | null;
  at: string;
}

/**
 * Reviewed knowledge in the application database: revisions, decisions, read as of a revision.
 * `recordsAt` returns each record with its marks (marks.ts), as Oh's store expects them.
 */
export interface ReviewedKnowledge extends ReviewedKnowledgeReader {
  /** Records a decision; `accept` creates revision latest+1 holding the record. */
  decide(input: ReviewDecisionInput): Promise<ReviewDecision>;
  /**
   * Records one decision on a group of records (a finding with its new study and publication),
   * all of one document, reviewer and decision, each name once: `accept` creates ONE revision
   * holding them all, whose links may name each other; all are recorded or none.
   */
  decideAll(inputs: readonly ReviewDecisionInput[]): Promise<ReviewDecision[]>;
  /** Every decision on a document, newest first. */
  decisions(documentId: string): Promise<ReviewDecision[]>;
  close(): void;
}
