/**
 * Forgetting means gone, also from disk. Notes are written with unique marker strings in their
 * names, texts and data; after Forget now, and separately after expiry and a purge pass, the
 * markers must not occur in the raw bytes of any database file (main file, -wal, -shm,
 * -journal), nor in any table (the recall index included).
 *
 * This drives the store directly; the same promise through Sponge's API (its transcript, recall
 * index and purge worker) is tested there.
 */
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
import { allMarkers, markedNoteChanges, markersFor } from './testing/markers.ts';
import type { Markers } from './testing/markers.ts';

/** 48 notes over four calls: adds, replaces (old content stays in the log) and removes. */
async function writeMarkedNotes(store: MemoryStore, sessionId: string, m: Markers): Promise<void> {
  const ctx = { sessionId, author: 'agent:forget-test' };
  let v = (await store.getSession(sessionId))!.version;
  const steps: Change[][] = [
    markedNoteChanges(m, 0, 24),
    markedNoteChanges(m, 24, 24),
    markedNoteChanges(m, 0, 10, 'replace'),
    Array.from({ length: 5 }, (_, i) => ({ op: 'remove' as const, name: `lead:${m.name}-${40 + i}` })),
  ];
  for (const [i, changes] of steps.entries()) {
    v = (await store.remember(ctx, { basedOn: v, requestId: `mk-${m.name}-${i}`, changes })).version;
  }
}

/** A session of a run of its own on one document, holding the 48 marked notes of `label`. */
async function markedSession(
  store: MemoryStore,
  runId: string,
  label: string,
): Promise<{ id: string; markers: Markers }> {
  const session = await store.openSession({
    ownerId: 'user:o',
    documentId: 'doc:d',
    runId,
    pinnedRevision: 0,
  });
  const markers = markersFor(label);
  await writeMarkedNotes(store, session.id, markers);
  return { id: session.id, markers };
}

async function expectGoneEverywhere(dir: string, dbPath: string, m: Markers): Promise<void> {
  const files = databaseFiles(dir);
  expect(files.length).toBeGreaterThan(0);
  expect(findMarkersOnDisk(files, allMarkers(m))).toEqual([]);
  const raw = rawClient(dbPath);
  try {
    expect(await rowsMentioning(raw, allMarkers(m))).toEqual([]);
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
      const { id: victim, markers: mv } = await markedSession(store, 'run:victim', 'v');
      const { id: keeper, markers: mk } = await markedSession(store, 'run:keeper', 'k');

      // The search works: before forgetting, the markers are on disk.
      expect(findMarkersOnDisk(databaseFiles(dir), allMarkers(mv)).length).toBeGreaterThan(0);

      const after = await store.forget(victim);
      expect(after.state).toBe('forgotten');
      expect(await store.notes(victim)).toEqual([]);
      expect(await store.log(victim)).toEqual([]);
      await expectGoneEverywhere(dir, dbPath, mv);

      // Only the forgotten session went: the other session's notes are intact and replay.
      expect((await store.notes(keeper)).length).toBe(43);
      expect((await store.verify(keeper)).ok).toBe(true);
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
      const { id: victim, markers: mv } = await markedSession(store, 'run:victim', 'p');
      expect(findMarkersOnDisk(databaseFiles(dir), allMarkers(mv)).length).toBeGreaterThan(0);

      clock.advance(24 * 3600_000 + 1_000);
      expect((await store.getSession(victim))?.state).toBe('expired');
      for (let pass = 0; pass < 50 && (await store.getSession(victim))?.state !== 'purged'; pass++) {
        await purger.purgeOnce();
      }
      expect((await store.getSession(victim))?.state).toBe('purged');
      expect(await store.notes(victim)).toEqual([]);
      expect(await store.log(victim)).toEqual([]);
      await expectGoneEverywhere(dir, dbPath, mv);
    } finally {
      purger.close();
      store.close();
    }
  }, 60_000);
});
