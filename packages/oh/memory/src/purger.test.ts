import { createClient } from '@libsql/client';
import type { Client, InStatement } from '@libsql/client';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from './db/index.ts';
import { busyRetryGapMs } from './purge-pacing.ts';
import type * as PurgePacing from './purge-pacing.ts';
import { purgePass } from './purger.ts';
import { adds, failure, withHarness } from './testing/harness.ts';
import { PURGE_KEY, outcome } from './testing/fixtures.ts';

const DAY = 86_400_000;

/**
 * What a pass tells its pacer, pause by pause: how long the write before it held the lock, whether
 * another connection committed in the pause before that write (`served`), and the pause the pacer
 * gave. The pacer itself is the real one; its rule is purge-pacing.test.ts's.
 */
const paced = vi.hoisted(() => ({
  pauses: [] as Array<{ heldMs: number; afterServed: boolean; pauseMs: number }>,
}));
vi.mock('./purge-pacing.ts', async (importOriginal) => {
  const real = await importOriginal<typeof PurgePacing>();
  return {
    ...real,
    lockPacer(slackMs: number) {
      const pacer = real.lockPacer(slackMs);
      let served = true;
      return {
        resumeAt(acquiredAt: number, releasedAt: number) {
          const at = pacer.resumeAt(acquiredAt, releasedAt);
          paced.pauses.push({
            heldMs: releasedAt - acquiredAt,
            afterServed: served,
            pauseMs: at - releasedAt,
          });
          served = false;
          return at;
        },
        served() {
          served = true;
          pacer.served();
        },
      };
    },
  };
});

describe('purge worker', () => {
  it('its whole surface is purgeOnce and close: nothing can open or reopen a session', () =>
    withHarness(async (h) => {
      const purger = await h.openPurger();
      expect(Object.keys(purger).sort()).toEqual(['close', 'purgeOnce']);
      expect(Object.isFrozen(purger)).toBe(true);
    }));

  it('registers its credential on first use and refuses any other key afterwards', () =>
    withHarness(async (h) => {
      (await h.openPurger()).close();
      expect((await failure(h.openPurger({ purgeKey: 'another-key-0123456789' }))).reason).toBe(
        'unauthenticated',
      );
      expect((await failure(h.openPurger({ purgeKey: 'short' }))).message).toMatch(/at least 16 characters/);
      // Only the hash is stored.
      const stored = await h.raw().execute('SELECT key_hash FROM purge_credential');
      expect(stored.rows).toHaveLength(1);
      expect(String(stored.rows[0]?.key_hash)).not.toContain(PURGE_KEY);
      await expect(h.raw().execute(`UPDATE purge_credential SET key_hash = 'x'`)).rejects.toThrow(
        /sponge:unauthenticated/,
      );
      await expect(h.openPurger()).resolves.toBeDefined();
    }));

  it('purges expired and forgotten sessions: closed first, content gone, tombstone kept', () =>
    withHarness(async (h) => {
      const expired = await h.session();
      const forgotten = await h.session();
      const alive = await h.session();
      for (const s of [expired, forgotten, alive]) {
        await h.store.remember(s.ctx, {
          basedOn: 0,
          requestId: '1',
          changes: [
            ...adds('x', 5),
            { op: 'add', name: 'lead:l', text: 'l', links: [{ rel: 'supports', to: 'lead:x-0' }] },
          ],
        });
      }
      await h.store.forget(forgotten.info.id);
      // Open `alive` later so it is not expired when `expired` is.
      h.clock.advance(DAY / 2);
      const fresh = await h.session();
      await h.store.remember(fresh.ctx, { basedOn: 0, requestId: '1', changes: adds('f', 2) });
      h.clock.advance(DAY / 2);

      const purger = await h.openPurger();
      const report = await purger.purgeOnce({ chunkSize: 2 });
      expect(report.purgedSessions).toBe(3); // expired, forgotten, and alive (started at the same time as expired)
      expect(report.deletedRows).toBeGreaterThan(0);
      for (const s of [expired, forgotten, alive]) {
        const info = await h.store.getSession(s.info.id);
        expect(info).toMatchObject({
          state: 'purged',
          purgedAt: h.clock.now().toISOString(),
          noteCount: 0,
          ownerId: 'user:o',
          documentId: 'doc:d',
        });
        expect(await h.store.notes(s.info.id)).toEqual([]);
        expect(await h.store.log(s.info.id)).toEqual([]);
      }
      expect((await h.store.getSession(forgotten.info.id))?.forgottenAt).not.toBeNull();
      const raw = h.raw();
      for (const table of ['notes', 'note_changes', 'log', 'link_index']) {
        const rs = await raw.execute({
          sql: `SELECT count(*) AS n FROM ${table} WHERE session_id != ?`,
          args: [fresh.info.id],
        });
        expect(rs.rows[0]?.n, table).toBe(0);
      }
      // The fresh session is untouched; a second pass has nothing to do.
      expect(await h.store.notes(fresh.info.id)).toHaveLength(2);
      expect(await purger.purgeOnce()).toEqual({ purgedSessions: 0, deletedRows: 0, emptiedSessions: 0 });
    }));

  it('a purged session refuses a late write and never comes back', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 2) });
      // The purger's clock is past expiry; the API's clock (the store's) still thinks it is open.
      const purger = await h.openPurger({ now: () => new Date(h.clock.now().getTime() + DAY) });
      await purger.purgeOnce();
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('purged');
      expect(
        await outcome(h.store.remember(ctx, { basedOn: 1, requestId: '2', changes: adds('late', 1) })),
      ).toBe('session_closed');
      expect(
        await outcome(h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 2) })),
      ).toBe('session_closed');
      expect(await outcome(h.store.query(ctx, { question: 'current_notes' }))).toBe('session_closed');
      // Not by raw SQL either: the trigger refuses the way back to open.
      await expect(
        h.raw().execute({ sql: `UPDATE sessions SET state = 'open' WHERE id = ?`, args: [ctx.sessionId] }),
      ).rejects.toThrow(/sponge:session_closed/);
      expect(
        await outcome(
          h.store.openSession({
            id: ctx.sessionId,
            ownerId: 'user:o',
            documentId: 'doc:d',
            runId: 'r',
            pinnedRevision: 0,
          }),
        ),
      ).toBe('invalid_input');
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('purged');
      expect(await h.store.forget(ctx.sessionId)).toMatchObject({ state: 'purged' });
    }));

  it('deletes in short write batches (chunkSize rows per table) and pauses long enough for a queued writer to get in', () =>
    withHarness(async (h) => {
      const sessions = [await h.session(), await h.session()];
      for (const { ctx } of sessions) {
        let v = 0;
        for (let i = 0; i < 3; i++)
          v = (await h.store.remember(ctx, { basedOn: v, requestId: `c${i}`, changes: adds(`x${i}`, 10) }))
            .version;
      }
      h.clock.advance(DAY);
      // Watch every write the pass sends: its statements, rows, start and end.
      const real = await openDatabase({ url: h.memoryUrl });
      const { spy, writes } = watchWrites(real);
      try {
        const report = await purgePass(spy, h.memoryUrl, h.clock.now, {
          chunkSize: 7,
          sessionsPerBatch: 2,
          // Long enough that a slow machine does not shrink the group below the two sessions.
          targetHoldMs: 60_000,
          closePerStatement: 1,
          pauseSlackMs: 3,
        });
        // Per session: 30 notes + 30 changes + 3 log rows.
        expect(report).toMatchObject({ purgedSessions: 2, deletedRows: 126 });
        const deletes = writes.flatMap((w) => w.deleted);
        expect(Math.max(...deletes)).toBeLessThanOrEqual(7);
        expect(deletes.reduce((a, b) => a + b, 0)).toBe(126);
        // 60 notes of the two sessions, 7 a batch: 9 delete batches, the first over both sessions.
        const deleteBatches = writes.filter((w) => w.deleted.length > 0);
        expect(deleteBatches).toHaveLength(Math.ceil(60 / 7));
        expect(deleteBatches[0]!.sessions).toBe(2);
        // Closing one session per statement: two closing writes (and a last one that finds none).
        // Between one write's end and the next write's start: at least the pause, measured from
        // the write's own end (the checkpoint runs inside it).
        for (let i = 1; i < writes.length; i++) {
          const held = writes[i - 1]!.end - writes[i - 1]!.start;
          expect(writes[i]!.start - writes[i - 1]!.end, `gap after write ${i - 1}`).toBeGreaterThanOrEqual(
            busyRetryGapMs(Math.min(held, 100)) + 3,
          );
        }
      } finally {
        real.close();
      }
    }));

  it('sizes each delete group by how long full groups held the lock', () =>
    withHarness(async (h) => {
      for (let i = 0; i < 60; i++) {
        const { ctx } = await h.session();
        await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 1) });
      }
      h.clock.advance(DAY);
      const real = await openDatabase({ url: h.memoryUrl });
      // Every delete batch takes 25 ms longer than it would (a slow disk).
      const { spy, writes } = watchWrites(real, () => new Promise((r) => setTimeout(r, 25)));
      try {
        const report = await purgePass(spy, h.memoryUrl, h.clock.now, {
          chunkSize: 500,
          sessionsPerBatch: 64,
          targetHoldMs: 10,
          pauseSlackMs: 0,
        });
        expect(report).toMatchObject({ purgedSessions: 60, deletedRows: 60 * 3 });
        const groups = writes.filter((w) => w.deleted.length > 0).map((w) => w.sessions);
        expect(groups.reduce((a, b) => a + b, 0)).toBe(60);
        // 16 first; a batch costing 25 ms or more fits at most 6 sessions in 10 ms: 8 after that.
        expect(groups[0]).toBe(16);
        expect(groups.slice(1, -1)).toEqual(groups.slice(1, -1).map(() => 8));
      } finally {
        real.close();
      }
    }));

  it('keeps pauses short while another connection commits in them, longer while nobody does (a writer may have missed one)', () =>
    withHarness(async (h) => {
      const other = await openDatabase({ url: h.memoryUrl });
      await other.execute('CREATE TABLE other_writes (x INTEGER)');
      // Purges 30 one-note sessions a batch each and returns the pauses the pacer gave. Which
      // pauses it gives is checked here, on what the pass saw; how long they last on the wall
      // clock (and what a writer waits meanwhile) is the bench's \`purge\` figure.
      const pausesOfPass = async (committing: boolean) => {
        for (let i = 0; i < 30; i++) {
          const { ctx } = await h.session();
          await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 1) });
        }
        h.clock.advance(DAY);
        const real = await openDatabase({ url: h.memoryUrl });
        // Another writer, committing every millisecond the pass leaves it the lock.
        const timer = committing
          ? setInterval(() => void other.execute('INSERT INTO other_writes VALUES (1)'), 1)
          : null;
        paced.pauses.length = 0;
        try {
          await purgePass(real, h.memoryUrl, h.clock.now, {
            chunkSize: 500,
            sessionsPerBatch: 1,
            pauseSlackMs: 0,
          });
        } finally {
          if (timer) clearInterval(timer);
          real.close();
        }
        return paced.pauses.slice(1); // the first pause follows no pause
      };
      try {
        // Nobody commits: no pause is used, and pauses grow until they cover a writer waiting
        // 100 ms (25 ms between its tries). The pauses themselves take that long, so they get
        // there within a few writes on any machine.
        const alone = await pausesOfPass(false);
        expect(alone.length).toBeGreaterThanOrEqual(30);
        expect(alone.filter((p) => p.afterServed)).toEqual([]);
        expect(alone.slice(-5).map((p) => Math.round(p.pauseMs))).toEqual([25, 25, 25, 25, 25]);
        // Another connection commits in the pauses: the pass sees it (data_version), and a pause
        // after a used one is sized for a writer queued behind that one write alone.
        const shared = await pausesOfPass(true);
        const afterUsed = shared.filter((p) => p.afterServed);
        expect(afterUsed.length).toBeGreaterThan(0);
        for (const p of afterUsed) expect(p.pauseMs).toBeCloseTo(busyRetryGapMs(Math.min(p.heldMs, 100)), 6);
      } finally {
        other.close();
      }
    }));

  it('waits for a write lock another connection holds, polling instead of blocking (busy_timeout 0)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 5) });
      h.clock.advance(DAY);
      const purger = await h.openPurger();
      // Another connection takes the write lock and keeps it for 300 ms.
      const holder = createClient({ url: h.memoryUrl });
      const tx = await holder.transaction('write');
      await tx.execute('UPDATE purge_credential SET id = id WHERE 0');
      const t0 = performance.now();
      const pass = purger.purgeOnce();
      // The event loop is free while the pass waits: this timer runs and releases the lock.
      await new Promise((r) => setTimeout(r, 300));
      await tx.rollback();
      const report = await pass;
      expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
      expect(report).toMatchObject({ purgedSessions: 1, deletedRows: 5 + 5 + 1 });
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('purged');
      holder.close();
    }));

  it('finishes a session left half-purged by a crash on the next pass', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: '1', changes: adds('x', 10) });
      // A crash right after the first step of a pass: state purged, content still there.
      const raw = h.raw();
      await raw.execute({
        sql: `UPDATE sessions SET state = 'purged', purged_at = ? WHERE id = ?`,
        args: [h.clock.now().toISOString(), ctx.sessionId],
      });
      await raw.execute({
        sql: `DELETE FROM notes WHERE rowid IN (SELECT rowid FROM notes WHERE session_id = ? LIMIT 3)`,
        args: [ctx.sessionId],
      });
      const purger = await h.openPurger();
      const report = await purger.purgeOnce({ chunkSize: 4 });
      expect(report.purgedSessions).toBe(0);
      expect(report.deletedRows).toBe(7 + 10 + 1);
      expect(
        Number(
          (
            await raw.execute({
              sql: 'SELECT count(*) AS n FROM note_changes WHERE session_id = ?',
              args: [ctx.sessionId],
            })
          ).rows[0]?.n,
        ),
      ).toBe(0);
      expect(
        Number(
          (
            await raw.execute({
              sql: 'SELECT content_cleared AS c FROM sessions WHERE id = ?',
              args: [ctx.sessionId],
            })
          ).rows[0]?.c,
        ),
      ).toBe(1);
    }));

  it('deletes recall rows too (every table with a session_id column is session content)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const raw = h.raw();
      await raw.execute('CREATE TABLE recall_vectors_test (session_id TEXT NOT NULL, name TEXT, v BLOB)');
      await raw.execute({
        sql: `INSERT INTO recall_vectors_test VALUES (?, 'lead:x', x'00'), (?, 'lead:y', x'01'), ('other', 'lead:z', x'02')`,
        args: [ctx.sessionId, ctx.sessionId],
      });
      await h.store.forget(ctx.sessionId);
      expect(
        (await raw.execute('SELECT session_id FROM recall_vectors_test')).rows.map((r) => r.session_id),
      ).toEqual(['other']);

      const expired = await h.session();
      await raw.execute({
        sql: `INSERT INTO recall_vectors_test VALUES (?, 'lead:x', x'00')`,
        args: [expired.info.id],
      });
      h.clock.advance(DAY);
      await (await h.openPurger()).purgeOnce();
      expect(
        (await raw.execute('SELECT session_id FROM recall_vectors_test')).rows.map((r) => r.session_id),
      ).toEqual(['other']);
    }));

  it('marks sessions stuck in opening for more than 10 minutes empty, and only those', () =>
    withHarness(async (h) => {
      const raw = createClient({ url: h.memoryUrl });
      try {
        const at = h.clock.now();
        await raw.execute({
          sql: `INSERT INTO sessions (id, owner_id, document_id, run_id, state, pinned_revision, started_at, expires_at)
                VALUES ('stuck', 'user:o', 'doc:d', 'run:s', 'opening', 0, ?, ?)`,
          args: [at.toISOString(), new Date(at.getTime() + DAY).toISOString()],
        });
        const purger = await h.openPurger();
        h.clock.advance(9 * 60_000);
        expect((await purger.purgeOnce()).emptiedSessions).toBe(0);
        expect((await h.store.getSession('stuck'))?.state).toBe('opening');
        h.clock.advance(61_000);
        expect((await purger.purgeOnce()).emptiedSessions).toBe(1);
        expect((await h.store.getSession('stuck'))?.state).toBe('empty');
        // Empty is final.
        await expect(raw.execute(`UPDATE sessions SET state = 'open' WHERE id = 'stuck'`)).rejects.toThrow(
          /sponge:/,
        );
      } finally {
        raw.close();
      }
    }));
});

/**
 * A client that records every write the pass sends: start, end, rows each DELETE removed and
 * how many sessions a batch deleted from. `slowBatch` runs inside each batch, after the real one
 * (the pass counts it as time the lock was held).
 */
function watchWrites(real: Client, slowBatch?: () => Promise<void>) {
  const writes: Array<{ start: number; end: number; deleted: number[]; sessions: number }> = [];
  const spy = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'batch') {
        return async (stmts: InStatement[], mode: 'write') => {
          const start = performance.now();
          const results = await target.batch(stmts, mode);
          const deletes = stmts.flatMap((st, i) =>
            typeof st !== 'string' && st.sql.startsWith('DELETE') ? [{ st, rs: results[i]! }] : [],
          );
          if (deletes.length > 0) await slowBatch?.();
          writes.push({
            start,
            end: performance.now(),
            deleted: deletes.map((d) => d.rs.rowsAffected),
            // The group's ids, a JSON list, are each DELETE's first argument.
            sessions:
              deletes.length > 0
                ? (JSON.parse(String((deletes[0]!.st.args as unknown[])[0])) as unknown[]).length
                : 0,
          });
          return results;
        };
      }
      if (prop === 'execute') {
        return async (stmt: InStatement) => {
          const start = performance.now();
          const rs = await target.execute(stmt);
          if (typeof stmt !== 'string' && /^\s*(UPDATE|DELETE|INSERT)/.test(stmt.sql))
            writes.push({ start, end: performance.now(), deleted: [], sessions: 0 });
          return rs;
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { spy, writes };
}
