import { describe, expect, it } from 'vitest';
import { revisionPairs, describeMark } from './reviewed-marks.ts';
import { withHarness } from './testing/harness.ts';
import type { QueryRow, ReviewedKnowledgeReader, RevisionMark } from './types.ts';

// Marks are the reader's (Sponge computes them from its Research profile and tests that in
// apps/api/src/reviewed); here, what the store makes of the marks it is handed.

const corrected = (path: string[]): RevisionMark => ({
  reason: 'corrected',
  by: 'correction:c',
  target: 'study:s',
  path,
});
const corrects: RevisionMark = {
  reason: 'corrects',
  by: 'correction:c',
  target: 'study:s',
  path: ['correction:c', 'study:s'],
};
/** correction:c corrects study:s, which sample:n and finding:f depend on. */
const correctionMarks = new Map<string, RevisionMark[]>([
  ['correction:c', [corrects]],
  ['finding:f', [corrected(['finding:f', 'study:s'])]],
  ['sample:n', [corrected(['sample:n', 'study:s'])]],
  ['study:s', [corrected(['study:s'])]],
]);
const ownRetraction: RevisionMark = {
  reason: 'retracted',
  by: 'publication:p',
  target: 'publication:p',
  path: ['publication:p'],
};

describe('the conflicts marks make', () => {
  it('pairs each touched record with what touches it, under both names', () => {
    const pairs = revisionPairs(correctionMarks);
    expect(
      pairs
        .get('correction:c')
        ?.map((p) => p.touched)
        .sort(),
    ).toEqual(['finding:f', 'sample:n', 'study:s']);
    expect(pairs.get('sample:n')?.map((p) => p.by)).toEqual(['correction:c']);
    // Retracted by its own status: marked, but in a pair only with what depends on it.
    const own = revisionPairs(new Map([['publication:p', [ownRetraction]]]));
    expect(own.size).toBe(0);
  });

  it('says why, with the chain of links', () => {
    const retracted: RevisionMark = { ...corrected(['finding:f', 'study:s']), reason: 'retracted' };
    expect(describeMark('finding:f', retracted)).toEqual({
      reason: 'finding:f depends on study:s; correction:c retracts study:s',
      path: ['finding:f', 'depends_on', 'study:s', 'retracted_by', 'correction:c'],
    });
    expect(describeMark('correction:c', corrects)).toEqual({
      reason: 'correction:c corrects study:s',
      path: ['correction:c', 'corrects', 'study:s'],
    });
    expect(describeMark('study:s', { ...ownRetraction, path: ['study:s', 'publication:p'] }).reason).toBe(
      'study:s depends on publication:p; publication:p is marked retracted',
    );
  });
});

describe('marks come from the reader', () => {
  const label = (rows: QueryRow[]) => rows.map((r) => `${r.source === 'note' ? 'n' : 'r'}:${r.name}`);

  it("the store shows the conflicts of the reader's marks and computes none itself", () =>
    withHarness(async (h) => {
      // A Research retraction notice, as the application's data holds one, that names finding:f.
      await h.reviewed.accept('doc:d', { name: 'finding:f', text: 'F' });
      await h.reviewed.accept('doc:d', {
        name: 'correction:c',
        text: 'C',
        data: {
          profile: 'research',
          version: '1.0.0',
          fields: { corrects: 'finding:f', type: 'retraction', date: '2021-02-03', reason: 'r' },
        },
        links: [{ rel: 'depends_on', to: 'finding:f' }],
      });
      // A reader that attaches no marks: nothing is in conflict, whatever the records say.
      const bare = await h.session({ pinnedRevision: 2 });
      expect((await h.store.query(bare.ctx, { question: 'conflicts' })).rows).toEqual([]);
      expect((await h.store.reviewedInView(bare.info.id)).map((r) => r.marks)).toEqual([[], []]);

      const retracted: RevisionMark = {
        reason: 'retracted',
        by: 'correction:c',
        target: 'finding:f',
        path: ['finding:f'],
      };
      const marks: Record<string, RevisionMark[]> = {
        'correction:c': [{ ...retracted, reason: 'corrects', path: ['correction:c', 'finding:f'] }],
        'finding:f': [retracted],
      };
      const marking: ReviewedKnowledgeReader = {
        latestRevision: (d) => h.reviewed.latestRevision(d),
        recordsAt: async (d, r) =>
          (await h.reviewed.recordsAt(d, r)).map((rec) => ({ ...rec, marks: marks[rec.name] ?? [] })),
      };
      const store = await h.openStore({ reviewed: marking });
      const { ctx, info } = await h.session({ pinnedRevision: 2 }, store);
      const conflicts = await store.query(ctx, { question: 'conflicts' });
      expect(label(conflicts.rows)).toEqual(['r:correction:c', 'r:finding:f']);
      expect(conflicts.rows.map((r) => r.conflicts)).toEqual([[1], [0]]);
      expect(await store.explain(ctx, { token: conflicts.explainToken, row: 1 })).toMatchObject({
        reason: 'correction:c retracts finding:f',
        path: ['finding:f', 'retracted_by', 'correction:c'],
      });
      expect((await store.reviewedInView(info.id)).find((r) => r.name === 'finding:f')?.marks).toEqual([
        retracted,
      ]);
    }));
});
