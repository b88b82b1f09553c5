/**
 * What keeps a purged session purged, and what PURGE_KEY does and does not gate, as
 * docs/operations.md ("Purge") says it.
 *
 * The purge worker opens memory.db with the same URL and token as the API, so every connection
 * here is a plain one on the same file, holding no purge key: whatever it is refused, the API and
 * the worker are refused too, and whatever it may do, both may do.
 */
import { describe, expect, it } from 'vitest';
import { openVerifier } from './verify/database.ts';
import { adds, withHarness } from './testing/harness.ts';
import { outcome } from './testing/fixtures.ts';

const DAY = 86_400_000;

describe('a purged session, from any connection to the memory database', () => {
  it('stays purged: the triggers refuse every way back, every write and every edit of its tombstone', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 2) });
      const purger = await h.openPurger({ now: () => new Date(h.clock.now().getTime() + DAY) });
      await purger.purgeOnce();
      const before = await h.store.getSession(ctx.sessionId);
      expect(before).toMatchObject({ state: 'purged', version: 1, noteCount: 0 });

      const raw = h.raw();
      const refused = async (sql: string, args: Array<string | number>, reason: RegExp) => {
        await expect(raw.execute({ sql, args }), sql).rejects.toThrow(reason);
      };
      const id = ctx.sessionId;
      // Before its expiry by the API's clock: the refusals below come from the state, not the time.
      const at = h.clock.now().toISOString();
      for (const state of ['open', 'opening', 'forgotten', 'empty']) {
        await refused(`UPDATE sessions SET state = ? WHERE id = ?`, [state, id], /sponge:session_closed/);
      }
      await refused(`DELETE FROM sessions WHERE id = ?`, [id], /sponge:integrity/);
      await refused(
        `UPDATE sessions SET expires_at = '2999-01-01T00:00:00.000Z' WHERE id = ?`,
        [id],
        /sponge:integrity/,
      );
      await refused(`UPDATE sessions SET purged_at = ? WHERE id = ?`, ['later', id], /sponge:integrity/);
      await refused(`UPDATE sessions SET version = version + 1 WHERE id = ?`, [id], /sponge:stale_version/);
      await refused(
        `INSERT INTO log (session_id, version, request_id, request_hash, author, at, ops, result)
         VALUES (?, 2, 'late', 'h', 'a', ?, '[]', '{}')`,
        [id, at],
        /sponge:session_closed/,
      );
      await refused(
        `INSERT INTO note_changes (session_id, version, seq, op, name, kind, text, digest, author, at)
         VALUES (?, 1, 0, 'add', 'lead:late', 'lead', 'late', 'd', 'a', ?)`,
        [id, at],
        /sponge:integrity:a note change belongs to the call just logged on an open session/,
      );
      // Its id cannot be taken again: the tombstone keeps it (a primary key, not a trigger).
      await refused(
        `INSERT INTO sessions (id, owner_id, document_id, run_id, state, pinned_revision, started_at, expires_at)
         VALUES (?, 'o', 'd', 'r', 'opening', 0, '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z')`,
        [id],
        /UNIQUE constraint failed/,
      );

      expect(await h.store.getSession(id)).toEqual(before);
      expect(
        await outcome(h.store.remember(ctx, { basedOn: 1, requestId: '2', changes: adds('late', 1) })),
      ).toBe('session_closed');
    }));

  it('PURGE_KEY is checked by openPurger alone: without it a connection purges, and may clear the registered key', () =>
    withHarness(async (h) => {
      (await h.openPurger()).close();
      const other = 'another-purge-key-0123456789';
      expect(await outcome(h.openPurger({ purgeKey: other }))).toBe('unauthenticated');

      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 1) });
      const raw = h.raw();
      // open → purged is a step forward, allowed to any writer; the key is not asked for.
      await raw.execute({
        sql: `UPDATE sessions SET state = 'purged', purged_at = ? WHERE id = ?`,
        args: [h.clock.now().toISOString(), ctx.sessionId],
      });
      expect(await outcome(h.store.query(ctx, { question: 'current_notes' }))).toBe('session_closed');

      // The hash cannot be changed in place, but the row can be deleted; the next key registers.
      await expect(raw.execute(`UPDATE purge_credential SET key_hash = 'x'`)).rejects.toThrow(
        /sponge:unauthenticated/,
      );
      await raw.execute('DELETE FROM purge_credential');
      const purger = await h.openPurger({ purgeKey: other });
      expect((await purger.purgeOnce()).deletedRows).toBeGreaterThan(0);
    }));

  it('content written straight into notes of a purged session is not refused by a trigger, and verify reports it', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 1) });
      await (await h.openPurger({ now: () => new Date(h.clock.now().getTime() + DAY) })).purgeOnce();
      await h.raw().execute({
        sql: `INSERT INTO notes (session_id, name, kind, text, links, digest, author, created_at, updated_at, version, seq, created_version)
              VALUES (?, 'lead:back', 'lead', 'written back', '[]', 'd', 'a', 'x', 'x', 1, 0, 1)`,
        args: [ctx.sessionId],
      });
      // The agent never sees it: every tool refuses the closed session first.
      expect(await outcome(h.store.read(ctx, { name: 'lead:back' }))).toBe('session_closed');
      const verifier = await openVerifier({ url: h.memoryUrl, now: h.clock.now });
      try {
        const report = await verifier.verify(ctx.sessionId);
        expect(report.ok).toBe(false);
        expect(report.findings.map((f) => f.message)).toContainEqual(
          expect.stringMatching(/1 row left in notes, but a session that is purged holds no content/),
        );
      } finally {
        verifier.close();
      }
    }));
});
