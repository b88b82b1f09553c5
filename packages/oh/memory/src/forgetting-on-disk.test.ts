/**
 * Forgetting means gone, also from disk. Notes are written with unique marker strings in their
 * names, texts and data; after Forget now, and separately after expiry and a purge pass, the
 * markers must not occur in the raw bytes of any database file (main file, -wal, -shm,
 * -journal), nor in any table (the recall index included).
 *
 * This drives the store directly; the same promise through Sponge's API (its transcript, recall
 * index and purge worker) is tested there.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Change, MemoryStore } from './index.ts';
import {
  databaseFiles,
  fileUrl,
  findMarkersOnDisk,
  openStore,
  openTestPurger,
  rawClient,
  rowsMentioning,
  tempDir,
  testClock,
} from './testing/fixtures.ts';

/** Three markers per session: one in every name, one in every text, one in every data value. */
function markersFor(label: string) {
  const hex = randomBytes(8).toString('hex');
  return {
    name: `mk${label}${hex}`,
    text: `MKTEXT${label.toUpperCase()}${hex}`,
    data: `MKDATA${label.toUpperCase()}${hex}`,
  };
}
type Markers = ReturnType<typeof markersFor>;
const all = (m: Markers) => [m.name, m.text, m.data];

function noteChanges(m: Markers, from: number, count: number, op: 'add' | 'replace' = 'add'): Change[] {
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    // Long texts spread the content over many pages, so stale copies would be easy to leave behind.
    return {
      op,
      name: `lead:${m.name}-${i}`,
      text: `${m.text} note ${i} ${op} `.repeat(40),
      data: { secret: `${m.data}-${i}`, n: i },
      links: i > 0 && op === 'add' ? [{ rel: 'supports' as const, to: `lead:${m.name}-${i - 1}` }] : [],
    };
  });
}

/** 48 notes over four calls: adds, replaces (old content stays in the log) and removes. */
async function writeMarkedNotes(store: MemoryStore, sessionId: string, m: Markers): Promise<void> {
  const ctx = { sessionId, author: 'agent:forget-test' };
  let v = (await store.getSession(sessionId))!.version;
  const steps: Change[][] = [
    noteChanges(m, 0, 24),
    noteChanges(m, 24, 24),
    noteChanges(m, 0, 10, 'replace'),
    Array.from({ length: 5 }, (_, i) => ({ op: 'remove' as const, name: `lead:${m.name}-${40 + i}` })),
  ];
  for (const [i, changes] of steps.entries()) {
    v = (await store.remember(ctx, { basedOn: v, requestId: `mk-${m.name}-${i}`, changes })).version;
  }
}

async function expectGoneEverywhere(dir: string, dbPath: string, m: Markers): Promise<void> {
  const files = databaseFiles(dir);
  expect(files.length).toBeGreaterThan(0);
  expect(findMarkersOnDisk(files, all(m))).toEqual([]);
  const raw = rawClient(dbPath);
  try {
    expect(await rowsMentioning(raw, all(m))).toEqual([]);
  } finally {
    raw.close();
  }
}

describe('store: forgotten and purged notes leave no bytes behind', () => {
  const tmp = tempDir('forget-disk');
  afterAll(() => tmp.remove());

  it('Forget now removes every trace of the notes from the database files, while the store stays open', async () => {
    const dir = join(tmp.dir, 'now');
    mkdirSync(dir);
    const dbPath = join(dir, 'memory.db');
    const store = await openStore(fileUrl(dbPath));
    try {
      const victim = await store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:victim',
        pinnedRevision: 0,
      });
      const keeper = await store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:keeper',
        pinnedRevision: 0,
      });
      const mv = markersFor('v');
      const mk = markersFor('k');
      await writeMarkedNotes(store, victim.id, mv);
      await writeMarkedNotes(store, keeper.id, mk);

      // The search works: before forgetting, the markers are on disk.
      expect(findMarkersOnDisk(databaseFiles(dir), all(mv)).length).toBeGreaterThan(0);

      const after = await store.forget(victim.id);
      expect(after.state).toBe('forgotten');
      expect(await store.notes(victim.id)).toEqual([]);
      expect(await store.log(victim.id)).toEqual([]);
      await expectGoneEverywhere(dir, dbPath, mv);

      // Only the forgotten session went: the other session's notes are intact and replay.
      expect((await store.notes(keeper.id)).length).toBe(43);
      expect((await store.verify(keeper.id)).ok).toBe(true);
      expect(findMarkersOnDisk(databaseFiles(dir), [mk.text]).length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
    await expectGoneEverywhere(dir, dbPath, markersFor('unused'));
  }, 60_000);

  it('expiry and a purge pass remove every trace of the notes from the database files', async () => {
    const dir = join(tmp.dir, 'purge');
    mkdirSync(dir);
    const dbPath = join(dir, 'memory.db');
    const clock = testClock();
    const store = await openStore(fileUrl(dbPath), { now: clock.now });
    const purger = await openTestPurger(fileUrl(dbPath), clock.now);
    try {
      const victim = await store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:victim',
        pinnedRevision: 0,
      });
      const mv = markersFor('p');
      await writeMarkedNotes(store, victim.id, mv);
      expect(findMarkersOnDisk(databaseFiles(dir), all(mv)).length).toBeGreaterThan(0);

      clock.advance(24 * 3600_000 + 1_000);
      expect((await store.getSession(victim.id))?.state).toBe('expired');
      for (let pass = 0; pass < 50 && (await store.getSession(victim.id))?.state !== 'purged'; pass++) {
        await purger.purgeOnce();
      }
      expect((await store.getSession(victim.id))?.state).toBe('purged');
      expect(await store.notes(victim.id)).toEqual([]);
      expect(await store.log(victim.id)).toEqual([]);
      await expectGoneEverywhere(dir, dbPath, mv);
    } finally {
      purger.close();
      store.close();
    }
  }, 60_000);
});
