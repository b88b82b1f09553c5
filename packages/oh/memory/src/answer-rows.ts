/**
 * What an answer of the question menu is made of (SPEC §5): rows, each a note as of V or a
 * reviewed record in view, with why it came back, and the conflicts that mark them. questions.ts
 * finds the rows, conflicts.ts links the conflicting ones, answers.ts numbers and explains them;
 * the three share these types, so none of them imports another for a type.
 */
import type { Link, LinkRel, ReviewedRecord, RevisionMark } from './types.ts';

export interface RowKey {
  source: 'note' | 'reviewed';
  name: string;
}

/** A row's identity: a note and a reviewed record may share a name, never a key. */
export const keyOf = (k: RowKey): string => `${k.source}\u0000${k.name}`;

export type Conflict =
  | { t: 'digest'; name: string; noteDigest: string; reviewedDigest: string }
  | { t: 'contradicts'; from: RowKey; to: RowKey }
  /** `from` is the touched record, `to` the correction or retracted publication (both reviewed). */
  | { t: 'revised'; from: RowKey; to: RowKey; mark: RevisionMark };

/** Why a row came back; explain turns it into a sentence. */
export type Why =
  | { t: 'note'; version: number; op: 'add' | 'replace'; author: string }
  | { t: 'reviewed'; record: ReviewedRecord }
  | { t: 'link'; from: string; rel: LinkRel; to: string }
  | { t: 'conflict'; conflict: Conflict }
  | { t: 'changed'; version: number; op: 'add' | 'replace' | 'remove'; author: string; since: number }
  | { t: 'counterpart' };

/** A row of an answer, before it is numbered. */
export interface Candidate extends RowKey {
  kind: string;
  digest: string | null;
  /** The row's links as of V (empty for a removed note); used to find contradictions. */
  links: Link[];
  why: Why;
}
