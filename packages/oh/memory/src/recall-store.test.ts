import { describe, expect, it } from 'vitest';
import type { Client } from '@libsql/client';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall/recall-index.ts';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { EmbeddingError } from '@oh/embeddings';
import { withHarness } from './testing/harness.ts';
import { outcome } from './testing/fixtures.ts';
import { RECALL_NOTES } from './testing/recall-notes.ts';

const adapter = createLocalEmbeddingAdapter({ dimensions: 64 });
const recall = { adapter };

async function count(raw: Client, table: string, sessionId: string): Promise<number> {
  const exists = await raw.execute({
    sql: `SELECT 1 FROM sqlite_master WHERE type='table' AND name=?`,
    args: [table],
  });
  if (exists.rows.length === 0) return 0;
  const rs = await raw.execute({
    sql: `SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`,
    args: [sessionId],
  });
  return Number(rs.rows[0]?.n ?? 0);
}

describe('store recall', () => {
  it('remember indexes in the background and recall live finds the note (names, digests, scores only)', () =>
    withHarness(
      async (h) => {
        const { ctx } = await h.session();
        const res = await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
        const raw = h.raw();
        expect(await h.store.drainRecall()).toBe(0);
        expect(await count(raw, 'note_vectors', ctx.sessionId)).toBe(3);
        const out = await h.store.recall(ctx, { text: 'coral bleaching recovery', limit: 2 }, 'live');
        expect(out.mode).toBe('live');
        expect(out.rows).toHaveLength(2);
        expect(out.found).toBe(2);
        expect(out.rows[0]!.name).toBe('lead:reef-heat');
        expect(out.rows[0]!.digest).toBe(res.applied[0]!.digest);
        for (const row of out.rows) expect(Object.keys(row).sort()).toEqual(['digest', 'name', 'score']);
        const recent = await h.store.recentRecalls(ctx.sessionId);
        expect(recent).toHaveLength(1);
        expect(recent[0]!.mode).toBe('live');
        expect(JSON.stringify(recent)).not.toContain('Coral');
        expect(JSON.stringify(recent)).not.toContain('coral bleaching');
      },
      { recall },
    ));

  it('shadow returns no rows but records the event; off does nothing', () =>
    withHarness(
      async (h) => {
        const { ctx } = await h.session();
        await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
        // No rows for the agent; how many the index found, for the host's own record of it.
        expect(await h.store.recall(ctx, { text: 'heatwave coral' }, 'shadow')).toEqual({
          mode: 'shadow',
          rows: [],
          found: 3,
        });
        const recent = await h.store.recentRecalls(ctx.sessionId);
        expect(recent).toHaveLength(1);
        expect(recent[0]!.mode).toBe('shadow');
        expect(recent[0]!.results[0]!.name).toBe('lead:reef-heat');
        expect(recent[0]!.results).toHaveLength(3);
        expect(await h.store.recall(ctx, { text: 'heatwave coral' }, 'off')).toEqual({
          mode: 'off',
          rows: [],
          found: 0,
        });
        expect(await h.store.recentRecalls(ctx.sessionId)).toHaveLength(1);
        expect(await outcome(h.store.recall(ctx, { text: '' }, 'live'))).toBe('invalid_input');
        expect(await outcome(h.store.recall(ctx, { text: 'x', author: 'me' } as never, 'live'))).toBe(
          'invalid_input',
        );
      },
      { recall },
    ));

  it('a closed session answers session_closed', () =>
    withHarness(
      async (h) => {
        const { ctx } = await h.session();
        await h.store.forget(ctx.sessionId);
        expect(await outcome(h.store.recall(ctx, { text: 'coral' }, 'shadow'))).toBe('session_closed');
        expect(await outcome(h.store.recall(ctx, { text: 'coral' }, 'off'))).toBe('session_closed');
      },
      { recall },
    ));

  it('an embedding outage does not fail shadow recall nor remember; live reports it', () => {
    let fail = false;
    const flaky: EmbeddingAdapter = {
      id: 'flaky-64',
      dimensions: 64,
      embed: (texts) => (fail ? Promise.reject(new EmbeddingError('network', 'down')) : adapter.embed(texts)),
    };
    return withHarness(
      async (h) => {
        const { ctx } = await h.session();
        fail = true;
        const res = await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
        expect(res.version).toBe(1);
        expect(await h.store.recall(ctx, { text: 'coral' }, 'shadow')).toEqual({
          mode: 'shadow',
          rows: [],
          found: 0,
        });
        expect(await h.store.recentRecalls(ctx.sessionId)).toEqual([]);
        expect(await outcome(h.store.recall(ctx, { text: 'coral' }, 'live'))).not.toBe('ok');
        fail = false;
        const out = await h.store.recall(ctx, { text: 'coral bleaching recovery' }, 'live');
        expect(out.rows[0]!.name).toBe('lead:reef-heat');
      },
      { recall: { adapter: flaky } },
    );
  });

  it("a replaced note's old digest is never returned; a removed note is not returned", () =>
    withHarness(
      async (h) => {
        const { ctx } = await h.session();
        const first = await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
        await h.store.recall(ctx, { text: 'coral' }, 'live');
        const second = await h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'r2',
          changes: [
            {
              op: 'replace',
              name: 'lead:reef-heat',
              text: 'Coral reefs recovered where herbivores grazed algae.',
            },
            { op: 'remove', name: 'lead:seagrass' },
          ],
        });
        const oldDigest = first.applied[0]!.digest;
        const newDigest = second.applied[0]!.digest;
        // Immediately (before background indexing ran) and once it has run.
        for (let i = 0; i < 2; i++) {
          const out = await h.store.recall(ctx, { text: 'coral reefs seagrass recovery', limit: 10 }, 'live');
          const names = out.rows.map((r) => r.name);
          expect(names).not.toContain('lead:seagrass');
          expect(out.rows.map((r) => r.digest)).not.toContain(oldDigest);
          expect(out.rows.find((r) => r.name === 'lead:reef-heat')?.digest).toBe(newDigest);
          await h.store.drainRecall();
        }
      },
      { recall },
    ));

  it('forget and purge leave no vector and no recall event', () =>
    withHarness(
      async (h) => {
        const raw = h.raw();
        const a = await h.session();
        const b = await h.session();
        for (const s of [a, b]) {
          await h.store.remember(s.ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
          await h.store.recall(s.ctx, { text: 'coral' }, 'shadow');
          expect(await count(raw, 'note_vectors', s.ctx.sessionId)).toBe(3);
          expect(await count(raw, 'recall_events', s.ctx.sessionId)).toBe(1);
        }
        await h.store.forget(a.ctx.sessionId);
        // Whatever background indexing was queued or in flight has finished: none of it came back.
        expect(await h.store.drainRecall()).toBe(0);
        expect(await count(raw, 'note_vectors', a.ctx.sessionId)).toBe(0);
        expect(await count(raw, 'recall_events', a.ctx.sessionId)).toBe(0);
        expect(await h.store.recentRecalls(a.ctx.sessionId)).toEqual([]);

        h.clock.advance(2 * 86_400_000);
        const purger = await h.openPurger();
        await purger.purgeOnce();
        expect(await count(raw, 'note_vectors', b.ctx.sessionId)).toBe(0);
        expect(await count(raw, 'recall_events', b.ctx.sessionId)).toBe(0);
      },
      { recall },
    ));

  it('a forget right after remember cancels the queued indexing', () =>
    withHarness(
      async (h) => {
        const raw = h.raw();
        const { ctx } = await h.session();
        await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
        await h.store.forget(ctx.sessionId);
        expect(await h.store.drainRecall()).toBe(0);
        expect(await count(raw, 'note_vectors', ctx.sessionId)).toBe(0);
      },
      { recall },
    ));

  it('a vector write that lands after another process forgot the session writes nothing', () =>
    withHarness(
      async (h) => {
        const raw = h.raw();
        const { ctx } = await h.session();
        const res = await h.store.remember(ctx, {
          basedOn: 0,
          requestId: 'r1',
          changes: RECALL_NOTES.slice(0, 1),
        });
        expect(await h.store.drainRecall()).toBe(0);
        expect(await count(raw, 'note_vectors', ctx.sessionId)).toBe(1);
        // A second index on its own connection stands in for the other process (the purge worker
        // forgets; this one's queue was still embedding): its epoch check cannot see the forget.
        const late = createRecallIndex({ client: raw, adapter, onlyLiveNotes: true });
        const note = {
          name: RECALL_NOTES[0]!.name,
          kind: 'lead',
          digest: res.applied[0]!.digest!,
          text: RECALL_NOTES[0]!.text,
        };
        await h.store.forget(ctx.sessionId);
        expect(await count(raw, 'note_vectors', ctx.sessionId)).toBe(0);
        await late.index(ctx.sessionId, [note]);
        expect(await count(raw, 'note_vectors', ctx.sessionId)).toBe(0);
        // The same late write without the guard would have put the forgotten note's vector back.
        const unguarded = createRecallIndex({ client: raw, adapter });
        await unguarded.index(ctx.sessionId, [note]);
        expect(await count(raw, 'note_vectors', ctx.sessionId)).toBe(1);
      },
      { recall },
    ));

  it('rebuild gives exactly the vectors of incremental indexing', () =>
    withHarness(
      async (h) => {
        const raw = h.raw();
        const { ctx } = await h.session();
        await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
        await h.store.remember(ctx, {
          basedOn: 1,
          requestId: 'r2',
          changes: [
            {
              op: 'replace',
              name: 'lead:seagrass',
              text: 'Seagrass meadows bury carbon.',
              data: { tonnes: 3 },
            },
            {
              op: 'add',
              name: 'lead:dhw',
              text: 'Degree heating weeks predict bleaching.',
              links: [{ rel: 'supports', to: 'lead:reef-heat' }],
            },
          ],
        });
        await h.store.recall(ctx, { text: 'coral' }, 'shadow');
        const snapshot = async () =>
          (
            await raw.execute({
              sql: 'SELECT name, digest, model, hex(embedding) AS e FROM note_vectors WHERE session_id = ? ORDER BY name',
              args: [ctx.sessionId],
            })
          ).rows.map((r) => [r.name, r.digest, r.model, r.e]);
        const incremental = await snapshot();
        expect(incremental).toHaveLength(4);

        const notes = (await h.store.notes(ctx.sessionId)).map((n) => ({
          name: n.name,
          digest: n.digest,
          kind: n.kind,
          text: n.text,
          data: n.data,
          links: n.links,
        }));
        const index = createRecallIndex({ client: raw, adapter });
        const report = await index.rebuild(ctx.sessionId, notes);
        expect(report.indexed).toBe(4);
        expect(await snapshot()).toEqual(incremental);
        index.close();
      },
      { recall },
    ));

  it('without a recall adapter, recall answers no rows', () =>
    withHarness(async (h) => {
      const { ctx } = await h.session();
      await h.store.remember(ctx, { basedOn: 0, requestId: 'r1', changes: RECALL_NOTES });
      expect(await h.store.recall(ctx, { text: 'coral' }, 'live')).toEqual({
        mode: 'live',
        rows: [],
        found: 0,
      });
      expect(await h.store.recentRecalls(ctx.sessionId)).toEqual([]);
    }));

  it("opening the store applies the recall migrations, recorded beside the store's own", () =>
    withHarness(
      async (h) => {
        const rs = await h
          .raw()
          .execute("SELECT namespace, id, name FROM _migrations WHERE namespace = 'recall' ORDER BY id");
        expect(rs.rows.map((r) => [r.namespace, r.id, r.name])).toEqual([
          ['recall', 1, '001_recall_events'],
          ['recall', 2, '002_note_vectors (F32_BLOB(64))'],
        ]);
      },
      { recall },
    ));
});
