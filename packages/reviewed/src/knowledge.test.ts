import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { recordDigest } from '@oh/memory';
import { createReviewedKnowledge } from './knowledge.ts';
import { failure, withReviewed } from './testing/harness.ts';
import type { ReviewDecisionInput } from './types.ts';

const decision = (
  name: string,
  text: string,
  extra: Partial<ReviewDecisionInput> = {},
): ReviewDecisionInput => ({
  documentId: 'doc:d',
  reviewerId: 'user:rev',
  decision: 'accept',
  comment: 'matches the source',
  record: { name, text },
  sourceDocumentId: 'doc:paper',
  passage: `the passage for ${name}`,
  ...extra,
});

describe('reviewed knowledge', () => {
  it('accept creates the next revision; reject records the decision only; both stay on record', () =>
    withReviewed(async (h) => {
      const r = h.reviewed;
      expect(await r.latestRevision('doc:d')).toBe(0);
      const a = await r.decide(decision('finding:a', 'A', { proposedFrom: 'note:s1:finding:a' }));
      expect(a).toMatchObject({
        decision: 'accept',
        revision: 1,
        name: 'finding:a',
        digest: recordDigest({ kind: 'finding', name: 'finding:a', text: 'A' }),
      });
      h.clock.advance(1000);
      const no = await r.decide(
        decision('finding:b', 'B', { decision: 'reject', comment: 'not in the source' }),
      );
      expect(no.revision).toBeNull();
      h.clock.advance(1000);
      const b = await r.decide(
        decision('finding:c', 'C', {
          record: {
            name: 'finding:c',
            text: 'C',
            data: { n: 1 },
            links: [{ rel: 'depends_on', to: 'finding:a' }],
          },
        }),
      );
      expect(b.revision).toBe(2);
      expect(await r.latestRevision('doc:d')).toBe(2);
      expect(await r.latestRevision('doc:other')).toBe(0);
      expect((await r.decisions('doc:d')).map((d) => [d.name, d.decision, d.revision])).toEqual([
        ['finding:c', 'accept', 2],
        ['finding:b', 'reject', null],
        ['finding:a', 'accept', 1],
      ]);
      const at2 = await r.recordsAt('doc:d', 2);
      expect(at2.map((x) => x.name)).toEqual(['finding:a', 'finding:c']);
      expect(at2[1]).toMatchObject({
        data: { n: 1 },
        links: [{ rel: 'depends_on', to: 'finding:a' }],
        revision: 2,
        sourceDocumentId: 'doc:paper',
        reviewerId: 'user:rev',
      });
      expect((await r.recordsAt('doc:d', 1)).map((x) => x.name)).toEqual(['finding:a']);
      expect(await r.recordsAt('doc:d', 0)).toEqual([]);
    }));

  it('records are valid over revision ranges: a re-accepted name replaces its earlier version from then on', () =>
    withReviewed(async (h) => {
      const r = h.reviewed;
      await r.decide(decision('finding:t', 'first reading'));
      await r.decide(decision('finding:u', 'other'));
      await r.decide(decision('finding:t', 'corrected reading'));
      expect((await r.recordsAt('doc:d', 1)).map((x) => x.text)).toEqual(['first reading']);
      expect((await r.recordsAt('doc:d', 2)).map((x) => x.text)).toEqual(['first reading', 'other']);
      expect((await r.recordsAt('doc:d', 3)).map((x) => x.text)).toEqual(['corrected reading', 'other']);
      expect((await r.recordsAt('doc:d', 99)).map((x) => x.text)).toEqual(['corrected reading', 'other']);
    }));

  it('no reviewed record without a source and a cited passage; input is strict', () =>
    withReviewed(async (h) => {
      for (const bad of [
        decision('finding:x', 'x', { passage: '' }),
        decision('finding:x', 'x', { passage: '   ' }),
        decision('finding:x', 'x', { sourceDocumentId: '' }),
        decision('finding:x', 'x', { reviewerId: '' }),
        decision('finding:x', 'x', { record: { name: 'Bad Name', text: 'x' } }),
        { ...decision('finding:x', 'x'), author: 'someone' } as ReviewDecisionInput,
        decision('finding:x', 'x', { record: { name: 'finding:x', text: 'x', data: 'z'.repeat(17_000) } }),
      ]) {
        expect((await failure(h.reviewed.decide(bad))).reason).toBe('invalid_input');
      }
      expect((await failure(h.reviewed.decide(decision('finding:x', 'x', { passage: '' })))).message).toMatch(
        /passage/,
      );
      expect(await h.reviewed.latestRevision('doc:d')).toBe(0);
      expect(await h.reviewed.decisions('doc:d')).toEqual([]);
    }));

  it('concurrent accepts from separate connections get distinct, gapless revisions', () =>
    withReviewed(async (h) => {
      const others = await Promise.all([1, 2, 3].map(() => createReviewedKnowledge({ url: h.appUrl })));
      try {
        const all = [h.reviewed, ...others];
        const results = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            all[i % all.length]!.decide(decision(`finding:c${i}`, String(i))),
          ),
        );
        expect(results.map((d) => d.revision).sort((a, b) => a! - b!)).toEqual(
          Array.from({ length: 16 }, (_, i) => i + 1),
        );
        expect(await h.reviewed.latestRevision('doc:d')).toBe(16);
        expect(await h.reviewed.recordsAt('doc:d', 16)).toHaveLength(16);
      } finally {
        for (const o of others) o.close();
      }
    }));

  it('the database refuses a duplicate revision and any rewrite of history', () =>
    withReviewed(async (h) => {
      await h.reviewed.decide(decision('finding:a', 'A'));
      const raw = createClient({ url: h.appUrl });
      try {
        await expect(
          raw.execute(
            `INSERT INTO reviewed_revisions (document_id, revision, decision_id, created_at) VALUES ('doc:d', 1, 'x', 'now')`,
          ),
        ).rejects.toThrow(/UNIQUE/);
        await expect(raw.execute(`UPDATE reviewed_records SET text = 'rewritten'`)).rejects.toThrow(
          /sponge:integrity/,
        );
        await expect(raw.execute(`UPDATE reviewed_decisions SET comment = 'rewritten'`)).rejects.toThrow(
          /sponge:integrity/,
        );
        await expect(raw.execute(`DELETE FROM reviewed_decisions`)).rejects.toThrow(/sponge:integrity/);
        await expect(raw.execute(`DELETE FROM reviewed_records`)).rejects.toThrow(/sponge:integrity/);
        await expect(
          raw.execute(`INSERT INTO reviewed_records (document_id, name, kind, text, links, digest, from_revision, decision_id, source_document_id, passage, reviewer_id, comment, created_at)
          VALUES ('doc:d', 'finding:n', 'finding', 't', '[]', 'd', 2, 'dx', 'src', '', 'r', 'c', 'now')`),
        ).rejects.toThrow(/CHECK|FOREIGN/);
      } finally {
        raw.close();
      }
    }));

  it('a session pinned at revision 1 does not see a record accepted at revision 2', () =>
    withReviewed(async (h) => {
      await h.reviewed.decide(decision('finding:one', 'first'));
      const pinned = await h.session({ pinnedRevision: await h.reviewed.latestRevision('doc:d') });
      // Warm the store's cache of revision 1, then accept more.
      expect((await h.store.reviewedInView(pinned.info.id)).map((r) => r.name)).toEqual(['finding:one']);
      await h.reviewed.decide(decision('finding:two', 'second'));
      await h.reviewed.decide(decision('finding:one', 'first, corrected'));
      const later = await h.session({ pinnedRevision: await h.reviewed.latestRevision('doc:d') });

      expect((await h.store.reviewedInView(pinned.info.id)).map((r) => [r.name, r.text])).toEqual([
        ['finding:one', 'first'],
      ]);
      expect(
        (await h.store.query(pinned.ctx, { question: 'current_notes' })).rows.map((r) => r.name),
      ).toEqual(['finding:one']);
      expect((await failure(h.store.read(pinned.ctx, { name: 'finding:two' }))).reason).toBe('no_such_note');
      expect((await h.store.read(pinned.ctx, { name: 'finding:one' })).text).toBe('first');

      expect((await h.store.reviewedInView(later.info.id)).map((r) => [r.name, r.text])).toEqual([
        ['finding:one', 'first, corrected'],
        ['finding:two', 'second'],
      ]);
      expect((await h.store.read(later.ctx, { name: 'finding:one' })).revision).toBe(3);
    }));

  it('shares an injected client without closing it', () =>
    withReviewed(async (h) => {
      const client = createClient({ url: h.appUrl });
      const shared = await createReviewedKnowledge({ client });
      expect(await shared.latestRevision('doc:d')).toBe(0);
      shared.close();
      expect((await client.execute('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      client.close();
    }));
});
