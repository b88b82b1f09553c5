import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adds, failure, withHarness } from './testing/harness.ts';
import { outcome } from './testing/fixtures.ts';

describe('sessions', () => {
  it('open: version 0, pinned revision, 24 h lifetime, listed newest first', () =>
    withHarness(async (h) => {
      const start = h.clock.now();
      const a = await h.store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:1',
        pinnedRevision: 3,
      });
      h.clock.advance(1000);
      const b = await h.store.openSession({
        id: 'fixed-id',
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:2',
        pinnedRevision: 3,
      });
      await h.store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:other',
        runId: 'run:3',
        pinnedRevision: 0,
      });
      expect(a).toMatchObject({
        state: 'open',
        version: 0,
        pinnedRevision: 3,
        noteCount: 0,
        startedAt: start.toISOString(),
        forgottenAt: null,
        purgedAt: null,
      });
      expect(Date.parse(a.expiresAt) - Date.parse(a.startedAt)).toBe(86_400_000);
      expect(b.id).toBe('fixed-id');
      expect((await h.store.listSessions('doc:d')).map((s) => s.id)).toEqual([b.id, a.id]);
      expect(await h.store.getSession('nope')).toBeNull();
      const many = await h.store.getSessions([a.id, 'nope', b.id]);
      expect([...many.keys()].sort()).toEqual([a.id, b.id].sort());
      // A session id cannot be reused, so a forgotten session cannot be opened again.
      expect(
        await outcome(
          h.store.openSession({
            id: 'fixed-id',
            ownerId: 'user:o',
            documentId: 'doc:d',
            runId: 'run:4',
            pinnedRevision: 0,
          }),
        ),
      ).toBe('invalid_input');
      expect(
        await outcome(
          h.store.openSession({ ownerId: '', documentId: 'doc:d', runId: 'r', pinnedRevision: 0 }),
        ),
      ).toBe('invalid_input');
    }));

  it('expired is judged by the clock: open and now ≥ expiresAt; then every agent call is session_closed', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 1) });
      const answer = await h.store.query(ctx, { question: 'current_notes' });
      h.clock.advance(86_400_000 - 1);
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('open');
      h.clock.advance(1);
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('expired');
      // reasonOf handles each refusal as the call is made (remember answers a turn later, after
      // its group commit, and the others must not sit rejected and unhandled meanwhile).
      const reasons = await Promise.all(
        [
          h.store.remember(ctx, { basedOn: 1, requestId: 'b', changes: adds('y', 1) }),
          h.store.query(ctx, { question: 'current_notes' }),
          h.store.read(ctx, { name: 'lead:x-0' }),
          h.store.explain(ctx, { token: answer.explainToken, row: 0 }),
          h.store.preload(ctx),
        ].map(outcome),
      );
      expect(reasons).toEqual(Array(5).fill('session_closed'));
      // Owner views still work on an expired session until it is purged.
      expect(await h.store.notes(ctx.sessionId)).toHaveLength(1);
    }));

  it('forget: one batch removes notes, history, log and link index; the tombstone stays; calls are refused', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: 'a',
        changes: [
          ...adds('x', 3),
          { op: 'add', name: 'lead:l', text: 'l', links: [{ rel: 'supports', to: 'lead:x-0' }] },
        ],
      });
      const keep = await h.session();
      await h.store.remember(keep.ctx, { basedOn: 0, requestId: 'a', changes: adds('k', 2) });
      h.clock.advance(5000);
      const forgotten = await h.store.forget(ctx.sessionId);
      expect(forgotten).toMatchObject({
        state: 'forgotten',
        version: 1,
        noteCount: 0,
        forgottenAt: h.clock.now().toISOString(),
      });
      const raw = h.raw();
      for (const table of ['notes', 'note_changes', 'log', 'link_index']) {
        const n = (
          await raw.execute({
            sql: `SELECT count(*) AS n FROM ${table} WHERE session_id = ?`,
            args: [ctx.sessionId],
          })
        ).rows[0]?.n;
        expect(n, table).toBe(0);
      }
      expect(await h.store.notes(ctx.sessionId)).toEqual([]);
      expect(await h.store.log(ctx.sessionId)).toEqual([]);
      expect(await h.store.reviewedInView(ctx.sessionId)).toEqual([]);
      expect((await h.store.verify(ctx.sessionId)).ok).toBe(true);
      // The other session is untouched.
      expect(await h.store.notes(keep.ctx.sessionId)).toHaveLength(2);
      // Forgetting again returns the tombstone unchanged.
      h.clock.advance(5000);
      expect(await h.store.forget(ctx.sessionId)).toEqual(forgotten);
      expect(
        await outcome(h.store.remember(ctx, { basedOn: 1, requestId: 'b', changes: adds('y', 1) })),
      ).toBe('session_closed');
      expect((await failure(h.store.forget('nope'))).reason).toBe('not_found');
    }));

  it('log: the whole log, or only the entries after a version and up to another', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      for (let v = 0; v < 5; v++)
        await h.store.remember(ctx, { basedOn: v, requestId: `r${v}`, changes: adds(`v${v}`, 1) });
      const all = await h.store.log(ctx.sessionId);
      expect(all.map((e) => e.version)).toEqual([1, 2, 3, 4, 5]);
      expect(await h.store.log(ctx.sessionId, { afterVersion: 3 })).toEqual(all.slice(3));
      expect(await h.store.log(ctx.sessionId, { afterVersion: 1, upToVersion: 3 })).toEqual(all.slice(1, 3));
      expect(await h.store.log(ctx.sessionId, { upToVersion: 2 })).toEqual(all.slice(0, 2));
      expect(await h.store.log(ctx.sessionId, { afterVersion: 5 })).toEqual([]);
      expect((await failure(h.store.log('nope', { afterVersion: 1 }))).reason).toBe('not_found');
    }));

  it('forget leaves no trace of the content in the database file or its WAL (secure_delete + checkpoint)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const marker = `MARKER${Date.now().toString(36)}XYZZY`;
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: 'a',
        changes: [
          { op: 'add', name: 'lead:secret', text: `the text ${marker} here`, data: { note: marker } },
          // Enough content to spill over several pages, overflow pages included.
          {
            op: 'add',
            name: 'lead:big',
            text: `${marker} ${'x'.repeat(3900)}`,
            data: { blob: `${marker}${'y'.repeat(9000)}` },
          },
        ],
      });
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: 'b',
        changes: [{ op: 'replace', name: 'lead:secret', text: `replaced ${marker}` }],
      });
      const files = [h.memoryPath, `${h.memoryPath}-wal`];
      const contains = () =>
        files.filter((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(marker)));
      expect(contains().length).toBeGreaterThan(0);
      await h.store.forget(ctx.sessionId);
      expect(contains()).toEqual([]);
    }));

  it('the state machine is enforced by the database: no reopening, no deleting, no creating open', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.forget(ctx.sessionId);
      const raw = h.raw();
      const refused = async (sql: string, args: Array<string | number> = []) => {
        await expect(raw.execute({ sql, args }), sql).rejects.toThrow(/sponge:/);
      };
      await refused(`UPDATE sessions SET state = 'open' WHERE id = ?`, [ctx.sessionId]);
      await refused(`UPDATE sessions SET state = 'opening' WHERE id = ?`, [ctx.sessionId]);
      await refused(`DELETE FROM sessions WHERE id = ?`, [ctx.sessionId]);
      await refused(`UPDATE sessions SET expires_at = '2999-01-01T00:00:00.000Z' WHERE id = ?`, [
        ctx.sessionId,
      ]);
      await refused(`UPDATE sessions SET forgotten_at = 'later' WHERE id = ?`, [ctx.sessionId]);
      await refused(
        `INSERT INTO sessions (id, owner_id, document_id, run_id, state, pinned_revision, started_at, expires_at)
         VALUES ('new', 'o', 'd', 'r', 'open', 0, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`,
      );
      // The only allowed creation is 'opening' (then 'open' or 'empty').
      await raw.execute(
        `INSERT INTO sessions (id, owner_id, document_id, run_id, state, pinned_revision, started_at, expires_at)
         VALUES ('new', 'o', 'd', 'r', 'opening', 0, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`,
      );
      await refused(`UPDATE sessions SET state = 'forgotten' WHERE id = 'new'`);
      await raw.execute(`UPDATE sessions SET state = 'empty' WHERE id = 'new'`);
      await refused(`UPDATE sessions SET state = 'open' WHERE id = 'new'`);
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('forgotten');
    }));
});
