import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCALE_TAG, libraryScale, scaleDocument } from './library-scale.ts';

describe('scaleDocument', () => {
  it('writes the same document for the same seed, paragraphs of one chunk each, a tag on one in ten', () => {
    expect(scaleDocument(2, 7)).toEqual(scaleDocument(2, 7));
    expect(scaleDocument(2, 7).pages).not.toEqual(scaleDocument(2, 8).pages);
    const paragraphs = scaleDocument(2, 7).pages.flatMap((p) => p.split('\n\n'));
    expect(paragraphs).toHaveLength(99);
    for (const p of paragraphs) expect(p.length).toBeLessThan(800);
    const tagged = Array.from({ length: 100 }, (_, i) => scaleDocument(1, i, 1)).filter((d) =>
      d.metadata.tags.includes(SCALE_TAG),
    );
    expect(tagged).toHaveLength(10);
  });
});

describe('the scale figure at a tiny size', () => {
  let work: string | undefined;
  afterEach(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('reports every row, and narrowed searches answer only from the tag or the document asked for', async () => {
    work = mkdtempSync(join(os.tmpdir(), 'scale-test-'));
    const rows = await libraryScale(
      { quick: true, work, benchDir: '.', builds: {}, log: () => undefined },
      { documents: 30, indexed: 24, baselineDocuments: 6, paragraphsPerDocument: 3, rounds: 2, perRound: 3 },
    );
    expect(rows.map((r) => r.figure.split(/ \(|,/)[0])).toEqual([
      'library at scale: library.add of 30 documents',
      'library at scale: add and index 24 documents',
      'library at scale: search hybrid',
      `library at scale: search with the tag ${SCALE_TAG}`,
      'library at scale: search in one document',
      "library at scale: the owner's list",
      'library at scale: resident memory of this process',
    ]);
    // Three paragraphs and the abstract: four chunks a document.
    expect(rows[0]!.raw).toMatchObject({ documents: 30, firstAdds: { n: 30 }, lastAdds: { n: 30 } });
    expect(rows[1]!.raw).toMatchObject({ documents: 24, chunks: 96, baseline: { documents: 6, chunks: 24 } });
    for (const r of rows.slice(2, 5)) expect(r.raw).toMatchObject({ subject: { n: 6 }, baseline: { n: 6 } });
    expect(rows[3]!.raw!.untagged).toBe(0);
    expect(rows[4]!.raw!.strays).toBe(0);
    // Every document of the listed library, none indexed: the list does not wait for the indexer.
    expect(rows[5]!.raw).toMatchObject({ listed: 30, indexedLibrary: { n: 4 } });
    // The hybrid row names the slowest searches of the three kinds, with the GC inside each.
    const tails = rows[2]!.raw!.tails as Array<{ kind: string; ms: number; gcMs: number }>;
    expect(tails).toHaveLength(6);
    for (const t of tails) expect(['hybrid', 'tag', 'documentId']).toContain(t.kind);
    expect(tails[0]!.ms).toBeGreaterThanOrEqual(tails[5]!.ms);
    expect(rows[2]!.note).toMatch(
      /the slowest of the three kinds: (hybrid|tag|documentId) \d+ ms \(query \d+/,
    );
    // The memory row says in which steps of the figure the process's peak rose.
    expect((rows[6]!.raw!.peaks as Array<{ step: string }>).map((p) => p.step)).toEqual([
      'scale-small: added',
      'scale-small: indexed',
      'scale-small: vectors loaded',
      'scale-small: graph built',
      'scale-listed: added',
      'scale-indexed: added',
      'scale-indexed: indexed',
      'scale-indexed: vectors loaded',
      'scale-indexed: graph built',
      'searched',
      'listed',
    ]);
    // A library smaller than the gives no verdicts.
    for (const r of rows) expect(r.met).toBeNull();
    for (const r of rows) expect(r.ratio).toBeGreaterThan(0);
  }, 30_000);
});
