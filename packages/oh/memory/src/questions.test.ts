import { describe, expect, it } from 'vitest';
import { adds, failure, withHarness } from './testing/harness.ts';
import type { Harness } from './testing/harness.ts';
import type { AgentContext, QueryAnswer, QueryInput, QueryRow } from './types.ts';

async function accept(
  h: Harness,
  name: string,
  text: string,
  links: Array<{ rel: 'supports' | 'depends_on' | 'contradicts'; to: string }> = [],
) {
  return h.reviewed.accept('doc:d', { name, text, links });
}

/** Follows nextCursor to the end; returns every page. */
async function allPages(h: Harness, ctx: AgentContext, input: QueryInput): Promise<QueryAnswer[]> {
  const pages: QueryAnswer[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = await h.store.query(ctx, { ...input, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    if (!page.nextCursor) return pages;
    cursor = page.nextCursor;
  }
  throw new Error('too many pages');
}

const names = (rows: QueryRow[]) => rows.map((r) => `${r.source === 'note' ? 'n' : 'r'}:${r.name}`);

describe('query: the question menu', () => {
  it('current_notes: notes newest change first, then reviewed records by name; names and digests only', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:b', 'B');
      await accept(h, 'finding:a', 'A');
      const { ctx } = await h.session({ pinnedRevision: 2 });
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 3) }); // x-0, x-1, x-2 at v1
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: '2',
        changes: [{ op: 'replace', name: 'lead:x-0', text: 'changed' }],
      });
      const answer = await h.store.query(ctx, { question: 'current_notes' });
      expect(answer).toMatchObject({ version: 2, pinnedRevision: 2, nextCursor: null });
      expect(names(answer.rows)).toEqual([
        'n:lead:x-0',
        'n:lead:x-2',
        'n:lead:x-1',
        'r:finding:a',
        'r:finding:b',
      ]);
      expect(answer.rows.map((r) => r.row)).toEqual([0, 1, 2, 3, 4]);
      for (const row of answer.rows) {
        expect(Object.keys(row).sort()).toEqual(['conflicts', 'digest', 'kind', 'name', 'row', 'source']);
        expect(row.digest).toMatch(/^[0-9a-f]{64}$/);
      }
      expect(answer.rows[3]).toMatchObject({ source: 'reviewed', kind: 'finding' });
    }));

  it('pages are keyset cursors pinned to the first page’s version', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:r1', 'r1');
      await accept(h, 'finding:r2', 'r2');
      const { ctx } = await h.session({ pinnedRevision: 2 });
      let v = 0;
      for (let i = 0; i < 5; i++)
        v = (await h.store.remember(ctx, { basedOn: v, requestId: `c${i}`, changes: adds(`v${i}`, 2) }))
          .version;
      const whole = await h.store.query(ctx, { question: 'current_notes', limit: 100 });
      const first = await h.store.query(ctx, { question: 'current_notes', limit: 3 });
      expect(first.rows).toHaveLength(3);
      // Memory moves on between pages: a new note, a removed one, a replaced one.
      await h.store.remember(ctx, {
        basedOn: v,
        requestId: 'later',
        changes: [
          { op: 'add', name: 'lead:new', text: 'new' },
          { op: 'remove', name: 'lead:v0-0' },
          { op: 'replace', name: 'lead:v2-1', text: 'changed' },
        ],
      });
      // …and a removed note comes back with other content.
      await h.store.remember(ctx, {
        basedOn: v + 1,
        requestId: 'again',
        changes: [{ op: 'add', name: 'lead:v0-0', text: 'back' }],
      });
      const pages = [first];
      for (let cursor = first.nextCursor; cursor;) {
        const page = await h.store.query(ctx, { question: 'current_notes', limit: 3, cursor });
        expect(page.version).toBe(v);
        pages.push(page);
        cursor = page.nextCursor;
      }
      expect(pages.length).toBe(4);
      const paged = pages.flatMap((p) => p.rows.map((r) => ({ ...r, row: 0 })));
      expect(paged).toEqual(whole.rows.map((r) => ({ ...r, row: 0 })));
      // A fresh first page sees the new version.
      const fresh = await h.store.query(ctx, { question: 'current_notes', limit: 100 });
      expect(fresh.version).toBe(v + 2);
      expect(names(fresh.rows).slice(0, 3)).toEqual(['n:lead:v0-0', 'n:lead:v2-1', 'n:lead:new']);
    }));

  it('a cursor is bound to its session and question, and cannot be forged', () =>
    withHarness(async (h) => {
      const a = await h.session();
      const b = await h.session();
      await h.store.remember(a.ctx, { basedOn: 0, requestId: '1', changes: adds('x', 5) });
      const page = await h.store.query(a.ctx, { question: 'current_notes', limit: 2 });
      const cursor = page.nextCursor!;
      expect((await failure(h.store.query(b.ctx, { question: 'current_notes', cursor }))).message).toMatch(
        /another session/,
      );
      expect((await failure(h.store.query(a.ctx, { question: 'conflicts', cursor }))).message).toMatch(
        /another question/,
      );
      const [body, mac] = cursor.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as { v: number };
      payload.v = 0;
      const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
      expect(
        (await failure(h.store.query(a.ctx, { question: 'current_notes', cursor: forged }))).reason,
      ).toBe('invalid_input');
      expect(
        (await failure(h.store.query(a.ctx, { question: 'current_notes', cursor: 'garbage' }))).reason,
      ).toBe('invalid_input');
      // An explain token is not a cursor.
      expect(
        (await failure(h.store.query(a.ctx, { question: 'current_notes', cursor: page.explainToken })))
          .reason,
      ).toBe('invalid_input');
    }));

  it('validates its input: limit 1..100, name for related_to/supports, sinceVersion for changed_since, no extra fields', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      for (const input of [
        { question: 'current_notes', limit: 0 },
        { question: 'current_notes', limit: 101 },
        { question: 'related_to' },
        { question: 'supports' },
        { question: 'changed_since' },
        { question: 'everything' },
        { question: 'current_notes', where: 'text LIKE %' },
      ]) {
        expect((await failure(h.store.query(ctx, input as QueryInput))).reason, JSON.stringify(input)).toBe(
          'invalid_input',
        );
      }
    }));

  it('related_to: rows linked to or from the name, notes and reviewed, by name', () =>
    withHarness(async (h) => {
      // A reviewed record links only to reviewed records already accepted.
      await accept(h, 'finding:method', 'M');
      await accept(h, 'finding:threshold', 'T', [{ rel: 'depends_on', to: 'finding:method' }]);
      await accept(h, 'finding:cites-t', 'C', [{ rel: 'supports', to: 'finding:threshold' }]);
      const { ctx } = await h.session({ pinnedRevision: 3 });
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [
          { op: 'add', name: 'lead:b', text: 'b', links: [{ rel: 'supports', to: 'finding:threshold' }] },
          {
            op: 'add',
            name: 'lead:a',
            text: 'a',
            links: [
              { rel: 'contradicts', to: 'finding:threshold' },
              { rel: 'depends_on', to: 'lead:c' },
            ],
          },
          { op: 'add', name: 'lead:c', text: 'c' },
          { op: 'add', name: 'lead:unrelated', text: 'u' },
        ],
      });
      const related = await h.store.query(ctx, { question: 'related_to', name: 'finding:threshold' });
      // lead:a contradicts finding:threshold, so the reviewed record itself is appended as its
      // counterpart: both ends of a conflict are always in the answer.
      expect(names(related.rows)).toEqual([
        'n:lead:a',
        'n:lead:b',
        'r:finding:cites-t',
        'r:finding:method',
        'r:finding:threshold',
      ]);
      expect(related.rows.map((r) => r.conflicts)).toEqual([[4], [], [], [], [0]]);
      const ofA = await h.store.query(ctx, { question: 'related_to', name: 'lead:a' });
      // lead:a's own row comes back only as the counterpart of the conflict it is part of.
      expect(names(ofA.rows)).toEqual(['n:lead:c', 'r:finding:threshold', 'n:lead:a']);
      expect(ofA.rows.map((r) => r.conflicts)).toEqual([[], [2], [1]]);

      const supports = await h.store.query(ctx, { question: 'supports', name: 'finding:threshold' });
      expect(names(supports.rows)).toEqual(['n:lead:b', 'r:finding:cites-t']);
    }));

  it('related_to and supports page by name without gaps or repeats', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const changes = [
        {
          op: 'add' as const,
          name: 'target:x',
          text: 'x',
          links: [
            { rel: 'depends_on' as const, to: 'lead:m05' },
            { rel: 'supports' as const, to: 'lead:m17' },
          ],
        },
        ...Array.from({ length: 30 }, (_, i) => ({
          op: 'add' as const,
          name: `lead:m${String(i).padStart(2, '0')}`,
          text: String(i),
          links:
            i % 3 === 0
              ? []
              : [
                  // Needed by tsc (the array's type is inferred before it meets Change[]); the lint rule sees the literal union.
                  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
                  { rel: (i % 2 ? 'supports' : 'depends_on') as 'supports' | 'depends_on', to: 'target:x' },
                  { rel: 'contradicts' as const, to: 'target:x' },
                ],
        })),
      ];
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes });
      const expectedRelated = changes
        .filter(
          (c) =>
            c.name !== 'target:x' &&
            (c.links.some((l) => l.to === 'target:x') || ['lead:m05', 'lead:m17'].includes(c.name)),
        )
        .map((c) => `n:${c.name}`)
        .sort();
      const pages = await allPages(h, ctx, { question: 'related_to', name: 'target:x', limit: 4 });
      expect(pages.flatMap((p) => names(p.rows.filter((r) => r.row < 4)))).toEqual(expectedRelated);
      const supporters = changes
        .filter((c) => c.links.some((l) => l.rel === 'supports' && l.to === 'target:x'))
        .map((c) => `n:${c.name}`);
      const sPages = await allPages(h, ctx, { question: 'supports', name: 'target:x', limit: 3 });
      expect(
        sPages.flatMap((p) =>
          names(p.rows).filter((n) => supporters.includes(n) || !n.startsWith('n:target')),
        ),
      ).toEqual(supporters);
    }));

  it('conflicts: same name with different digests, and contradicts links; both rows marked, counterparts appended', () =>
    withHarness(async (h) => {
      await accept(h, 'finding:threshold', '1 °C');
      await accept(h, 'finding:same', 'same text');
      const { ctx } = await h.session({ pinnedRevision: 2 });
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [
          { op: 'add', name: 'finding:threshold', text: '2 °C (my reading)' },
          { op: 'add', name: 'finding:same', text: 'same text' }, // same digest: no conflict
          { op: 'add', name: 'lead:p', text: 'p' },
          { op: 'add', name: 'lead:q', text: 'q', links: [{ rel: 'contradicts', to: 'lead:p' }] },
          { op: 'add', name: 'lead:calm', text: 'calm' },
        ],
      });
      const conflicts = await h.store.query(ctx, { question: 'conflicts' });
      expect(names(conflicts.rows)).toEqual([
        'n:finding:threshold',
        'n:lead:p',
        'n:lead:q',
        'r:finding:threshold',
      ]);
      const byName = new Map(conflicts.rows.map((r) => [`${r.source}:${r.name}`, r]));
      expect(byName.get('note:finding:threshold')!.conflicts).toEqual([3]);
      expect(byName.get('reviewed:finding:threshold')!.conflicts).toEqual([0]);
      expect(byName.get('note:lead:p')!.conflicts).toEqual([2]);
      expect(byName.get('note:lead:q')!.conflicts).toEqual([1]);

      // current_notes one row per page: the counterpart is appended so both rows are marked.
      const page = await h.store.query(ctx, { question: 'current_notes', limit: 1 });
      expect(names(page.rows)).toEqual(['n:lead:calm']);
      const pages = await allPages(h, ctx, { question: 'current_notes', limit: 1 });
      const withQ = pages.find((p) => p.rows[0]?.name === 'lead:q')!;
      expect(names(withQ.rows)).toEqual(['n:lead:q', 'n:lead:p']);
      expect(withQ.rows.map((r) => r.conflicts)).toEqual([[1], [0]]);
      const withT = pages.find(
        (p) => p.rows[0]?.name === 'finding:threshold' && p.rows[0].source === 'note',
      )!;
      expect(names(withT.rows)).toEqual(['n:finding:threshold', 'r:finding:threshold']);
      expect(withT.rows.map((r) => r.conflicts)).toEqual([[1], [0]]);
      const same = pages.find((p) => p.rows[0]?.name === 'finding:same')!;
      expect(same.rows).toHaveLength(1);
      expect(same.rows[0]!.conflicts).toEqual([]);
    }));

  it('a conflict is never resolved away: a removed contradicting note ends it, a dangling link stays visible on read', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [
          { op: 'add', name: 'lead:p', text: 'p' },
          { op: 'add', name: 'lead:q', text: 'q', links: [{ rel: 'contradicts', to: 'lead:p' }] },
        ],
      });
      const before = await h.store.query(ctx, { question: 'conflicts' });
      expect(before.rows).toHaveLength(2);
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: '2',
        changes: [{ op: 'remove', name: 'lead:p' }],
      });
      expect((await h.store.query(ctx, { question: 'conflicts' })).rows).toEqual([]);
      expect((await h.store.read(ctx, { name: 'lead:q' })).links).toEqual([
        { rel: 'contradicts', to: 'lead:p' },
      ]);
    }));

  it('changed_since: notes added, replaced or removed after a version, newest first, removed with digest null', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 4) });
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: '2',
        changes: [
          { op: 'replace', name: 'lead:x-1', text: 'r' },
          { op: 'remove', name: 'lead:x-2' },
        ],
      });
      await h.store.remember(ctx, {
        basedOn: 2,
        requestId: '3',
        changes: [
          { op: 'add', name: 'lead:y', text: 'y' },
          { op: 'replace', name: 'lead:x-1', text: 'again' },
        ],
      });
      const since1 = await h.store.query(ctx, { question: 'changed_since', sinceVersion: 1 });
      expect(since1.rows.map((r) => [r.name, r.digest === null])).toEqual([
        ['lead:x-1', false],
        ['lead:y', false],
        ['lead:x-2', true],
      ]);
      expect(since1.rows[2]).toMatchObject({ source: 'note', kind: 'lead', digest: null, conflicts: [] });
      expect((await h.store.query(ctx, { question: 'changed_since', sinceVersion: 3 })).rows).toEqual([]);
      const since0 = await allPages(h, ctx, { question: 'changed_since', sinceVersion: 0, limit: 2 });
      expect(since0.flatMap((p) => p.rows.map((r) => r.name))).toEqual([
        'lead:x-1',
        'lead:y',
        'lead:x-2',
        'lead:x-3',
        'lead:x-0',
      ]);
    }));
});
