import { describe, expect, it } from 'vitest';
import { linkConflicts, numberAnswer, revisionConflict, toQueryRows } from './conflicts.ts';
import type { ConflictReads } from './conflicts.ts';
import type { Candidate } from './answer-rows.ts';
import { kindOf } from './records.ts';
import type { RevisionPair } from './reviewed-marks.ts';
import type { Link } from './types.ts';

// The graph over rows alone; questions.test.ts covers the same marks end to end on libSQL.

const digest = (c: string) => c.repeat(64);
const contradicts = (to: string): Link => ({ rel: 'contradicts', to });

function note(name: string, d: string | null, links: Link[] = []): Candidate {
  return { source: 'note', kind: kindOf(name), name, digest: d, links, why: { t: 'counterpart' } };
}
function reviewed(name: string, d: string, links: Link[] = []): Candidate {
  return { source: 'reviewed', kind: kindOf(name), name, digest: d, links, why: { t: 'counterpart' } };
}

/** Reads over fixed rows (the notes live at V, the reviewed records in view), noting whose incoming links were asked for. */
function readsOf(rows: Candidate[], revisions: RevisionPair[] = []): ConflictReads & { calls: string[][] } {
  const notes = rows.filter((r) => r.source === 'note');
  const records = rows.filter((r) => r.source === 'reviewed');
  const linksTo = (list: Candidate[], name: string) =>
    list.filter((r) => r.links.some((l) => l.rel === 'contradicts' && l.to === name));
  const calls: string[][] = [];
  return {
    calls,
    notes: (names) =>
      Promise.resolve(new Map(notes.filter((n) => names.includes(n.name)).map((n) => [n.name, n]))),
    notesContradicting: (names) => {
      calls.push([...new Set(names)]);
      return Promise.resolve(
        [...new Set(names)].flatMap((to) => linksTo(notes, to).map((from) => ({ to, from }))),
      );
    },
    reviewed: (name) => records.find((r) => r.name === name),
    reviewedContradicting: (name) => linksTo(records, name),
    reviewedRevisions: (name) =>
      revisions
        .filter((p) => p.touched === name || p.by === name)
        .map((p) => ({
          other: records.find((r) => r.name === (p.touched === name ? p.by : p.touched))!,
          conflict: revisionConflict(p),
        })),
  };
}

const labels = (rows: Candidate[]) => rows.map((r) => `${r.source === 'note' ? 'n' : 'r'}:${r.name}`);

describe('the conflict graph', () => {
  it('marks a note and a reviewed record of one name with different digests, and appends the counterpart', async () => {
    const n = note('finding:t', digest('a'));
    const r = reviewed('finding:t', digest('b'));
    const same = note('finding:s', digest('c'));
    const reads = readsOf([n, r, same, reviewed('finding:s', digest('c'))]);

    const fromNote = numberAnswer(await linkConflicts(reads, [same, n]));
    expect(labels(fromNote.rows)).toEqual(['n:finding:s', 'n:finding:t', 'r:finding:t']);
    expect(fromNote.conflicts).toEqual([[], [2], [1]]);
    expect(fromNote.conflictReasons[1]).toEqual([
      { t: 'digest', name: 'finding:t', noteDigest: digest('a'), reviewedDigest: digest('b') },
    ]);
    expect(fromNote.primaryCount).toBe(2);

    // The same conflict seen from the reviewed side names the same digests.
    const fromRecord = numberAnswer(await linkConflicts(reads, [r]));
    expect(labels(fromRecord.rows)).toEqual(['r:finding:t', 'n:finding:t']);
    expect(fromRecord.conflictReasons[0]).toEqual(fromNote.conflictReasons[1]);
  });

  it('links both ends of contradicts, outgoing and incoming, from notes and reviewed records', async () => {
    const q = note('lead:q', digest('1'), [contradicts('finding:x')]);
    const xNote = note('finding:x', digest('2'));
    const xRecord = reviewed('finding:x', digest('2'));
    const critic = reviewed('finding:critic', digest('3'), [contradicts('lead:p')]);
    const p = note('lead:p', digest('4'));
    const reads = readsOf([q, xNote, xRecord, critic, p]);

    // Outgoing: both rows of the target, the note first.
    const out = numberAnswer(await linkConflicts(reads, [q]));
    expect(labels(out.rows)).toEqual(['n:lead:q', 'n:finding:x', 'r:finding:x']);
    expect(out.conflicts).toEqual([[1, 2], [0], [0]]);
    expect(out.conflictReasons[0]![1]).toEqual({
      t: 'contradicts',
      from: { source: 'note', name: 'lead:q' },
      to: { source: 'reviewed', name: 'finding:x' },
    });

    // Incoming: the note that contradicts x and the reviewed record that contradicts p.
    const incoming = numberAnswer(await linkConflicts(reads, [xRecord, p]));
    expect(labels(incoming.rows)).toEqual(['r:finding:x', 'n:lead:p', 'n:lead:q', 'r:finding:critic']);
    expect(incoming.conflicts).toEqual([[2], [3], [0], [1]]);
    expect(incoming.conflictReasons[1]).toEqual([
      {
        t: 'contradicts',
        from: { source: 'reviewed', name: 'finding:critic' },
        to: { source: 'note', name: 'lead:p' },
      },
    ]);
  });

  it('learns the conflicts between counterparts without appending theirs', async () => {
    // q contradicts x; x's note and record also disagree with each other; the record is
    // contradicted by z, which is not a counterpart of anything on the page.
    const q = note('lead:q', digest('1'), [contradicts('finding:x')]);
    const xNote = note('finding:x', digest('2'));
    const xRecord = reviewed('finding:x', digest('3'));
    const z = note('lead:z', digest('4'), [contradicts('finding:x')]);
    const reads = readsOf([q, xNote, xRecord, z]);
    const answer = numberAnswer(await linkConflicts(reads, [q]));
    expect(labels(answer.rows)).toEqual(['n:lead:q', 'n:finding:x', 'r:finding:x']);
    expect(answer.conflicts).toEqual([
      [1, 2],
      [0, 2],
      [0, 1],
    ]);
    // The second pass asks only about the appended rows.
    expect(reads.calls).toEqual([['lead:q'], ['finding:x']]);
  });

  it('marks a reviewed record touched by a correction and the correction, and appends the correction', async () => {
    const finding = reviewed('finding:f', digest('1'), [{ rel: 'depends_on', to: 'study:s' }]);
    const study = reviewed('study:s', digest('2'));
    const correction = reviewed('correction:c', digest('3'), [{ rel: 'depends_on', to: 'study:s' }]);
    const pairs: RevisionPair[] = [
      {
        touched: 'study:s',
        by: 'correction:c',
        mark: { reason: 'corrected', by: 'correction:c', target: 'study:s', path: ['study:s'] },
      },
      {
        touched: 'finding:f',
        by: 'correction:c',
        mark: { reason: 'corrected', by: 'correction:c', target: 'study:s', path: ['finding:f', 'study:s'] },
      },
    ];
    const reads = readsOf([finding, study, correction], pairs);
    const answer = numberAnswer(await linkConflicts(reads, [finding]));
    expect(labels(answer.rows)).toEqual(['r:finding:f', 'r:correction:c']);
    // The correction also touches the study, which is not on the page: learnt, not appended.
    expect(answer.conflicts).toEqual([[1], [0]]);
    expect(answer.conflictReasons[0]).toEqual([revisionConflict(pairs[1]!)]);
    // A working note of the same name and content is not what the correction is about.
    const onlyNote = numberAnswer(await linkConflicts(reads, [note('finding:f', digest('1'))]));
    expect(labels(onlyNote.rows)).toEqual(['n:finding:f']);
    expect(onlyNote.conflicts).toEqual([[]]);
  });

  it('gives a removed note no conflicts, and reads nothing for a page without live rows', async () => {
    const removed = note('lead:gone', null, []);
    const reads = readsOf([removed, reviewed('lead:gone', digest('5'))]);
    const answer = numberAnswer(await linkConflicts(reads, [removed]));
    expect(answer.conflicts).toEqual([[]]);
    expect(reads.calls).toEqual([]);
  });

  it('numbers the first `take` primaries once each, then their counterparts, as query rows', async () => {
    const a = note('lead:a', digest('1'), [contradicts('lead:b')]);
    const b = note('lead:b', digest('2'));
    const c = note('lead:c', digest('3'), [contradicts('lead:d')]);
    const d = note('lead:d', digest('4'));
    const graph = await linkConflicts(readsOf([a, b, c, d]), [a, b, a, c]);
    // b is both a primary and a's counterpart; a repeated primary is kept once.
    expect(labels(numberAnswer(graph).rows)).toEqual(['n:lead:a', 'n:lead:b', 'n:lead:c', 'n:lead:d']);
    const first = numberAnswer(graph, 1);
    expect(labels(first.rows)).toEqual(['n:lead:a', 'n:lead:b']);
    expect(first.primaryCount).toBe(1);
    expect(toQueryRows(first)).toEqual([
      { row: 0, source: 'note', kind: 'lead', name: 'lead:a', digest: digest('1'), conflicts: [1] },
      { row: 1, source: 'note', kind: 'lead', name: 'lead:b', digest: digest('2'), conflicts: [0] },
    ]);
  });
});
