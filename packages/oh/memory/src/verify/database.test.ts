/**
 * verify and repair against real libSQL files: every kind of damage is made behind the store's
 * back with raw SQL on the file (dropping a guard trigger where the schema would refuse it), then
 * found, named and, where it is a copy, rebuilt.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { renderNote } from '../recall/index.ts';
import { openDatabase } from '../db/index.ts';
import { openVerifier, repair } from './database.ts';
import { inspect } from './session.ts';
import type { MemoryVerifier } from './database.ts';
import { adds, withHarness } from '../testing/harness.ts';
import type { Harness } from '../testing/harness.ts';
import type { AgentContext } from '../types.ts';

const DAY = 86_400_000;
const adapter = createLocalEmbeddingAdapter({ dimensions: 64 });

/** A verifier on the harness's file, closed whatever the test does. */
async function withVerifier<T>(h: Harness, fn: (v: MemoryVerifier) => Promise<T>): Promise<T> {
  const verifier = await openVerifier({ url: h.memoryUrl, now: h.clock.now, recall: { adapter } });
  try {
    return await fn(verifier);
  } finally {
    verifier.close();
  }
}

/**
 * A session with adds (data, links, a link to a note removed later), a replace and a remove. Its
 * recall vectors are built by `repair` (the store's own indexing runs in the background, so a test
 * could not know when it is done).
 */
async function busySession(h: Harness, v?: MemoryVerifier): Promise<AgentContext> {
  const { ctx } = await h.session();
  await h.store.remember(ctx, {
    basedOn: 0,
    requestId: 'r1',
    changes: [
      ...adds('x', 3),
      {
        op: 'add',
        name: 'figure:f',
        text: 'coral cover 31%',
        data: { value: 31, unit: '%', nested: [1, 'é'] },
      },
      {
        op: 'add',
        name: 'lead:l',
        text: 'links',
        links: [
          { rel: 'supports', to: 'lead:x-0' },
          { rel: 'contradicts', to: 'figure:f' },
        ],
      },
    ],
  });
  await h.store.remember(ctx, {
    basedOn: 1,
    requestId: 'r2',
    changes: [
      { op: 'replace', name: 'lead:x-1', text: 'changed', links: [{ rel: 'depends_on', to: 'lead:x-2' }] },
    ],
  });
  await h.store.remember(ctx, { basedOn: 2, requestId: 'r3', changes: [{ op: 'remove', name: 'lead:x-2' }] });
  if (v) expect((await v.repair(ctx.sessionId)).rebuilt.note_vectors).toBe(4);
  return ctx;
}

function raw(h: Harness): Client {
  return h.raw();
}

describe('verify', () => {
  it('passes a healthy database: open, forgotten and purged sessions; recall lag is no mismatch', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const doomed = await busySession(h, v);
        h.clock.advance(DAY + 1);
        expect((await (await h.openPurger()).purgeOnce()).purgedSessions).toBe(1);
        const open = await busySession(h);
        const forgotten = await busySession(h, v);
        await h.store.forget(forgotten.sessionId);

        expect(await v.sessionIds()).toEqual([doomed.sessionId, open.sessionId, forgotten.sessionId].sort());
        const lagging = await v.verify(open.sessionId);
        expect(lagging).toMatchObject({
          ok: true,
          state: 'open',
          version: 3,
          logEntries: 3,
          notes: 4,
          mismatches: [],
          findings: [],
          problems: [],
        });
        expect(lagging.recall).toEqual({ indexed: 0, missing: 4, stale: 0, orphaned: 0 });
        expect(lagging.notices).toEqual([
          expect.stringMatching(
            /recall index behind the notes \(local-hash-v1:64\): 4 missing, 0 stale, 0 orphaned/,
          ),
        ]);
        await v.repair(open.sessionId);
        expect(await v.verify(open.sessionId)).toMatchObject({
          ok: true,
          notices: [],
          recall: { indexed: 4, missing: 0, stale: 0, orphaned: 0 },
        });

        expect(await v.verify(forgotten.sessionId)).toMatchObject({
          ok: true,
          state: 'forgotten',
          version: 3,
          logEntries: 0,
          notes: 0,
          recall: null,
        });
        expect(await v.verify(doomed.sessionId)).toMatchObject({ ok: true, state: 'purged', findings: [] });
        const first = await v.sessionIds('', 1);
        expect(await v.sessionIds(first[0], 5)).toHaveLength(2);
        // The store's own verify agrees (it compares no vectors: it holds no adapter of its own here).
        expect(await h.store.verify(open.sessionId)).toMatchObject({ ok: true, mismatches: [] });
        await expect(v.verify('no-such-session')).rejects.toMatchObject({ reason: 'not_found' });
      }),
    ));

  it('agrees with the vectors the store indexed itself', () =>
    withHarness(
      async (h) =>
        withVerifier(h, async (v) => {
          const ctx = await busySession(h);
          await h.store.recall(ctx, { text: 'coral' }, 'shadow'); // catches the index up
          const report = await v.verify(ctx.sessionId);
          // Background indexing may still be landing (lag), but no vector is ever wrong.
          expect(report.findings).toEqual([]);
          expect(report.recall?.indexed).toBeGreaterThan(0);
        }),
      { recall: { adapter } },
    ));

  it('finds a tampered note text, names it, and repair rewrites the note from the log', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h, v);
        await raw(h).execute({
          sql: `UPDATE notes SET text = 'tampered' WHERE session_id = ? AND name = 'lead:x-1'`,
          args: [ctx.sessionId],
        });
        const report = await v.verify(ctx.sessionId);
        expect(report.ok).toBe(false);
        expect(report.mismatches.map((m) => m.name)).toEqual(['lead:x-1']);
        expect(report.findings).toEqual([
          expect.objectContaining({ table: 'notes', name: 'lead:x-1', repairable: true }),
        ]);
        expect(report.findings[0]?.message).toMatch(/lead:x-1: its content does not match the log/);

        expect(await v.repair(ctx.sessionId)).toMatchObject({
          skipped: null,
          rebuilt: { notes: 1, link_index: 0, sessions: 0, note_vectors: 0 },
        });
        expect(await v.verify(ctx.sessionId)).toMatchObject({ ok: true, findings: [] });
        await expect(h.store.read(ctx, { name: 'lead:x-1' })).resolves.toMatchObject({
          text: 'changed',
          links: [{ rel: 'depends_on', to: 'lead:x-2' }],
        });
      }),
    ));

  it('finds deleted derived rows (a link row, a note, a vector) and repair rebuilds them exactly', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h, v);
        const db = raw(h);
        const before = await db.execute({
          sql: 'SELECT * FROM notes WHERE session_id = ? ORDER BY name',
          args: [ctx.sessionId],
        });
        await db.execute({
          sql: `DELETE FROM link_index WHERE session_id = ? AND from_name = 'lead:l' AND idx = 1`,
          args: [ctx.sessionId],
        });
        await db.execute({
          sql: `DELETE FROM notes WHERE session_id = ? AND name = 'figure:f'`,
          args: [ctx.sessionId],
        });
        await db.execute({
          sql: `DELETE FROM note_vectors WHERE session_id = ? AND name = 'lead:x-0'`,
          args: [ctx.sessionId],
        });
        const report = await v.verify(ctx.sessionId);
        expect(report.ok).toBe(false);
        expect(report.findings.map((f) => [f.table, f.name ?? null, f.repairable])).toEqual([
          ['notes', 'figure:f', true],
          ['sessions', null, true],
          ['link_index', null, true],
        ]);
        expect(report.findings[2]?.message).toMatch(
          /1 link row is missing from link_index: lead:l contradicts figure:f \(version 1, change 4, link 1\)/,
        );
        expect(report.recall).toEqual({ indexed: 3, missing: 1, stale: 0, orphaned: 0 });

        // Restoring the note restores the count: the session row needs no write.
        expect(await v.repair(ctx.sessionId)).toMatchObject({
          skipped: null,
          rebuilt: { notes: 1, link_index: 1, sessions: 0, note_vectors: 1 },
        });
        expect(await v.verify(ctx.sessionId)).toMatchObject({
          ok: true,
          findings: [],
          notices: [],
          recall: { indexed: 4, missing: 0 },
        });
        const after = await db.execute({
          sql: 'SELECT * FROM notes WHERE session_id = ? ORDER BY name',
          args: [ctx.sessionId],
        });
        expect(after.rows).toEqual(before.rows);
        const links = await db.execute({
          sql: 'SELECT count(*) AS n FROM link_index WHERE session_id = ?',
          args: [ctx.sessionId],
        });
        expect(links.rows[0]?.n).toBe(3);
      }),
    ));

  it('finds a wrong note count, a vector not computed from its note, an extra link row and an extra note', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h, v);
        const db = raw(h);
        const [other] = await adapter.embed([
          renderNote({ kind: 'lead', name: 'lead:zzz', text: 'something else entirely' }),
        ]);
        await db.execute({
          sql: `UPDATE note_vectors SET embedding = vector32(?) WHERE session_id = ? AND name = 'lead:x-0'`,
          args: [new Uint8Array(other!.buffer), ctx.sessionId],
        });
        await db.execute({
          sql: `INSERT INTO link_index (session_id, version, seq, idx, from_name, rel, to_name) VALUES (?, 3, 0, 5, 'lead:x-0', 'supports', 'lead:l')`,
          args: [ctx.sessionId],
        });
        await db.execute({
          sql: `INSERT INTO notes (session_id, name, kind, text, data, links, digest, author, created_at, updated_at, version, seq, created_version)
                SELECT session_id, 'lead:ghost', kind, text, data, links, digest, author, created_at, updated_at, version, seq, created_version
                  FROM notes WHERE session_id = ? AND name = 'lead:x-0'`,
          args: [ctx.sessionId],
        });
        const report = await v.verify(ctx.sessionId);
        expect(report.findings.map((f) => [f.table, f.name ?? null])).toEqual([
          ['notes', 'lead:ghost'],
          ['note_vectors', 'lead:x-0'],
          ['sessions', null],
          ['link_index', null],
        ]);
        expect(report.mismatches).toEqual([
          { name: 'lead:ghost', replayed: null, stored: expect.any(String) },
        ]);
        expect(await v.repair(ctx.sessionId)).toMatchObject({
          skipped: null,
          rebuilt: { notes: 1, link_index: 1, sessions: 0, note_vectors: 2 },
        });
        expect(await v.verify(ctx.sessionId)).toMatchObject({ ok: true, findings: [] });

        // A count that is simply wrong is rewritten (the session is open: not yet a tombstone).
        await db.execute({ sql: 'UPDATE sessions SET note_count = 7 WHERE id = ?', args: [ctx.sessionId] });
        expect((await v.verify(ctx.sessionId)).problems).toEqual([
          'the session counts 7 notes but 4 are stored',
        ]);
        expect((await v.repair(ctx.sessionId)).rebuilt.sessions).toBe(1);
        expect((await v.verify(ctx.sessionId)).ok).toBe(true);

        const live = await h.openStore({ recall: { adapter } });
        const hits = await live.recall(ctx, { text: 'x 0' }, 'live');
        expect(hits.rows.map((r) => r.name)).toContain('lead:x-0');
      }),
    ));

  it('a closed session must be content-free; repair drops derived rows and leaves the rest to the purge worker', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h, v);
        const db = raw(h);
        const vector = await db.execute({
          sql: `SELECT name, digest, model, embedding, indexed_at FROM note_vectors WHERE session_id = ? LIMIT 1`,
          args: [ctx.sessionId],
        });
        await h.store.forget(ctx.sessionId);
        // A late vector write from another process, and a recall record, after Forget now.
        const row = vector.rows[0]!;
        await db.execute({
          sql: `INSERT INTO note_vectors (session_id, name, digest, model, embedding, indexed_at) VALUES (?, ?, ?, ?, ?, ?)`,
          args: [
            ctx.sessionId,
            ...(['name', 'digest', 'model', 'embedding', 'indexed_at'] as const).map((c) => row[c] ?? null),
          ],
        });
        await db.execute({
          sql: `INSERT INTO recall_events (session_id, at, query_digest, mode, model, results) VALUES (?, 'x', 'x', 'shadow', 'm', '[]')`,
          args: [ctx.sessionId],
        });
        const report = await v.verify(ctx.sessionId);
        expect(report.ok).toBe(false);
        expect(report.findings.map((f) => [f.table, f.repairable])).toEqual([
          ['note_vectors', true],
          ['recall_events', false],
        ]);
        expect(report.findings[1]?.message).toMatch(
          /1 row left in recall_events, but a session that is forgotten holds no content; the purge worker deletes it/,
        );
        expect((await v.repair(ctx.sessionId)).rebuilt.note_vectors).toBe(1);
        expect((await v.verify(ctx.sessionId)).findings.map((f) => f.table)).toEqual(['recall_events']);
        await (await h.openPurger()).purgeOnce();
        expect(await v.verify(ctx.sessionId)).toMatchObject({ ok: true, state: 'purged' });
        // The tombstone was never touched by repair.
        expect(await h.store.getSession(ctx.sessionId)).toMatchObject({ version: 3, noteCount: 0 });
      }),
    ));

  it('a repair planned before an agent wrote changes nothing (the batch is guarded by the version)', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h);
        const db = raw(h);
        await db.execute({ sql: `DELETE FROM link_index WHERE session_id = ?`, args: [ctx.sessionId] });
        await db.execute({
          sql: `UPDATE notes SET text = 'tampered' WHERE session_id = ? AND name = 'lead:x-0'`,
          args: [ctx.sessionId],
        });
        const client = await openDatabase({ url: h.memoryUrl });
        try {
          const { plan } = await inspect({ client, now: h.clock.now }, ctx.sessionId);
          expect(plan?.putLinks).toHaveLength(3);
          await h.store.remember(ctx, {
            basedOn: 3,
            requestId: 'r4',
            changes: [{ op: 'add', name: 'lead:new', text: 'written meanwhile' }],
          });
          const late = await repair(client, ctx.sessionId, plan, undefined);
          expect(late.skipped).toMatch(/an agent wrote to the session before the repair could/);
          expect(late.rebuilt).toEqual({ notes: 0, link_index: 0, sessions: 0, note_vectors: 0 });
        } finally {
          client.close();
        }
        const count = await db.execute({
          sql: 'SELECT count(*) AS n FROM link_index WHERE session_id = ?',
          args: [ctx.sessionId],
        });
        expect(count.rows[0]?.n).toBe(0);
        // Planned again at the new version, it goes through.
        await v.repair(ctx.sessionId);
        expect(await v.verify(ctx.sessionId)).toMatchObject({ ok: true, version: 4, notes: 5 });
      }),
    ));

  it('a log that fails its own checks is reported and nothing is rebuilt from it', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h);
        const db = raw(h);
        await db.execute('DROP TRIGGER log_append_only');
        await db.execute({
          sql: `UPDATE log SET ops = json_replace(ops, '$[0].text', 'rewritten') WHERE session_id = ? AND version = 1`,
          args: [ctx.sessionId],
        });
        await db.execute({
          sql: `DELETE FROM notes WHERE session_id = ? AND name = 'figure:f'`,
          args: [ctx.sessionId],
        });
        const report = await v.verify(ctx.sessionId);
        expect(report.findings.map((f) => [f.table, f.repairable])).toEqual(
          expect.arrayContaining([
            ['log', false],
            ['note_changes', false],
            ['notes', true],
          ]),
        );
        const problems = report.problems.join('\n');
        expect(problems).toMatch(/log entry 1: its request hash does not match its ops/);
        expect(problems).toMatch(/log entry 1: its stored result does not match its ops/);
        expect(problems).toMatch(
          /note_changes of version 1 do not match the log: change 0 \(lead:x-0\) differs in text, digest/,
        );
        const repaired = await v.repair(ctx.sessionId);
        expect(repaired.skipped).toMatch(/fails its own checks/);
        expect(repaired.rebuilt).toEqual({ notes: 0, link_index: 0, sessions: 0, note_vectors: 0 });
      }),
    ));

  it('finds a gap in the log and history the log does not have', () =>
    withHarness(async (h) =>
      withVerifier(h, async (v) => {
        const ctx = await busySession(h);
        const db = raw(h);
        await db.execute('DROP TRIGGER log_delete_only_closed');
        await db.execute({
          sql: 'DELETE FROM log WHERE session_id = ? AND version = 2',
          args: [ctx.sessionId],
        });
        const problems = (await v.verify(ctx.sessionId)).problems.join('\n');
        expect(problems).toMatch(/the log has no entries for versions 2\.\.2/);
        expect(problems).toMatch(/note_changes holds changes of version 2, which the log does not have/);
      }),
    ));
});
