/**
 * Reviewed knowledge with links, corrections and a history that names the profile (issue 18),
 * read by Oh's real store, both on libSQL files (or servers): links to reviewed records only, decisions that keep
 * what was accepted and under which profile release, a decision table migrated from before,
 * and corrections that mark records — in `recordsAt` and in the agent's query rows — without
 * replacing them.
 */
import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { applyMigrations, recordDigest } from '@oh/memory';
import type { JsonValue, QueryRow } from '@oh/memory';
import { createReviewedKnowledge } from './knowledge.ts';
import { KNOWLEDGE_MIGRATIONS } from './migrations.ts';
import { failure, withReviewed } from './testing/harness.ts';
import type { ReviewedHarness } from './testing/harness.ts';
import type { ReviewDecisionInput } from './types.ts';

const PROFILE = { name: 'research', version: '1.0.0', digest: 'a'.repeat(64) };

function decision(
  name: string,
  fields: Record<string, JsonValue>,
  depends: string[] = [],
  extra: Partial<ReviewDecisionInput> = {},
): ReviewDecisionInput {
  return {
    documentId: 'doc:d',
    reviewerId: 'user:rev',
    decision: 'accept',
    comment: `checked ${name}`,
    record: {
      name,
      text: `about ${name}`,
      data: { profile: 'research', version: '1.0.0', fields },
      links: depends.map((to) => ({ rel: 'depends_on', to })),
    },
    sourceDocumentId: 'doc:paper',
    passage: `the passage for ${name}`,
    profile: PROFILE,
    ...extra,
  };
}

/** publication ← study ← finding, revisions 1..3. */
async function chain(h: ReviewedHarness): Promise<void> {
  await h.reviewed.decide(decision('publication:p', { title: 'P', status: 'published' }));
  await h.reviewed.decide(
    decision('study:s', { title: 'S', design: 'cohort', reportedIn: ['publication:p'] }, ['publication:p']),
  );
  await h.reviewed.decide(decision('finding:f', { statement: 'F', study: 'study:s' }, ['study:s']));
}

const correctionOf = (target: string, type = 'erratum') =>
  decision('correction:c', { corrects: target, type, date: '2021-02-03', reason: 'a typo' }, [target]);

const label = (rows: QueryRow[]) => rows.map((r) => `${r.source === 'note' ? 'n' : 'r'}:${r.name}`);

describe('links of reviewed records', () => {
  it('an accept links only to reviewed records of the document; a refused accept writes nothing', () =>
    withReviewed(async (h) => {
      await h.reviewed.decide(decision('study:s', { title: 'S' }));
      const missing = await failure(
        h.reviewed.decide(decision('finding:f', { study: 'study:s' }, ['study:s', 'sample:never-accepted'])),
      );
      expect(missing.reason).toBe('invalid_input');
      expect(missing.message).toBe(
        'record.links.1: sample:never-accepted is not a reviewed record of this document; a reviewed record links only to reviewed records',
      );
      // Another document's record is not this document's.
      await h.reviewed.decide(decision('sample:elsewhere', { size: 1 }, [], { documentId: 'doc:other' }));
      expect(
        (await failure(h.reviewed.decide(decision('finding:f', {}, ['sample:elsewhere'])))).message,
      ).toMatch(/^record\.links\.0: sample:elsewhere is not a reviewed record of this document/);
      expect(await h.reviewed.latestRevision('doc:d')).toBe(1);
      expect((await h.reviewed.decisions('doc:d')).map((d) => d.name)).toEqual(['study:s']);

      // A reject is only a decision: what it would have linked to need not exist.
      const rejected = await h.reviewed.decide(
        decision('finding:f', {}, ['sample:never-accepted'], { decision: 'reject', comment: 'no sample' }),
      );
      expect(rejected).toMatchObject({
        revision: null,
        links: [{ rel: 'depends_on', to: 'sample:never-accepted' }],
      });
      // A record may name itself (a new version of it is in view once accepted).
      const accepted = await h.reviewed.decide(decision('finding:f', {}, ['study:s', 'finding:f']));
      expect(accepted.revision).toBe(2);
      expect((await h.reviewed.recordsAt('doc:d', 2)).find((r) => r.name === 'finding:f')?.links).toEqual([
        { rel: 'depends_on', to: 'study:s' },
        { rel: 'depends_on', to: 'finding:f' },
      ]);
    }));

  it('related_to answers with the links both ways; supports only with supports links', () =>
    withReviewed(async (h) => {
      await chain(h);
      const { ctx } = await h.session({ pinnedRevision: 3 });
      const related = await h.store.query(ctx, { question: 'related_to', name: 'study:s' });
      expect(label(related.rows)).toEqual(['r:finding:f', 'r:publication:p']);
      const why = await h.store.explain(ctx, { token: related.explainToken, row: 0 });
      expect(why.reason).toMatch(/^finding:f has a depends_on link to study:s/);
      const supports = await h.store.query(ctx, { question: 'supports', name: 'study:s' });
      expect(supports.rows).toEqual([]);
    }));
});

describe('the decision on record', () => {
  it('keeps the record as decided and the profile release that validated it', () =>
    withReviewed(async (h) => {
      await chain(h);
      const [finding] = await h.reviewed.decisions('doc:d');
      expect(finding).toMatchObject({
        name: 'finding:f',
        kind: 'finding',
        text: 'about finding:f',
        data: { profile: 'research', version: '1.0.0', fields: { statement: 'F', study: 'study:s' } },
        links: [{ rel: 'depends_on', to: 'study:s' }],
        profile: PROFILE,
        revision: 3,
      });
      expect(finding!.digest).toBe(
        recordDigest({
          kind: 'finding',
          name: 'finding:f',
          text: finding!.text,
          data: finding!.data,
          links: finding!.links,
        }),
      );
      // Without a profile named (a caller outside review.decide), the data's own names stand.
      const bare = await h.reviewed.decide({ ...decision('method:m', { name: 'M' }), profile: undefined });
      expect(bare.profile).toBeNull();
      expect((await h.reviewed.decisions('doc:d'))[0]!.profile).toEqual({
        name: 'research',
        version: '1.0.0',
        digest: null,
      });
      const refused = await failure(
        h.reviewed.decide(decision('method:n', {}, [], { profile: { ...PROFILE, digest: 'XYZ' } })),
      );
      expect(refused.message).toMatch(/profile\.digest is 64 lowercase hex digits/);
    }));

  it('migrates a decision table from before profiles were kept: old decisions stay as they were', async () => {
    await withReviewed(async (h) => {
      const url = await h.database('before');
      const client = createClient({ url });
      try {
        await applyMigrations(client, 'reviewed', KNOWLEDGE_MIGRATIONS.slice(0, 1));
        const data = JSON.stringify({ fields: { statement: 'old' }, profile: 'research', version: '0.9.0' });
        const digest = recordDigest({
          kind: 'finding',
          name: 'finding:old',
          text: 'old',
          data: JSON.parse(data) as JsonValue,
        });
        await client.execute({
          sql: `INSERT INTO reviewed_decisions (id, document_id, name, kind, decision, comment, reviewer_id, source_document_id,
                  passage, text, data, links, digest, revision, proposed_from, at)
                VALUES ('d-old', 'doc:d', 'finding:old', 'finding', 'reject', 'no', 'user:rev', 'doc:paper', 'p', 'old', ?, '[]', ?, NULL, NULL, '2024-01-01T00:00:00.000Z')`,
          args: [data, digest],
        });
        const reviewed = await createReviewedKnowledge({ client });
        const [old] = await reviewed.decisions('doc:d');
        expect(old).toMatchObject({
          id: 'd-old',
          kind: 'finding',
          text: 'old',
          data: { profile: 'research', version: '0.9.0', fields: { statement: 'old' } },
          links: [],
          profile: { name: 'research', version: '0.9.0', digest: null },
          digest,
        });
        // Decisions after the migration keep the digest; history is still append-only.
        await reviewed.decide(decision('study:new', { title: 'N' }));
        expect((await reviewed.decisions('doc:d'))[0]!.profile).toEqual(PROFILE);
        await expect(client.execute(`UPDATE reviewed_decisions SET profile_digest = NULL`)).rejects.toThrow(
          /sponge:integrity/,
        );
        reviewed.close();
      } finally {
        client.close();
      }
    });
  });
});

describe('corrections and retractions', () => {
  it('a correction marks the records it touches and replaces none of them', () =>
    withReviewed(async (h) => {
      await chain(h);
      const before = await h.reviewed.recordsAt('doc:d', 3);
      expect(before.every((r) => r.marks?.length === 0)).toBe(true);
      await h.reviewed.decide(correctionOf('study:s'));
      const after = await h.reviewed.recordsAt('doc:d', 4);
      // Every record is still in view, unchanged; the corrected ones carry a mark.
      for (const r of before) expect(after.find((a) => a.name === r.name)?.digest).toBe(r.digest);
      expect(
        Object.fromEntries(after.map((r) => [r.name, r.marks?.map((m) => `${m.reason} ${m.by}`)])),
      ).toEqual({
        'correction:c': ['corrects correction:c'],
        'finding:f': ['corrected correction:c'],
        'publication:p': [],
        'study:s': ['corrected correction:c'],
      });
      // The revision before the correction has no marks.
      expect((await h.reviewed.recordsAt('doc:d', 3)).every((r) => r.marks?.length === 0)).toBe(true);
    }));

  it('the agent sees them as conflicts in its query rows, at the revision it pinned', () =>
    withReviewed(async (h) => {
      await chain(h);
      const early = await h.session({ pinnedRevision: 3 });
      await h.reviewed.decide(correctionOf('finding:f', 'retraction'));
      const late = await h.session({ pinnedRevision: 4 });

      const current = await h.store.query(late.ctx, { question: 'current_notes' });
      expect(label(current.rows)).toEqual(['r:correction:c', 'r:finding:f', 'r:publication:p', 'r:study:s']);
      expect(current.rows.map((r) => r.conflicts)).toEqual([[1], [0], [], []]);
      const why = await h.store.explain(late.ctx, { token: current.explainToken, row: 1 });
      expect(why).toMatchObject({ row: 1, name: 'finding:f' });

      const conflicts = await h.store.query(late.ctx, { question: 'conflicts' });
      expect(label(conflicts.rows)).toEqual(['r:correction:c', 'r:finding:f']);
      // explain says what the conflict is, not a contradicts link.
      expect(await h.store.explain(late.ctx, { token: conflicts.explainToken, row: 1 })).toMatchObject({
        reason: 'correction:c retracts finding:f',
        path: ['finding:f', 'retracted_by', 'correction:c'],
      });
      // The correction comes back as the counterpart of what it touches, from any question.
      const related = await h.store.query(late.ctx, { question: 'related_to', name: 'study:s' });
      expect(label(related.rows)).toEqual(['r:finding:f', 'r:publication:p', 'r:correction:c']);
      expect(related.rows.map((r) => r.conflicts)).toEqual([[2], [], [0]]);

      // A session pinned before the correction sees none of it.
      const earlier = await h.store.query(early.ctx, { question: 'conflicts' });
      expect(earlier.rows).toEqual([]);
      expect((await h.store.reviewedInView(early.info.id)).every((r) => r.marks?.length === 0)).toBe(true);
      expect((await h.store.reviewedInView(late.info.id)).find((r) => r.name === 'finding:f')?.marks).toEqual(
        [{ reason: 'retracted', by: 'correction:c', target: 'finding:f', path: ['finding:f'] }],
      );
    }));

  it('a publication marked retracted touches what depends on it, through every link', () =>
    withReviewed(async (h) => {
      await chain(h);
      await h.reviewed.decide(decision('publication:p', { title: 'P', status: 'retracted' }));
      const { ctx } = await h.session({ pinnedRevision: 4 });
      const conflicts = await h.store.query(ctx, { question: 'conflicts' });
      expect(label(conflicts.rows)).toEqual(['r:finding:f', 'r:publication:p', 'r:study:s']);
      expect(conflicts.rows.map((r) => r.conflicts)).toEqual([[1], [0, 2], [1]]);
      const inView = await h.store.reviewedInView(ctx.sessionId);
      expect(inView.find((r) => r.name === 'finding:f')?.marks).toEqual([
        {
          reason: 'retracted',
          by: 'publication:p',
          target: 'publication:p',
          path: ['finding:f', 'study:s', 'publication:p'],
        },
      ]);
    }));
});
