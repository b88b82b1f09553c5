/**
 * What corrections and retractions in reviewed knowledge (issue 18) mean to a session: the
 * conflicts between two rows that the marks of one revision make, and a sentence saying why.
 *
 * The marks themselves are the application's: its `ReviewedKnowledgeReader` returns each record
 * with what corrects or retracts it at that revision (`ReviewedRecord.marks`; Sponge computes
 * them from its Research profile). Oh only reads them.
 */
import type { RevisionMark } from './types.ts';

/** Two records a mark puts in conflict: the touched one and the correction or retraction behind it. */
export interface RevisionPair {
  /** The record the mark is on (corrected, retracted, or depending on one that is). */
  touched: string;
  /** The correction, or the retracted publication, that marks it. */
  by: string;
  mark: RevisionMark;
}

/**
 * The conflicts marks make between two rows, by record name (each pair listed under both names).
 * A publication retracted by its own status has no second row: it is marked, but pairs only with
 * the records that depend on it. `corrects` marks are the other end of a `corrected` pair.
 */
export function revisionPairs(marks: ReadonlyMap<string, RevisionMark[]>): Map<string, RevisionPair[]> {
  const out = new Map<string, RevisionPair[]>();
  const push = (name: string, pair: RevisionPair) => out.set(name, [...(out.get(name) ?? []), pair]);
  for (const [touched, list] of marks) {
    for (const mark of list) {
      if (mark.reason === 'corrects' || mark.by === touched) continue;
      const pair = { touched, by: mark.by, mark };
      push(touched, pair);
      push(mark.by, pair);
    }
  }
  return out;
}

/** One sentence for a person or an agent: why a mark is there, and the chain of links behind it. */
export function describeMark(touched: string, mark: RevisionMark): { reason: string; path: string[] } {
  if (mark.reason === 'corrects') {
    return { reason: `${touched} corrects ${mark.target}`, path: [touched, 'corrects', mark.target] };
  }
  const what =
    mark.by === mark.target
      ? `${mark.target} is marked retracted`
      : `${mark.by} ${mark.reason === 'retracted' ? 'retracts' : 'corrects'} ${mark.target}`;
  const path = mark.path.flatMap((name, i) => (i === 0 ? [name] : ['depends_on', name]));
  const tail =
    mark.by === mark.target
      ? ['retracted']
      : [mark.reason === 'retracted' ? 'retracted_by' : 'corrected_by', mark.by];
  if (mark.target === touched) return { reason: what, path: [...path, ...tail] };
  const chain = mark.path.slice(1).join(', which depends on ');
  return {
    reason: `${touched} depends on ${chain}; ${what}`,
    path: [...path, ...tail],
  };
}
