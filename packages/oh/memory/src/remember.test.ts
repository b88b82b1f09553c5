import { describe, expect, it, vi } from 'vitest';
import { rememberInputSchema } from '@oh/schema';
import { MemoryError } from './errors.ts';
import { canonicalJson, recordDigest, sha256Hex } from './records.ts';
import { requestHashOf } from './remember.ts';
import { parseRememberInput } from './validation.ts';
import { adds, failure, withHarness } from './testing/harness.ts';
import { outcome } from './testing/fixtures.ts';
import type { Harness } from './testing/harness.ts';
import type { Change } from './types.ts';

/** The session's version and log length, read behind the store's back: "nothing written" checks. */
async function footprint(h: Harness, sessionId: string) {
  const raw = h.raw();
  const one = async (sql: string) => Number((await raw.execute({ sql, args: [sessionId] })).rows[0]?.n);
  return {
    version: one('SELECT version AS n FROM sessions WHERE id = ?'),
    log: await one('SELECT count(*) AS n FROM log WHERE session_id = ?'),
    changes: await one('SELECT count(*) AS n FROM note_changes WHERE session_id = ?'),
    notes: await one('SELECT count(*) AS n FROM notes WHERE session_id = ?'),
    links: await one('SELECT count(*) AS n FROM link_index WHERE session_id = ?'),
  };
}

describe('remember', () => {
  it('applies a call as one version step, with server-set author and time, and digests', () =>
    withHarness(async (h) => {
      const { ctx, info } = await h.session();
      expect(info.version).toBe(0);
      const result = await h.store.remember(ctx, {
        basedOn: 0,
        requestId: 'r-1',
        changes: [
          {
            op: 'add',
            name: 'lead:reef-survey-2016',
            text: 'methods section missing',
            data: { pages: [3, 4] },
          },
          {
            op: 'add',
            name: 'todo:check-figure',
            text: 'figure 2 vs paper B',
            links: [{ rel: 'depends_on', to: 'lead:reef-survey-2016' }],
          },
        ],
      });
      expect(result.replayed).toBe(false);
      expect(result.version).toBe(1);
      expect(result.applied).toEqual([
        {
          op: 'add',
          name: 'lead:reef-survey-2016',
          digest: recordDigest({
            kind: 'lead',
            name: 'lead:reef-survey-2016',
            text: 'methods section missing',
            data: { pages: [3, 4] },
          }),
        },
        {
          op: 'add',
          name: 'todo:check-figure',
          digest: recordDigest({
            kind: 'todo',
            name: 'todo:check-figure',
            text: 'figure 2 vs paper B',
            links: [{ rel: 'depends_on', to: 'lead:reef-survey-2016' }],
          }),
        },
      ]);
      const notes = await h.store.notes(ctx.sessionId);
      expect(notes.map((n) => [n.name, n.author, n.createdAt, n.version])).toEqual([
        ['todo:check-figure', ctx.author, h.clock.now().toISOString(), 1],
        ['lead:reef-survey-2016', ctx.author, h.clock.now().toISOString(), 1],
      ]);
      const log = await h.store.log(ctx.sessionId);
      expect(log).toEqual([
        {
          version: 1,
          requestId: 'r-1',
          author: ctx.author,
          at: h.clock.now().toISOString(),
          applied: result.applied,
        },
      ]);
      expect((await h.store.getSession(ctx.sessionId))?.noteCount).toBe(2);
    }));

  it('keeps data exactly as sent, a "__proto__" key included (JSON allows it; a rebuilding parser drops it)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const json = '{"__proto__": {"x": 1}, "list": [{"__proto__": false}], "n": 2}';
      const data = JSON.parse(json) as Record<string, unknown>;
      const r = await h.store.remember(ctx, {
        basedOn: 0,
        requestId: 'p',
        changes: [{ op: 'add', name: 'lead:p', text: 't', data: data as never }],
      });
      expect(r.applied[0]!.digest).toBe(
        recordDigest({ kind: 'lead', name: 'lead:p', text: 't', data: data as never }),
      );
      const read = await h.store.read(ctx, { name: 'lead:p' });
      expect(JSON.stringify(read.data)).toBe(JSON.stringify(data));
      expect(Object.getPrototypeOf(read.data)).toBe(Object.prototype);
      expect(read.digest).toBe(r.applied[0]!.digest);
      expect(await h.store.verify(ctx.sessionId)).toMatchObject({ ok: true, mismatches: [] });
    }));

  it('replace and remove: versions rise by one per call; a removed note has digest null', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 2) });
      h.clock.advance(1000);
      const r = await h.store.remember(ctx, {
        basedOn: 1,
        requestId: 'b',
        changes: [
          { op: 'replace', name: 'lead:x-0', text: 'new text' },
          { op: 'remove', name: 'lead:x-1' },
        ],
      });
      expect(r.version).toBe(2);
      expect(r.applied[1]).toEqual({ op: 'remove', name: 'lead:x-1', digest: null });
      const [note] = await h.store.notes(ctx.sessionId);
      expect(note?.text).toBe('new text');
      expect(note!.updatedAt > note!.createdAt).toBe(true);
      expect((await h.store.getSession(ctx.sessionId))?.noteCount).toBe(1);
    }));

  it('a retried request id returns the original result and writes nothing; another payload is refused', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const input = {
        basedOn: 0,
        requestId: 'r-12',
        changes: [{ op: 'add' as const, name: 'lead:ds', text: 'dataset ends 2014: ruled out' }],
      };
      const first = await h.store.remember(ctx, input);
      const before = await footprint(h, ctx.sessionId);
      // A retry after a timeout: same id, same payload (key order differs: still identical).
      const again = await h.store.remember(ctx, {
        changes: [{ text: 'dataset ends 2014: ruled out', name: 'lead:ds', op: 'add' }],
        requestId: 'r-12',
        basedOn: 0,
      });
      expect(again).toEqual({ ...first, replayed: true });
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
      // Same id, different payload: refused, and answered before the version is checked.
      const reused = h.store.remember(ctx, {
        ...input,
        changes: [{ op: 'add', name: 'lead:other', text: 'x' }],
      });
      await expect(reused).rejects.toMatchObject({ reason: 'request_id_reused' });
      expect(await outcome(h.store.remember(ctx, { ...input, basedOn: 1 }))).toBe('request_id_reused');
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
    }));

  it('a stale basedOn is refused with the current version, nothing written', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('a', 1) });
      await h.store.remember(ctx, { basedOn: 1, requestId: 'b', changes: adds('b', 1) });
      const before = await footprint(h, ctx.sessionId);
      for (const basedOn of [0, 1, 3, 99]) {
        const error = await failure(
          h.store.remember(ctx, { basedOn, requestId: `s-${basedOn}`, changes: adds('c', 1) }),
        );
        expect(error).toBeInstanceOf(MemoryError);
        expect(error).toMatchObject({ reason: 'stale_version', currentVersion: 2 });
        expect((error as Error).message).toMatch(/version 2/);
      }
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
    }));

  it('0 and 65 changes, unknown fields and bad names are invalid_input, nothing written', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'seed', changes: adds('s', 1) });
      const before = await footprint(h, ctx.sessionId);
      const bad: unknown[] = [
        { basedOn: 1, requestId: 'z', changes: [] },
        { basedOn: 1, requestId: 'z', changes: adds('many', 65) },
        { basedOn: 1, requestId: 'z', changes: adds('a', 1), author: 'agent:someone-else' },
        { basedOn: 1, requestId: 'z', changes: adds('a', 1), time: '2020-01-01T00:00:00Z' },
        { basedOn: 1, requestId: 'z', changes: [{ op: 'add', name: 'lead:a', text: 'x', author: 'me' }] },
        { basedOn: 1, requestId: 'z', changes: [{ op: 'add', name: 'Lead:A', text: 'x' }] },
        { basedOn: 1, requestId: 'z', changes: [{ op: 'add', name: 'nocolon', text: 'x' }] },
        { basedOn: 1, requestId: 'z', changes: [{ op: 'add', name: 'lead:a', text: 'x'.repeat(4001) }] },
        {
          basedOn: 1,
          requestId: 'z',
          changes: [
            {
              op: 'add',
              name: 'lead:a',
              text: 'x',
              links: Array.from({ length: 17 }, () => ({ rel: 'supports', to: 'lead:s-0' })),
            },
          ],
        },
        {
          basedOn: 1,
          requestId: 'z',
          changes: [{ op: 'add', name: 'lead:a', text: 'x', links: [{ rel: 'cites', to: 'lead:s-0' }] }],
        },
        {
          basedOn: 1,
          requestId: 'z',
          changes: [{ op: 'add', name: 'lead:a', text: 'x', data: 'y'.repeat(16 * 1024) }],
        },
        {
          basedOn: 1,
          requestId: 'z',
          changes: [{ op: 'add', name: 'lead:a', text: 'x', data: { at: new Date(0) } }],
        },
        {
          basedOn: 1,
          requestId: 'z',
          changes: [
            {
              op: 'add',
              name: 'lead:a',
              text: 'x',
              data: (() => {
                const loop: Record<string, unknown> = {};
                loop.self = loop;
                return loop;
              })(),
            },
          ],
        },
        {
          basedOn: 1,
          requestId: 'z',
          changes: [
            { op: 'add', name: 'lead:a', text: 'x' },
            { op: 'remove', name: 'lead:a' },
          ],
        },
        // The driver cannot read U+0000 back, so it is refused rather than stored and then failing its digest.
        { basedOn: 1, requestId: 'z', changes: [{ op: 'add', name: 'lead:a', text: 'a\u0000b' }] },
        { basedOn: -1, requestId: 'z', changes: adds('a', 1) },
        { basedOn: 1, requestId: 'has space', changes: adds('a', 1) },
        { basedOn: 1, changes: adds('a', 1) },
      ];
      for (const input of bad) {
        const error = await failure(h.store.remember(ctx, input as never));
        expect(error, `bad input #${bad.indexOf(input)}`).toMatchObject({ reason: 'invalid_input' });
      }
      const tooMany = await failure(
        h.store.remember(ctx, { basedOn: 1, requestId: 'z', changes: adds('many', 65) }),
      );
      expect(tooMany.message).toMatch(/at most 64/);
      const unknown = await failure(
        h.store.remember(ctx, { basedOn: 1, requestId: 'z', changes: adds('a', 1), author: 'x' } as never),
      );
      expect(unknown.message).toMatch(/author/);
      const big = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'z',
          changes: [{ op: 'add', name: 'lead:a', text: 'x', data: 'y'.repeat(16 * 1024) }],
        }),
      );
      expect(big.message).toMatch(/changes\[0\]\.data .*16 KiB/);
      const many = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'z',
          changes: [{ op: 'add', name: 'lead:a', text: 'x', data: Array.from({ length: 200_000 }, () => 0) }],
        }),
      );
      expect(many.message).toMatch(/changes\[0\]\.data: data holds more than 8,193 values.*16 KiB/);
      const date = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'z',
          changes: [{ op: 'add', name: 'lead:a', text: 'x', data: { at: new Date(0) } as never }],
        }),
      );
      expect(date.message).toMatch(/changes\[0\]\.data\.at: expected a JSON value .*got Date/);
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
    }));

  it('add of an existing name refuses the whole call atomically (name_exists)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 3) });
      const before = await footprint(h, ctx.sessionId);
      const error = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'b',
          changes: [
            ...adds('new', 5),
            { op: 'add', name: 'lead:x-2', text: 'dup' },
            { op: 'remove', name: 'lead:x-0' },
          ],
        }),
      );
      expect(error).toMatchObject({ reason: 'name_exists' });
      expect(error.message).toMatch(/lead:x-2 already exists/);
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
      expect((await h.store.notes(ctx.sessionId)).map((n) => n.name).sort()).toEqual([
        'lead:x-0',
        'lead:x-1',
        'lead:x-2',
      ]);
    }));

  it('replace/remove of a missing name refuses the whole call atomically (no_such_note)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 1) });
      const before = await footprint(h, ctx.sessionId);
      for (const change of [
        { op: 'replace', name: 'lead:ghost', text: 'x' },
        { op: 'remove', name: 'lead:ghost' },
      ] as Change[]) {
        const error = await failure(
          h.store.remember(ctx, {
            basedOn: 1,
            requestId: `b-${change.op}`,
            changes: [...adds('new', 3), change],
          }),
        );
        expect(error).toMatchObject({ reason: 'no_such_note' });
        expect(error.message).toMatch(/lead:ghost/);
      }
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
    }));

  it('links point to a note existing once the call applies, or to a reviewed record in view', () =>
    withHarness(async (h) => {
      await h.reviewed.accept('doc:d', {
        name: 'finding:bleaching-threshold',
        text: '1 °C above the summer maximum',
      });
      const { ctx } = await h.session({ pinnedRevision: 1 });
      // A link to a note added later in the same call, and to a reviewed record in view: fine.
      await h.store.remember(ctx, {
        basedOn: 0,
        requestId: 'a',
        changes: [
          {
            op: 'add',
            name: 'lead:a',
            text: 'a',
            links: [
              { rel: 'depends_on', to: 'lead:b' },
              { rel: 'supports', to: 'finding:bleaching-threshold' },
            ],
          },
          { op: 'add', name: 'lead:b', text: 'b' },
        ],
      });
      const before = await footprint(h, ctx.sessionId);
      // A link to nothing, or to a note the same call removes: refused, nothing written.
      const nowhere = await failure(
        h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'b',
          changes: [
            { op: 'add', name: 'lead:c', text: 'c', links: [{ rel: 'supports', to: 'lead:nowhere' }] },
          ],
        }),
      );
      expect(nowhere).toMatchObject({ reason: 'no_such_note' });
      expect(nowhere.message).toMatch(/lead:c links \(supports\) to lead:nowhere/);
      const removed = h.store.remember(ctx, {
        basedOn: 1,
        requestId: 'c',
        changes: [
          { op: 'remove', name: 'lead:b' },
          { op: 'replace', name: 'lead:a', text: 'a2', links: [{ rel: 'depends_on', to: 'lead:b' }] },
        ],
      });
      await expect(removed).rejects.toMatchObject({ reason: 'no_such_note' });
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
      // Removing a target later is allowed: the link stays, dangling and visible.
      await h.store.remember(ctx, {
        basedOn: 1,
        requestId: 'd',
        changes: [{ op: 'remove', name: 'lead:b' }],
      });
      const read = await h.store.read(ctx, { name: 'lead:a' });
      expect(read.links).toContainEqual({ rel: 'depends_on', to: 'lead:b' });
    }));

  it('a session pinned at revision 0 cannot link to a record accepted later', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session({ pinnedRevision: 0 });
      await h.reviewed.accept('doc:d', { name: 'finding:new', text: 'x' });
      const error = h.store.remember(ctx, {
        basedOn: 0,
        requestId: 'a',
        changes: [{ op: 'add', name: 'lead:a', text: 'a', links: [{ rel: 'supports', to: 'finding:new' }] }],
      });
      await expect(error).rejects.toMatchObject({ reason: 'no_such_note' });
    }));

  it('the note quota (10,000) is enforced by the database', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 2) });
      // Bring the counter to the limit behind the store's back (cheaper than 10,000 notes): the
      // trigger guarding note_count is what refuses the next add.
      await h
        .raw()
        .execute({ sql: 'UPDATE sessions SET note_count = 9999 WHERE id = ?', args: [ctx.sessionId] });
      await h.store.remember(ctx, { basedOn: 1, requestId: 'b', changes: adds('y', 1) }); // 10,000th
      const before = await footprint(h, ctx.sessionId);
      const error = await failure(
        h.store.remember(ctx, { basedOn: 2, requestId: 'c', changes: adds('z', 1) }),
      );
      expect(error).toMatchObject({ reason: 'quota' });
      expect(error.message).toMatch(/10,000 notes/);
      expect(await footprint(h, ctx.sessionId)).toEqual(before);
      // Removes are applied before adds within a call, so a full session can swap notes.
      const swap = await h.store.remember(ctx, {
        basedOn: 2,
        requestId: 'd',
        changes: [
          { op: 'add', name: 'lead:z-0', text: 'z' },
          { op: 'remove', name: 'lead:x-0' },
        ],
      });
      expect(swap.version).toBe(3);
    }));

  it(
    'really fills a session to 10,000 notes and refuses the next one',
    () =>
      withHarness(async (h) => {
        const { ctx } = await h.session();
        let version = 0;
        for (let call = 0; call < Math.floor(10_000 / 64); call++) {
          const changes = Array.from({ length: 64 }, (_, i) => ({
            op: 'add' as const,
            name: `lead:n${call * 64 + i}`,
            text: 't',
          }));
          version = (await h.store.remember(ctx, { basedOn: version, requestId: `q-${call}`, changes }))
            .version;
        }
        const rest = Array.from({ length: 10_000 % 64 }, (_, i) => ({
          op: 'add' as const,
          name: `lead:r${i}`,
          text: 't',
        }));
        version = (await h.store.remember(ctx, { basedOn: version, requestId: 'rest', changes: rest }))
          .version;
        expect((await h.store.getSession(ctx.sessionId))?.noteCount).toBe(10_000);
        expect(
          await outcome(
            h.store.remember(ctx, { basedOn: version, requestId: 'over', changes: adds('over', 1) }),
          ),
        ).toBe('quota');
      }),
    60_000,
  );

  it('every write to a closed session is session_closed: expired by the clock, forgotten', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 1) });
      h.clock.advance(24 * 3600_000);
      expect((await h.store.getSession(ctx.sessionId))?.state).toBe('expired');
      expect(
        await outcome(h.store.remember(ctx, { basedOn: 1, requestId: 'b', changes: adds('y', 1) })),
      ).toBe('session_closed');
      // A replay of an earlier request id is refused too: nothing is answered after expiry.
      expect(
        await outcome(h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 1) })),
      ).toBe('session_closed');

      const other = await h.session();
      await h.store.forget(other.info.id);
      expect(
        await outcome(h.store.remember(other.ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 1) })),
      ).toBe('session_closed');
      expect(
        await outcome(
          h.store.remember(
            { sessionId: 'no-such-session', author: 'a' },
            { basedOn: 0, requestId: 'a', changes: adds('x', 1) },
          ),
        ),
      ).toBe('session_closed');
    }));

  it('the database itself refuses a late write whatever the caller believes (trigger on the log)', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      // A writer whose clock is behind (still thinks the session is open) after another process forgot it.
      const slow = await h.openStore();
      await h.store.forget(ctx.sessionId);
      expect(
        await outcome(slow.remember(ctx, { basedOn: 0, requestId: 'late', changes: adds('late', 1) })),
      ).toBe('session_closed');
      // And raw SQL cannot append to the log of a closed session either.
      const raw = h.raw();
      await expect(
        raw.execute({
          sql: `INSERT INTO log (session_id, version, request_id, request_hash, author, at, ops, result) VALUES (?, 1, 'x', 'h', 'a', ?, '[]', '{}')`,
          args: [ctx.sessionId, h.clock.now().toISOString()],
        }),
      ).rejects.toThrow(/sponge:session_closed/);
    }));

  it('the log and the change history are append-only', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'a', changes: adds('x', 1) });
      const raw = h.raw();
      await expect(
        raw.execute({ sql: `UPDATE log SET author = 'forged' WHERE session_id = ?`, args: [ctx.sessionId] }),
      ).rejects.toThrow(/append-only/);
      await expect(
        raw.execute({ sql: `DELETE FROM log WHERE session_id = ?`, args: [ctx.sessionId] }),
      ).rejects.toThrow(/never deleted/);
      await expect(
        raw.execute({
          sql: `UPDATE note_changes SET text = 'forged' WHERE session_id = ?`,
          args: [ctx.sessionId],
        }),
      ).rejects.toThrow(/append-only/);
      await expect(
        raw.execute({ sql: `DELETE FROM note_changes WHERE session_id = ?`, args: [ctx.sessionId] }),
      ).rejects.toThrow(/never deleted/);
      await expect(
        raw.execute({ sql: `UPDATE sessions SET version = 5 WHERE id = ?`, args: [ctx.sessionId] }),
      ).rejects.toThrow(/stale_version/);
    }));
});

describe('one parse per boundary (issue 42)', () => {
  it('takes an input its own parser checked without parsing it again, and parses anything else', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      const parse = vi.spyOn(rememberInputSchema, 'safeParse');
      try {
        const checked = parseRememberInput({
          basedOn: 0,
          requestId: 'r-1',
          changes: [{ op: 'add', name: 'lead:a', text: 'a', data: { n: [1] }, links: [] }],
        });
        // Frozen, data included: what the store takes is what was checked.
        expect(Object.isFrozen(checked) && Object.isFrozen(checked.changes[0])).toBe(true);
        expect(Object.isFrozen((checked.changes[0] as unknown as { data: { n: number[] } }).data.n)).toBe(
          true,
        );
        expect((await h.store.remember(ctx, checked)).version).toBe(1);
        expect(parse).not.toHaveBeenCalled();
        // The same content in an object of the caller's own: parsed, and refused when wrong.
        const plain = {
          basedOn: 1,
          requestId: 'r-2',
          changes: [{ op: 'add' as const, name: 'lead:b', text: 'b' }],
        };
        expect((await h.store.remember(ctx, plain)).version).toBe(2);
        expect(parse).toHaveBeenCalledTimes(1);
        await expect(
          h.store.remember(ctx, { ...plain, basedOn: 2, requestId: 'r-3', author: 'x' } as never),
        ).rejects.toMatchObject({ reason: 'invalid_input' });
      } finally {
        parse.mockRestore();
      }
    }));

  it('hashes a request exactly as the canonical JSON of { basedOn, changes } did', () => {
    const cases: Array<[number, Change[]]> = [
      [0, [{ op: 'add', name: 'lead:a', text: 'a' }]],
      [41, [{ op: 'replace', name: 'lead:é', text: 'x\u2028y "q"', data: { z: 1, a: [null, true] } }]],
      [
        7,
        [
          { op: 'remove', name: 'lead:a' },
          { op: 'add', name: 'todo:b', text: 'b', links: [{ rel: 'supports', to: 'lead:a' }] },
        ],
      ],
    ];
    for (const [basedOn, changes] of cases)
      expect(requestHashOf(basedOn, canonicalJson(changes))).toBe(
        sha256Hex(canonicalJson({ basedOn, changes })),
      );
  });
});
