import { describe, expect, it } from 'vitest';
import { recordDigest } from './records.ts';
import { createMemoryStore } from './store.ts';
import { adds, failure, withHarness } from './testing/harness.ts';
import { TOKEN_SECRET } from './testing/fixtures.ts';
import type { Harness } from './testing/harness.ts';
import type { ReviewedKnowledgeReader } from './types.ts';

async function accept(h: Harness, name: string, text: string) {
  await h.reviewed.accept('doc:d', { name, text });
}

describe('read', () => {
  it('returns a note with content and its digest; notes first, then reviewed in view', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:x', 'reviewed x');
      await accept(h, 'finding:only-reviewed', 'only reviewed');
      const { ctx } = await h.session({ pinnedRevision: 2 });
      const r = await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [{ op: 'add', name: 'finding:x', text: 'my note', data: { n: 1.5 }, links: [] }],
      });
      const note = await h.store.read(ctx, { name: 'finding:x' });
      expect(note).toEqual({
        source: 'note',
        kind: 'finding',
        name: 'finding:x',
        text: 'my note',
        data: { n: 1.5 },
        links: [],
        digest: r.applied[0]!.digest,
        version: 1,
        author: ctx.author,
        createdAt: h.clock.now().toISOString(),
        updatedAt: h.clock.now().toISOString(),
      });
      const reviewed = await h.store.read(ctx, { name: 'finding:x', source: 'reviewed' });
      expect(reviewed).toMatchObject({
        source: 'reviewed',
        text: 'reviewed x',
        revision: 2,
        author: 'user:rev',
        digest: recordDigest({ kind: 'finding', name: 'finding:x', text: 'reviewed x' }),
      });
      expect(reviewed.version).toBeUndefined();
      expect(await h.store.read(ctx, { name: 'finding:only-reviewed' })).toMatchObject({
        source: 'reviewed',
        text: 'only reviewed',
      });
      expect(
        (await failure(h.store.read(ctx, { name: 'finding:only-reviewed', source: 'note' }))).reason,
      ).toBe('no_such_note');
      const missing = await failure(h.store.read(ctx, { name: 'lead:nothing' }));
      expect(missing.reason).toBe('no_such_note');
      expect(missing.message).toMatch(/lead:nothing/);
      expect((await failure(h.store.read(ctx, { name: 'finding:x', author: 'x' } as never))).reason).toBe(
        'invalid_input',
      );
    }));

  it('a digest in the input that no longer matches is stale_digest', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const first = await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 1) });
      const digest = first.applied[0]!.digest!;
      await expect(h.store.read(ctx, { name: 'lead:x-0', digest })).resolves.toMatchObject({ digest });
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: '2',
        changes: [{ op: 'replace', name: 'lead:x-0', text: 'changed' }],
      });
      const stale = await failure(h.store.read(ctx, { name: 'lead:x-0', digest }));
      expect(stale.reason).toBe('stale_digest');
      expect(stale.message).toContain(digest.slice(0, 4));
    }));

  it('content whose digest no longer matches is an integrity error, never returned', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 2) });
      // Corrupt a stored note behind the store's back (the projection table has no update guard).
      await h.raw().execute({
        sql: `UPDATE notes SET text = 'tampered' WHERE session_id = ? AND name = 'lead:x-0'`,
        args: [ctx.sessionId],
      });
      const error = await failure(h.store.read(ctx, { name: 'lead:x-0' }));
      expect(error.reason).toBe('integrity');
      expect(error.message).toMatch(/lead:x-0 failed its integrity check/);
      expect((await failure(h.store.notes(ctx.sessionId))).reason).toBe('integrity');
      // The untouched note still reads, and verify pinpoints the corrupted one.
      await expect(h.store.read(ctx, { name: 'lead:x-1' })).resolves.toMatchObject({ text: 'x 1' });
      const report = await h.store.verify(ctx.sessionId);
      expect(report.ok).toBe(false);
      expect(report.mismatches.map((m) => m.name)).toEqual(['lead:x-0']);
    }));

  it('a reviewed record whose content does not match its digest is an integrity error too', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:x', 'reviewed x');
      // A reader that hands out a record whose text was altered after its digest was taken.
      const tampered: ReviewedKnowledgeReader = {
        latestRevision: (d) => h.reviewed.latestRevision(d),
        recordsAt: async (d, r) =>
          (await h.reviewed.recordsAt(d, r)).map((rec) => ({ ...rec, text: 'altered' })),
      };
      const store = await createMemoryStore({
        url: h.memoryUrl,
        tokenSecret: TOKEN_SECRET,
        reviewed: tampered,
        now: h.clock.now,
      });
      try {
        const { ctx } = await h.session({ pinnedRevision: 1 }, store);
        expect((await failure(store.read(ctx, { name: 'finding:x' }))).reason).toBe('integrity');
        expect((await failure(store.reviewedInView(ctx.sessionId))).reason).toBe('integrity');
      } finally {
        store.close();
      }
    }));
});

describe('preload', () => {
  it('is current_notes with at most 24 rows, and says when it cut', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      expect(await h.store.preload(ctx)).toEqual({ rows: [], truncated: false });
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 10) });
      const few = await h.store.preload(ctx);
      expect(few).toMatchObject({ truncated: false });
      expect(few.rows).toHaveLength(10);
      await h.store.remember(ctx, { basedOn: 1, requestId: '2', changes: adds('y', 30) });
      const cut = await h.store.preload(ctx);
      expect(cut.truncated).toBe(true);
      expect(cut.rows).toHaveLength(24);
      expect(cut.rows[0]!.name).toBe('lead:y-29');
      for (const row of cut.rows)
        expect(Object.keys(row).sort()).toEqual(['conflicts', 'digest', 'kind', 'name', 'row', 'source']);
    }));

  it('stays within 4,000 characters of JSON rows', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      // Long names: 24 rows of these would be far over 4,000 characters.
      const changes = Array.from({ length: 24 }, (_, i) => ({
        op: 'add' as const,
        name: `lead:${String(i).padStart(2, '0')}-${'n'.repeat(90)}`,
        text: 't',
      }));
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes });
      const preload = await h.store.preload(ctx);
      expect(preload.truncated).toBe(true);
      expect(JSON.stringify(preload.rows).length).toBeLessThanOrEqual(4000);
      expect(preload.rows.length).toBeGreaterThan(10);
      expect(preload.rows.length).toBeLessThan(24);
      expect(preload.rows.map((r) => r.row)).toEqual(preload.rows.map((_, i) => i));
    }));

  it('never splits a conflict: a row and its counterpart come together or not at all', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [{ op: 'add', name: 'lead:old', text: 'old' }],
      });
      await h.store.remember(ctx, { basedOn: 1, requestId: '2', changes: adds('mid', 22) });
      await h.store.remember(ctx, {
        basedOn: 2,
        requestId: '3',
        changes: [
          { op: 'add', name: 'lead:new', text: 'new', links: [{ rel: 'contradicts', to: 'lead:old' }] },
        ],
      });
      // current_notes: lead:new, 22 mids, lead:old (24 rows) — lead:old is on the page; fine.
      const preload = await h.store.preload(ctx);
      const names = preload.rows.map((r) => r.name);
      expect(preload.rows.length).toBeLessThanOrEqual(24);
      const iNew = names.indexOf('lead:new');
      const iOld = names.indexOf('lead:old');
      expect(names).toContain('lead:new');
      expect(names).toContain('lead:old');
      expect(preload.rows[iNew]!.conflicts).toEqual([iOld]);
      expect(preload.rows[iOld]!.conflicts).toEqual([iNew]);
      // With one more note, lead:old falls off the 24-row page: it is appended as counterpart,
      // so one more primary row has to go to stay at 24.
      await h.store.remember(ctx, { basedOn: 3, requestId: '4', changes: adds('late', 1) });
      const again = await h.store.preload(ctx);
      expect(again.rows).toHaveLength(24);
      expect(again.truncated).toBe(true);
      const n2 = again.rows.map((r) => r.name);
      expect(again.rows[n2.indexOf('lead:new')]!.conflicts).toEqual([n2.indexOf('lead:old')]);
      expect(n2.at(-1)).toBe('lead:old');
    }));
});
