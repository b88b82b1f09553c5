/**
 * Corrections and retractions in reviewed knowledge (issue 18): which records of a revision a
 * Research correction or a retracted publication touches. A corrected record is never replaced
 * or hidden: it stays in view as it was accepted, and carries a mark naming what touches it.
 * `recordsAt` hands the records to Oh's store with their marks; the store turns them into the
 * conflicts a session's rows show, and never computes them itself.
 *
 * The marks are a function of the records in view at one revision, so a session pinned before a
 * correction was accepted does not see it, and one pinned after always does.
 *
 *   - A `correction` record of the Research profile whose `corrects` field names a record in view
 *     marks that record `corrected` (or `retracted`, when the correction's type is `retraction`),
 *     and the correction itself `corrects`.
 *   - A Research `publication` whose status, or one of whose versions, is `retracted` marks
 *     itself `retracted`.
 *   - Every record that depends on a marked record — through `depends_on` links, any number of
 *     steps — carries the same mark, with the chain of links that leads to it. A correction's own
 *     link to what it corrects is not a dependency, so nothing propagates through it.
 *
 * A reviewed record's `data` is `{ profile, version, fields }` (the API's review.decide writes it
 * so); records of other profiles, or without fields, are never corrections or retractions.
 */
import type { ReviewedRecord, RevisionMark } from '@oh/memory';

const RESEARCH = 'research';

interface Fields {
  profile: string;
  fields: Record<string, unknown>;
}

function profileFields(record: Pick<ReviewedRecord, 'data'>): Fields | null {
  const data = record.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const { profile, fields } = data as Record<string, unknown>;
  if (typeof profile !== 'string' || fields === null || typeof fields !== 'object' || Array.isArray(fields))
    return null;
  return { profile, fields: fields as Record<string, unknown> };
}

/** The record a Research correction corrects, and whether it is a retraction; null otherwise. */
function correctionOf(record: ReviewedRecord): { target: string; retraction: boolean } | null {
  if (record.kind !== 'correction') return null;
  const f = profileFields(record);
  if (f?.profile !== RESEARCH || typeof f.fields.corrects !== 'string') return null;
  return { target: f.fields.corrects, retraction: f.fields.type === 'retraction' };
}

/** Is this a Research publication marked retracted (its status, or any of its versions)? */
function isRetractedPublication(record: ReviewedRecord): boolean {
  if (record.kind !== 'publication') return false;
  const f = profileFields(record);
  if (f?.profile !== RESEARCH) return false;
  if (f.fields.status === 'retracted') return true;
  const versions = f.fields.versions;
  return (
    Array.isArray(versions) &&
    versions.some(
      (v) => v !== null && typeof v === 'object' && (v as Record<string, unknown>).status === 'retracted',
    )
  );
}

const byMark = (a: RevisionMark, b: RevisionMark): number =>
  a.by < b.by ? -1 : a.by > b.by ? 1 : a.target < b.target ? -1 : a.target > b.target ? 1 : 0;

/**
 * The marks of every touched record in `records` (one revision's view), by record name. Records
 * nothing touches are absent. Each record's marks are sorted by `by`, then `target`.
 *
 * @example
 * revisionMarks(view).get('finding:x')
 * // [{ reason: 'corrected', by: 'correction:x-erratum', target: 'finding:x', path: ['finding:x'] }]
 */
export function revisionMarks(records: readonly ReviewedRecord[]): Map<string, RevisionMark[]> {
  const byName = new Map(records.map((r) => [r.name, r]));
  // Who depends on whom: target name → the records with a depends_on link to it. Corrections do
  // not depend on what they correct.
  const dependents = new Map<string, string[]>();
  for (const record of records) {
    if (correctionOf(record)) continue;
    for (const link of record.links) {
      if (link.rel !== 'depends_on' || link.to === record.name || !byName.has(link.to)) continue;
      const list = dependents.get(link.to) ?? [];
      if (!list.includes(record.name)) list.push(record.name);
      dependents.set(link.to, list);
    }
  }

  const marks = new Map<string, RevisionMark[]>();
  const add = (name: string, mark: RevisionMark) => {
    const list = marks.get(name) ?? [];
    if (!list.some((m) => m.reason === mark.reason && m.by === mark.by && m.target === mark.target))
      list.push(mark);
    marks.set(name, list);
  };
  /** Marks `target` and, breadth first (so each gets its shortest chain), all that depends on it. */
  const spread = (target: string, by: string, reason: 'corrected' | 'retracted') => {
    const paths = new Map<string, string[]>([[target, [target]]]);
    const queue = [target];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      add(name, { reason, by, target, path: paths.get(name)! });
      for (const dependent of [...(dependents.get(name) ?? [])].sort()) {
        if (paths.has(dependent) || dependent === by) continue;
        paths.set(dependent, [dependent, ...paths.get(name)!]);
        queue.push(dependent);
      }
    }
  };

  for (const record of records) {
    const correction = correctionOf(record);
    if (correction && byName.has(correction.target) && correction.target !== record.name) {
      add(record.name, {
        reason: 'corrects',
        by: record.name,
        target: correction.target,
        path: [record.name, correction.target],
      });
      spread(correction.target, record.name, correction.retraction ? 'retracted' : 'corrected');
    }
    if (isRetractedPublication(record)) spread(record.name, record.name, 'retracted');
  }
  for (const list of marks.values()) list.sort(byMark);
  return marks;
}

/** One revision's records, each with what corrects or retracts it in that revision (`marks`). */
export function withMarks(records: readonly ReviewedRecord[]): ReviewedRecord[] {
  const marks = revisionMarks(records);
  return records.map((r) => ({ ...r, marks: marks.get(r.name) ?? [] }));
}
