import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './store.ts';
import { adds, failure, withHarness } from './testing/harness.ts';
import { TOKEN_SECRET } from './testing/fixtures.ts';
import type { Harness } from './testing/harness.ts';

async function accept(h: Harness, name: string, text: string) {
  await h.reviewed.accept('doc:d', { name, text });
}

describe('explain', () => {
  it('says why each row came back at the answer’s version, even after memory moved on', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:y', 'reviewed y');
      await accept(h, 'finding:z', 'reviewed z');
      const { ctx } = await h.session({ pinnedRevision: 2 });
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 2) });
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: '2',
        changes: [{ op: 'replace', name: 'lead:x-0', text: 'v2' }],
      });
      await h.store.remember(ctx, { basedOn: 2, requestId: '3', changes: adds('pad', 1, 'todo') });
      const answer = await h.store.query(ctx, { question: 'current_notes' });
      expect(answer.version).toBe(3);
      const before = await Promise.all(
        answer.rows.map((r) => h.store.explain(ctx, { token: answer.explainToken, row: r.row })),
      );

      // Memory moves on: lead:x-0 removed, lead:x-1 replaced, more notes.
      await h.store.remember(ctx, {
        basedOn: 3,
        requestId: '4',
        changes: [
          { op: 'remove', name: 'lead:x-0' },
          { op: 'replace', name: 'lead:x-1', text: 'changed' },
          ...adds('more', 3),
        ],
      });
      const after = await Promise.all(
        answer.rows.map((r) => h.store.explain(ctx, { token: answer.explainToken, row: r.row })),
      );
      expect(after).toEqual(before);

      const byName = new Map(after.map((e) => [`${e.source}:${e.name}`, e]));
      expect(byName.get('note:lead:x-0')).toMatchObject({
        question: 'current_notes',
        reason: `lead:x-0 is a working note at version 3, last changed at version 2 by ${ctx.author}`,
        path: ['lead:x-0'],
        basis: { version: 3, pinnedRevision: 2 },
      });
      expect(byName.get('note:lead:x-1')!.reason).toBe(
        `lead:x-1 is a working note at version 3, added at version 1 by ${ctx.author}`,
      );
      expect(byName.get('reviewed:finding:y')!.reason).toMatch(
        /^finding:y is reviewed knowledge at revision 2 \(accepted at revision 1 by user:rev/,
      );
      expect(byName.get('reviewed:finding:z')!.reason).toMatch(
        /^finding:z is reviewed knowledge at revision 2 \(accepted at revision 2/,
      );
    }));

  it('explains links, changes and conflict counterparts with a path', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:b', 'reviewed b');
      const { ctx } = await h.session({ pinnedRevision: 1 });
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [
          { op: 'add', name: 'lead:a', text: 'a', links: [{ rel: 'supports', to: 'finding:b' }] },
          { op: 'add', name: 'lead:c', text: 'c', links: [{ rel: 'contradicts', to: 'lead:a' }] },
        ],
      });
      const supports = await h.store.query(ctx, { question: 'supports', name: 'finding:b' });
      const s0 = await h.store.explain(ctx, { token: supports.explainToken, row: 0 });
      expect(s0).toMatchObject({
        name: 'lead:a',
        source: 'note',
        question: 'supports',
        path: ['lead:a', 'supports', 'finding:b'],
      });
      expect(s0.reason).toMatch(/^lead:a has a supports link to finding:b at version 1/);

      const related = await h.store.query(ctx, { question: 'related_to', name: 'lead:a' });
      const reasons = await Promise.all(
        related.rows.map((r) => h.store.explain(ctx, { token: related.explainToken, row: r.row })),
      );
      expect(reasons.map((e) => e.path)).toContainEqual(['lead:a', 'supports', 'finding:b']);
      expect(reasons.map((e) => e.path)).toContainEqual(['lead:c', 'contradicts', 'lead:a']);

      // lead:c contradicts lead:a: on a one-row page, the counterpart is appended and explained.
      const page = await h.store.query(ctx, { question: 'current_notes', limit: 1 });
      expect(page.rows.map((r) => r.name)).toEqual(['lead:c', 'lead:a']);
      const counterpart = await h.store.explain(ctx, { token: page.explainToken, row: 1 });
      expect(counterpart.reason).toMatch(
        /^lead:a \(a working note\) is shown because it conflicts with row 0 \(lead:c\): lead:c \(a working note\) has a contradicts link to lead:a/,
      );
      expect(counterpart.path).toEqual(['lead:c', 'contradicts', 'lead:a']);

      const conflicts = await h.store.query(ctx, { question: 'conflicts' });
      const k = await Promise.all(
        conflicts.rows.map((r) => h.store.explain(ctx, { token: conflicts.explainToken, row: r.row })),
      );
      expect(k.map((e) => [e.name, e.question, e.path])).toEqual([
        ['lead:a', 'conflicts', ['lead:c', 'contradicts', 'lead:a']],
        ['lead:c', 'conflicts', ['lead:c', 'contradicts', 'lead:a']],
      ]);

      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: '2',
        changes: [{ op: 'remove', name: 'lead:c' }],
      });
      const changed = await h.store.query(ctx, { question: 'changed_since', sinceVersion: 1 });
      const c0 = await h.store.explain(ctx, { token: changed.explainToken, row: 0 });
      expect(c0.reason).toBe(
        `lead:c was removed at version 2 by ${ctx.author}, after version 1 (answer at version 2)`,
      );
    }));

  it('refuses tampered, expired and other-session tokens, cursors, and rows out of range', () =>
    withHarness(async (h) => {
      const a = await h.session();
      const b = await h.session();
      await h.store.remember(a.ctx, { basedOn: 0, requestId: '1', changes: adds('x', 5) });
      const answer = await h.store.query(a.ctx, { question: 'current_notes', limit: 2 });
      expect(Date.parse(answer.explainExpiresAt) - h.clock.now().getTime()).toBe(600_000);
      const token = answer.explainToken;
      await expect(h.store.explain(a.ctx, { token, row: 0 })).resolves.toMatchObject({ row: 0 });

      const [body, mac] = token.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
      const tampered = [
        `${Buffer.from(JSON.stringify({ ...payload, v: 0 })).toString('base64url')}.${mac}`,
        `${Buffer.from(JSON.stringify({ ...payload, exp: Date.now() + 1e9 })).toString('base64url')}.${mac}`,
        `${body}.${mac.slice(0, -2)}AA`,
        `${body}x.${mac}`,
        body,
        'not-a-token',
      ];
      for (const t of tampered)
        expect((await failure(h.store.explain(a.ctx, { token: t, row: 0 }))).reason, t).toBe(
          'explain_token_invalid',
        );
      // Another session's agent cannot use it.
      expect((await failure(h.store.explain(b.ctx, { token, row: 0 }))).reason).toBe('explain_token_invalid');
      // A cursor is signed for another purpose.
      expect((await failure(h.store.explain(a.ctx, { token: answer.nextCursor!, row: 0 }))).reason).toBe(
        'explain_token_invalid',
      );
      // A token signed with another secret.
      const otherStore = await createMemoryStore({
        url: h.memoryUrl,
        tokenSecret: `${TOKEN_SECRET}-other`,
        reviewed: h.reviewed,
        now: h.clock.now,
      });
      try {
        const foreign = await otherStore.query(a.ctx, { question: 'current_notes' });
        expect((await failure(h.store.explain(a.ctx, { token: foreign.explainToken, row: 0 }))).reason).toBe(
          'explain_token_invalid',
        );
      } finally {
        otherStore.close();
      }
      // Out of range rows are invalid input.
      const out = await failure(h.store.explain(a.ctx, { token, row: 2 }));
      expect(out.reason).toBe('invalid_input');
      expect(out.message).toMatch(/row 2 is out of range: that answer has 2 rows/);
      // Expired after 10 minutes.
      h.clock.advance(600_000);
      const expired = await failure(h.store.explain(a.ctx, { token, row: 0 }));
      expect(expired.reason).toBe('explain_token_invalid');
      expect(expired.message).toMatch(/expired/);
    }));

  it('the token lifetime is configurable down, never above 10 minutes', () =>
    withHarness(async (h) => {
      const short = await h.openStore({ explainTtlSeconds: 30 });
      const { ctx } = await h.session({}, short);
      const answer = await short.query(ctx, { question: 'current_notes' });
      expect(Date.parse(answer.explainExpiresAt) - h.clock.now().getTime()).toBe(30_000);
      expect((await failure(h.openStore({ explainTtlSeconds: 601 }))).reason).toBe('invalid_input');
      expect((await failure(h.openStore({ tokenSecret: 'short' }))).message).toMatch(
        /at least 32 characters/,
      );
    }));
});
