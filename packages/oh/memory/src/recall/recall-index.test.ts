import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmbeddingError } from '@oh/embeddings';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall-index.ts';
import type { RecallIndex, RecallIndexOptions } from './recall-index.ts';
import { NOTE_VECTORS_TABLE, RECALL_EVENTS_TABLE, applyRecallSchema } from './schema.ts';
import { kindOf } from '../records.ts';
import type { RecallNote } from './render.ts';

let dir: string;
let client: Client;
const indexes: RecallIndex[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'recall-'));
  client = createClient({ url: `file:${join(dir, 'memory.db')}` });
});
afterEach(() => {
  for (const ix of indexes.splice(0)) ix.close();
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every table of recall's, each keyed by `session_id`. */
const RECALL_TABLES = [NOTE_VECTORS_TABLE, RECALL_EVENTS_TABLE];

function open(extra: Partial<RecallIndexOptions> = {}): RecallIndex {
  const ix = createRecallIndex({
    client,
    adapter: createLocalEmbeddingAdapter({ dimensions: 64 }),
    ...extra,
  });
  indexes.push(ix);
  return ix;
}

/** A note whose digest is derived from its content, as the store's would be. */
function note(name: string, text: string, data: RecallNote['data'] = null): RecallNote {
  const kind = kindOf(name);
  const digest = createHash('sha256')
    .update(JSON.stringify([kind, name, text, data]))
    .digest('hex');
  return { kind, name, text, data, links: [], digest };
}

const digestsOf = (notes: RecallNote[]) => new Map(notes.map((n) => [n.name, n.digest]));

async function rows(sessionId?: string) {
  const rs = await client.execute({
    sql: `SELECT session_id, name, digest, model, vector_extract(embedding) AS v FROM note_vectors
          ${sessionId === undefined ? '' : 'WHERE session_id = ?'} ORDER BY session_id, name`,
    args: sessionId === undefined ? [] : [sessionId],
  });
  return rs.rows.map((r) => ({
    session: r.session_id,
    name: r.name,
    digest: r.digest,
    model: r.model,
    v: r.v,
  }));
}

/** An adapter wrapper that can fail or block on demand. */
function controllable(base: EmbeddingAdapter = createLocalEmbeddingAdapter({ dimensions: 64 })) {
  const state = { calls: 0, failNext: 0, gate: undefined as Promise<void> | undefined };
  const adapter: EmbeddingAdapter = {
    id: base.id,
    dimensions: base.dimensions,
    async embed(texts) {
      state.calls++;
      if (state.gate) await state.gate;
      if (state.failNext > 0) {
        state.failNext--;
        throw new EmbeddingError('http', 'embeddings request to http://x/v1/embeddings failed: HTTP 503', {
          status: 503,
          retryable: true,
        });
      }
      return base.embed(texts);
    },
  };
  return { adapter, state };
}

const NOTES = [
  note('finding:bleaching-2016', 'Mass coral bleaching hit the northern Great Barrier Reef in 2016.', {
    year: 2016,
  }),
  note('method:manta-tow', 'Manta tow surveys estimate coral cover from a towed observer.'),
  note('dataset:sst', 'NOAA daily sea surface temperature and degree heating weeks.'),
  note('figure:cover-trend', 'Line chart of hard coral cover by region, 1986 to 2022.'),
  note('question:recovery', 'How fast does coral cover recover after a disturbance?'),
];

describe('recall index on libSQL', () => {
  it('creates its tables idempotently, keeping no note text', async () => {
    const a = open();
    await a.init();
    await a.init();
    await open().init();
    const tables = await client.execute(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`);
    expect(tables.rows.map((r) => r.name)).toEqual(expect.arrayContaining(RECALL_TABLES));
    const cols = await client.execute(`SELECT name, type FROM pragma_table_info('note_vectors')`);
    expect(cols.rows.map((r) => `${r.name} ${r.type}`)).toEqual([
      'session_id TEXT',
      'name TEXT',
      'digest TEXT',
      'model TEXT',
      'embedding F32_BLOB(64)',
      'indexed_at TEXT',
    ]);

    await a.index('s1', NOTES);
    const hits = await a.search('s1', 'coral bleaching 2016', { currentDigests: digestsOf(NOTES), limit: 3 });
    await a.recordRecall('s1', { mode: 'shadow', text: 'coral bleaching 2016', results: hits });
    // Nothing derived from the text but the vector: scan every stored value for a note's words.
    for (const table of RECALL_TABLES) {
      const all = await client.execute(`SELECT * FROM ${table}`);
      const dump = JSON.stringify(all.rows, (_k, v: unknown) => (v instanceof ArrayBuffer ? null : v));
      expect(dump).not.toMatch(/Mass coral|Great Barrier|towed observer|bleaching 2016/);
    }
  });

  it('returns names, digests and scores only, best first, within the limit', async () => {
    const ix = open();
    expect(await ix.index('s1', NOTES)).toEqual({ indexed: 5, unchanged: 0, discarded: 0 });
    const hits = await ix.search('s1', 'when was the big coral bleaching on the northern reef', {
      currentDigests: digestsOf(NOTES),
      limit: 3,
    });
    expect(hits).toHaveLength(3);
    expect(hits[0]!.name).toBe('finding:bleaching-2016');
    for (const h of hits) {
      expect(Object.keys(h).sort()).toEqual(['digest', 'name', 'score']);
      expect(h.score).toBeGreaterThanOrEqual(-1);
      expect(h.score).toBeLessThanOrEqual(1);
      expect(h.digest).toBe(digestsOf(NOTES).get(h.name));
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    // Another session sees nothing of s1's.
    expect(await ix.search('s2', 'coral bleaching', { currentDigests: digestsOf(NOTES) })).toEqual([]);
    // Empty or wordless queries and empty sessions give nothing.
    expect(await ix.search('s1', '?!', { currentDigests: digestsOf(NOTES) })).toEqual([]);
    expect(await ix.search('s1', 'coral', { currentDigests: new Map() })).toEqual([]);
    await expect(ix.search('s1', 'coral', { currentDigests: digestsOf(NOTES), limit: 0 })).rejects.toThrow(
      RangeError,
    );
  });

  it('never returns a row whose digest is not the current one', async () => {
    const ix = open();
    const old = note('finding:bleaching-2016', 'Coral bleaching in 2016 on the northern reef.');
    await ix.index('s1', [old]);
    const replaced = note('finding:bleaching-2016', 'Coral bleaching in 2016 and 2017 on the northern reef.');
    // The note was replaced but the index has not caught up: the stale row must not come back.
    expect(await ix.search('s1', 'coral bleaching 2016', { currentDigests: digestsOf([replaced]) })).toEqual(
      [],
    );
    // A removed note (absent from the current digests) never comes back either.
    expect(
      await ix.search('s1', 'coral bleaching 2016', { currentDigests: new Map([['other:x', 'd']]) }),
    ).toEqual([]);

    // Many stale rows ranked above the current ones: the scan widens until it has `limit` rows.
    const stale = Array.from({ length: 120 }, (_, i) =>
      note(`finding:heat-${i}`, `coral bleaching heat stress ${i}`),
    );
    const fresh = Array.from({ length: 5 }, (_, i) =>
      note(`dataset:other-${i}`, `satellite maps of habitat ${i}`),
    );
    await ix.index('s1', [...stale, ...fresh]);
    const current = new Map([
      ...stale.map((n) => [n.name, `${n.digest}-newer`] as const),
      ...fresh.map((n) => [n.name, n.digest] as const),
    ]);
    const hits = await ix.search('s1', 'coral bleaching heat stress', { currentDigests: current, limit: 5 });
    expect(hits.map((h) => h.name).sort()).toEqual(fresh.map((n) => n.name).sort());
  });

  it('rebuild gives the same vectors and digests as incremental indexing', async () => {
    const ix = open();
    // Incremental history: adds, a replace, a remove, a re-add, in several calls.
    await ix.index('inc', NOTES.slice(0, 3));
    await ix.index('inc', NOTES.slice(3));
    const replaced = note(
      'method:manta-tow',
      'Manta tow surveys, two-minute tows around the reef perimeter.',
    );
    await ix.index('inc', [replaced]);
    await ix.remove('inc', ['dataset:sst']);
    const added = note('todo:site-ids', 'Match site ids between the two exports.');
    await ix.index('inc', [added, NOTES[0]!]); // NOTES[0] unchanged: skipped
    const final = [NOTES[0]!, replaced, NOTES[3]!, NOTES[4]!, added];

    await ix.index('reb', [note('finding:gone', 'Something the rebuild must drop.')]);
    expect(await ix.rebuild('reb', [...final].reverse())).toEqual({ indexed: 5, discarded: false });

    const strip = (rs: Awaited<ReturnType<typeof rows>>) => rs.map(({ session: _s, ...r }) => r);
    const inc = strip(await rows('inc'));
    expect(inc).toHaveLength(5);
    expect(inc).toEqual(strip(await rows('reb')));
    expect(inc.map((r) => r.digest)).toEqual(
      [...final].sort((a, b) => a.name.localeCompare(b.name)).map((n) => n.digest),
    );

    // And the same search answers.
    const q = { currentDigests: digestsOf(final), limit: 5 };
    expect(await ix.search('inc', 'coral survey methods', q)).toEqual(
      await ix.search('reb', 'coral survey methods', q),
    );
  });

  it('skips notes already indexed at their digest', async () => {
    const { adapter, state } = controllable();
    const ix = open({ adapter });
    await ix.index('s1', NOTES);
    expect(state.calls).toBe(1);
    expect(await ix.index('s1', NOTES)).toEqual({ indexed: 0, unchanged: 5, discarded: 0 });
    expect(state.calls).toBe(1);
  });

  it('deleteSession leaves no vector and no recall event of the session', async () => {
    const ix = open();
    await ix.index('s1', NOTES);
    await ix.index('s2', NOTES.slice(0, 2));
    await ix.recordRecall('s1', { mode: 'shadow', text: 'q', results: [] });
    await ix.recordRecall('s2', { mode: 'live', text: 'q', results: [] });
    expect(await ix.deleteSession('s1')).toEqual({ vectors: 5, events: 1 });
    expect(await rows('s1')).toEqual([]);
    expect(await ix.recentRecalls('s1')).toEqual([]);
    expect(await rows('s2')).toHaveLength(2);
    expect(await ix.search('s1', 'coral', { currentDigests: digestsOf(NOTES) })).toEqual([]);
  });

  it('an indexing call in flight when the session is deleted writes nothing', async () => {
    const { adapter, state } = controllable();
    const ix = open({ adapter });
    let release!: () => void;
    state.gate = new Promise<void>((r) => (release = r));
    const pendingIndex = ix.index('s1', NOTES);
    const pendingRebuild = ix.rebuild('s1', NOTES);
    await vi.waitFor(() => expect(state.calls).toBe(2));
    await ix.deleteSession('s1');
    release();
    expect(await pendingIndex).toEqual({ indexed: 0, unchanged: 0, discarded: 5 });
    expect(await pendingRebuild).toEqual({ indexed: 0, discarded: true });
    expect(await rows('s1')).toEqual([]);

    // Queued background work is cancelled too.
    state.gate = new Promise<void>((r) => (release = r));
    ix.indexLater('s1', NOTES);
    await vi.waitFor(() => expect(state.calls).toBe(3));
    await ix.deleteSession('s1');
    release();
    await ix.drain();
    expect(ix.pending()).toBe(0);
    expect(await rows('s1')).toEqual([]);
  });

  it('background indexing takes the notes of every session due in one embedding call and one write', async () => {
    const { adapter, state } = controllable();
    const writes: number[] = [];
    let wrote = () => {};
    const ix = open({
      adapter,
      write: async (statements) => {
        writes.push(statements.length);
        wrote();
        return client.batch(statements, 'write');
      },
    });
    // Twelve agents each write a note in the same moment, as under load.
    const firstWrite = new Promise<void>((resolve) => (wrote = resolve));
    for (let s = 0; s < 12; s++) ix.indexLater(`s${s}`, [note(`lead:n${s}`, `note number ${s} of the load`)]);
    // The background batch (no drain asked for it) issues the write; drain then only waits for it.
    // Waiting on the write itself, not on a deadline: under load the batch starts late, not wrong.
    await firstWrite;
    expect(await ix.drain()).toBe(0);
    expect(state.calls).toBe(1);
    expect(writes).toEqual([12]);
    expect(await rows()).toHaveLength(12);
    // A batch is bounded across sessions: 300 notes over 3 sessions take two batches of ≤ 256.
    // Drained, not waited for: the pause after a 256-note batch grows with how long it took
    // (busyShare), which on a loaded machine outlasted any deadline the test could set.
    const many = (s: number) =>
      Array.from({ length: 100 }, (_, i) => note(`lead:m${s}-${i}`, `more ${s} ${i}`));
    for (let s = 0; s < 3; s++) ix.indexLater(`t${s}`, many(s));
    expect(await ix.drain()).toBe(0);
    expect(writes.slice(1)).toEqual([256, 44]);
    expect(await rows()).toHaveLength(312);
  });

  it('a session the full queue had to leave is caught up in the background, without a recall', async () => {
    const all = Array.from({ length: 8 }, (_, i) => note(`lead:q${i}`, `queued note ${i}`));
    const asked: number[] = [];
    const ix = open({
      // No pause between batches (busyShare 1): this test is about what is caught up, not when.
      queue: { maxPending: 3, busyShare: 1 },
      onBackgroundError: () => {},
      // What the store answers: the notes with no vector at their digest.
      missingNotes: async (sessionId, _model, limit) => {
        asked.push(limit);
        const have = new Map((await rows(sessionId)).map((r) => [r.name, r.digest]));
        return all.filter((n) => have.get(n.name) !== n.digest).slice(0, 2);
      },
    });
    ix.indexLater('s1', all);
    expect(ix.pending('s1')).toBe(3);
    expect((await ix.status('s1', digestsOf(all))).needsCatchUp).toBe(true);
    await vi.waitFor(async () => expect(await rows('s1')).toHaveLength(8), { timeout: 3_000 });
    await vi.waitFor(async () => expect((await ix.status('s1', digestsOf(all))).needsCatchUp).toBe(false));
    // Three refills of two notes, then one that finds nothing missing.
    expect(asked.length).toBeGreaterThanOrEqual(4);
  });

  it('background indexing retries failures and never throws', async () => {
    const { adapter, state } = controllable();
    const errors: Array<{ attempt: number; gaveUp: boolean }> = [];
    const ix = open({
      adapter,
      queue: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 4, busyShare: 1 },
      onBackgroundError: (_e, info) => errors.push({ attempt: info.attempt, gaveUp: info.gaveUp }),
    });
    state.failNext = 2;
    expect(() => ix.indexLater('s1', NOTES)).not.toThrow();
    expect(ix.pending('s1')).toBe(5);
    await vi.waitFor(() => expect(ix.pending()).toBe(0), { timeout: 3_000 });
    expect(errors).toEqual([
      { attempt: 1, gaveUp: false },
      { attempt: 2, gaveUp: false },
    ]);
    expect(await rows('s1')).toHaveLength(5);
    expect((await ix.status('s1', digestsOf(NOTES))).missing).toBe(0);

    // Failing for good: the queue gives up, marks the session, and catchUp repairs it later.
    state.failNext = 100;
    const more = [note('todo:a', 'first todo'), note('todo:b', 'second todo')];
    ix.indexLater('s1', more);
    await vi.waitFor(() => expect(ix.pending()).toBe(0), { timeout: 3_000 });
    expect(errors.at(-1)).toEqual({ attempt: 4, gaveUp: true });
    const all = [...NOTES, ...more];
    expect(await ix.status('s1', digestsOf(all))).toEqual({
      indexed: 5,
      missing: 2,
      orphaned: 0,
      pending: 0,
      needsCatchUp: true,
    });
    state.failNext = 0;
    expect(await ix.catchUp('s1', all)).toEqual({ indexed: 2, removed: 0 });
    expect(await ix.status('s1', digestsOf(all))).toMatchObject({
      indexed: 7,
      missing: 0,
      needsCatchUp: false,
    });
  });

  it('the background queue is bounded and keeps the newest content of a note', async () => {
    const { adapter, state } = controllable();
    const ix = open({ adapter, queue: { maxPending: 3 }, onBackgroundError: () => {} });
    let release!: () => void;
    state.gate = new Promise<void>((r) => (release = r));
    ix.indexLater('s1', NOTES.slice(0, 2)); // starts at once, blocked in embed
    await vi.waitFor(() => expect(state.calls).toBe(1));
    const v2 = note('finding:bleaching-2016', 'Bleaching, second version.');
    ix.indexLater('s1', [v2, ...NOTES.slice(2)]); // 1 replaced + 3 new, room for 1 more
    expect(ix.pending('s1')).toBe(3);
    expect((await ix.status('s1', new Map())).needsCatchUp).toBe(true);
    release();
    expect(await ix.drain()).toBe(0);
    const stored = new Map((await rows('s1')).map((r) => [r.name, r.digest]));
    expect(stored.get('finding:bleaching-2016')).toBe(v2.digest);
  });

  it('catchUp indexes only what is missing or stale and drops orphans', async () => {
    const { adapter, state } = controllable();
    const ix = open({ adapter });
    await ix.index('s1', [...NOTES, note('finding:removed', 'A note removed since.')]);
    const replaced = note('method:manta-tow', 'Manta tows, new wording.');
    const current = [NOTES[0]!, replaced, NOTES[2]!, NOTES[3]!, NOTES[4]!, note('todo:new', 'A new note.')];
    const loaded: string[][] = [];
    const result = await ix.catchUp('s1', {
      digests: digestsOf(current),
      load: async (names) => {
        loaded.push(names);
        return current.filter((n) => names.includes(n.name));
      },
    });
    expect(result).toEqual({ indexed: 2, removed: 1 });
    expect(loaded).toEqual([['method:manta-tow', 'todo:new']]);
    expect(await ix.status('s1', digestsOf(current))).toMatchObject({ indexed: 6, missing: 0, orphaned: 0 });
    const calls = state.calls;
    expect(await ix.catchUp('s1', current)).toEqual({ indexed: 0, removed: 0 });
    expect(state.calls).toBe(calls);
  });

  it('records recalls for the owner: query digest and results only, newest first, pruned', async () => {
    const ix = open({ eventsPerSession: 3 });
    for (let i = 0; i < 5; i++) {
      await ix.recordRecall('s1', {
        mode: i % 2 === 0 ? 'shadow' : 'live',
        text: `query number ${i}`,
        results: [{ name: 'finding:x', digest: 'abc', score: 0.5, text: 'leaked?' } as never],
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      });
    }
    const events = await ix.recentRecalls('s1', 10);
    expect(events).toHaveLength(3);
    expect(events.map((e) => e.at)).toEqual([
      '2026-01-01T00:00:04.000Z',
      '2026-01-01T00:00:03.000Z',
      '2026-01-01T00:00:02.000Z',
    ]);
    expect(events[0]).toEqual({
      at: '2026-01-01T00:00:04.000Z',
      queryDigest: createHash('sha256').update('query number 4').digest('hex'),
      mode: 'shadow',
      model: 'local-hash-v1:64',
      results: [{ name: 'finding:x', digest: 'abc', score: 0.5 }],
    });
    expect(await ix.recentRecalls('s1', 1)).toHaveLength(1);
    await expect(ix.recordRecall('s1', { mode: 'off' as never, text: 'x', results: [] })).rejects.toThrow(
      /mode/,
    );
  });

  it('starts over when the dimension changes, and treats another model as stale', async () => {
    await open().index('s1', NOTES);
    const wide = open({ adapter: createLocalEmbeddingAdapter({ dimensions: 32 }) });
    await wide.init();
    expect(await rows()).toEqual([]);
    const cols = await client.execute(
      `SELECT type FROM pragma_table_info('note_vectors') WHERE name = 'embedding'`,
    );
    expect(cols.rows[0]!.type).toBe('F32_BLOB(32)');
    await wide.index('s1', NOTES);

    const base = createLocalEmbeddingAdapter({ dimensions: 32 });
    const other = open({ adapter: { ...base, id: 'another-model:32' } });
    const current = digestsOf(NOTES);
    expect(await other.search('s1', 'coral bleaching', { currentDigests: current })).toEqual([]);
    expect(await other.status('s1', current)).toMatchObject({ indexed: 0, missing: 5 });
    expect(await other.catchUp('s1', NOTES)).toEqual({ indexed: 5, removed: 0 });
    const hits = await other.search('s1', 'coral bleaching', { currentDigests: current });
    expect(hits.map((h) => h.name).sort()).toEqual(NOTES.map((n) => n.name).sort());
  });

  it('refuses vectors of the wrong length from an adapter', async () => {
    const bad: EmbeddingAdapter = {
      id: 'bad:64',
      dimensions: 64,
      embed: async (texts) => texts.map(() => new Float32Array(10)),
    };
    await expect(open({ adapter: bad }).index('s1', NOTES)).rejects.toThrow(/length 10, expected 64/);
  });

  it('records its migrations under `recall`: opening again applies nothing', async () => {
    const recorded = async () =>
      (
        await client.execute(
          "SELECT id, name, applied_at FROM _migrations WHERE namespace = 'recall' ORDER BY id",
        )
      ).rows.map((r) => [r.id, r.name, r.applied_at]);
    const at = new Date(Date.UTC(2026, 0, 1));
    await open({ now: () => at }).init();
    const first = await recorded();
    expect(first).toEqual([
      [1, '001_recall_events', at.toISOString()],
      [2, '002_note_vectors (F32_BLOB(64))', at.toISOString()],
    ]);
    await open().init();
    expect(await applyRecallSchema(client, { dimensions: 64 })).toEqual({ applied: [] });
    expect(await recorded()).toEqual(first);
  });

  it('opens a database indexed before recall was migrated (tables present, nothing on record)', async () => {
    // Exactly what the index created before its tables were migrations, with a vector and an event.
    await client.batch(
      [
        `CREATE TABLE IF NOT EXISTS note_vectors (
          session_id TEXT NOT NULL, name TEXT NOT NULL, digest TEXT NOT NULL, model TEXT NOT NULL,
          embedding F32_BLOB(64) NOT NULL, indexed_at TEXT NOT NULL, PRIMARY KEY (session_id, name))`,
        `CREATE TABLE IF NOT EXISTS recall_events (
          id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, at TEXT NOT NULL, query_digest TEXT NOT NULL,
          mode TEXT NOT NULL CHECK (mode IN ('shadow', 'live')), model TEXT NOT NULL,
          results TEXT NOT NULL CHECK (json_valid(results)))`,
        `CREATE INDEX IF NOT EXISTS recall_events_by_session ON recall_events (session_id, id)`,
        {
          sql: `INSERT INTO note_vectors (session_id, name, digest, model, embedding, indexed_at)
                VALUES ('s1', ?, ?, 'local-hash-v1:64', vector32(?), '2025-12-31T00:00:00.000Z')`,
          args: [NOTES[0]!.name, NOTES[0]!.digest, JSON.stringify(Array.from({ length: 64 }, () => 0.125))],
        },
        `INSERT INTO recall_events (session_id, at, query_digest, mode, model, results)
         VALUES ('s1', '2025-12-31T00:00:00.000Z', 'abc', 'live', 'local-hash-v1:64', '[]')`,
      ],
      'write',
    );
    const ix = open();
    // The recall log is kept; the vectors are a copy made in a shape nobody recorded: rebuilt.
    expect(await ix.recentRecalls('s1')).toEqual([
      {
        at: '2025-12-31T00:00:00.000Z',
        queryDigest: 'abc',
        mode: 'live',
        model: 'local-hash-v1:64',
        results: [],
      },
    ]);
    expect(await ix.status('s1', digestsOf(NOTES))).toMatchObject({ indexed: 0, missing: 5 });
    expect(await ix.catchUp('s1', NOTES)).toEqual({ indexed: 5, removed: 0 });
    const hits = await ix.search('s1', 'coral bleaching 2016', {
      currentDigests: digestsOf(NOTES),
      limit: 1,
    });
    expect(hits.map((h) => h.name)).toEqual(['finding:bleaching-2016']);
    const recorded = await client.execute(
      "SELECT id FROM _migrations WHERE namespace = 'recall' ORDER BY id",
    );
    expect(recorded.rows.map((r) => r.id)).toEqual([1, 2]);
  });
});
