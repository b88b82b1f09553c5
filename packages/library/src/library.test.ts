import type { EmbeddingAdapter } from '@oh/embeddings';
import { createLocalEmbeddingAdapter } from '@oh/embeddings';
import { afterEach, describe, expect, it } from 'vitest';
import { createLibrary, pastedDocument } from './library.ts';
import {
  LOCAL_CALIBRATION,
  WORDS_ONLY_CALIBRATION,
  hitScore,
  searchCalibration,
} from './search/calibration.ts';
import { openTestDatabase } from './testing/database.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('pastedDocument', () => {
  it('stores a pasted text as an uploaded text file is read: no byte order mark, LF lines, no blank space around it', () => {
    expect(
      pastedDocument({
        title: 'Kelp',
        text: '\uFEFF\n  # Kelp canopy\r\n\rCanopy loss.\r\n\n ',
        format: 'markdown',
      }),
    ).toEqual({ title: 'Kelp', authors: [], source: 'markdown', pages: ['# Kelp canopy\n\nCanopy loss.'] });
  });

  it('is plain text without a format, by the authors given', () => {
    expect(pastedDocument({ title: 'T', authors: ['A. Author'], text: 'body' })).toEqual({
      title: 'T',
      authors: ['A. Author'],
      source: 'text',
      pages: ['body'],
    });
  });
});

/**
 * An embedding model the relevance set has not measured, that knows what the local hashing adapter
 * cannot: kelp is a seaweed. Each text is near the concepts it names; its other words weigh little.
 */
const CONCEPTS = [/\b(kelp|seaweed|macroalgae)\b/i, /\b(urchins?|echinoderms?)\b/i, /\b(bread|sourdough)\b/i];
const conceptModel: EmbeddingAdapter = {
  id: 'concepts-test:4',
  dimensions: 4,
  embed: (texts) =>
    Promise.resolve(texts.map((t) => Float32Array.from([...CONCEPTS.map((c) => (c.test(t) ? 1 : 0)), 0.3]))),
};

/** A library on that model, with two documents; the warnings it logs are kept. */
async function conceptLibrary(similarityFloor?: number) {
  const test = await openTestDatabase(conceptModel, { owners: [{ id: 'ada', name: 'Ada' }] });
  cleanups.push(() => test.close());
  const warnings: string[] = [];
  const log = { warn: (_: object, message: string) => void warnings.push(message), error: () => {} };
  const library = createLibrary({
    db: test.db,
    adapter: conceptModel,
    log,
    ...(similarityFloor === undefined ? {} : { similarityFloor }),
  });
  cleanups.push(() => library.close());
  for (const [title, text] of [
    ['Canopy', 'Kelp canopy returned to the southern coves after the storm.'],
    ['Grazers', 'Urchin density dropped below four animals per square metre.'],
  ])
    await library.add('ada', { title: title!, authors: [], source: 'text', pages: [text!] }, new Date());
  await library.indexer.idle();
  return { library, warnings };
}

describe('search with an embedding model the relevance set has not measured', () => {
  it('finds a passage by meaning alone from the similarity floor it is given (EMBEDDINGS_SIMILARITY_FLOOR)', async () => {
    const { library, warnings } = await conceptLibrary(0.5);
    // No document holds "seaweed" or "forests": the kelp passage is found by meaning alone.
    const hits = await library.search.search('ada', 'seaweed forests', 10);
    expect(hits.map((h) => h.title)).toEqual(['Canopy']);
    expect(hits[0]).toMatchObject({ terms: [] });
    // Its score counts the words only, which it does not hold: the similarity was never measured.
    expect(hits[0]!.score).toBe(hitScore(WORDS_ONLY_CALIBRATION, 0, 1));
    // A question about nothing in the library stays under the floor, and finds nothing.
    expect(await library.search.search('ada', 'how do I bake sourdough bread at home', 10)).toEqual([]);
    // Words still find what they hold, with the floor or without it.
    expect((await library.search.search('ada', 'urchin density', 10)).map((h) => h.title)).toEqual([
      'Grazers',
    ]);
    expect(warnings).toEqual([]);
  });

  it('without a floor finds passages by their words only, and says at start how to find them by meaning', async () => {
    const { library, warnings } = await conceptLibrary();
    expect(await library.search.search('ada', 'seaweed forests', 10)).toEqual([]);
    expect((await library.search.search('ada', 'urchin density', 10)).map((h) => h.title)).toEqual([
      'Grazers',
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('concepts-test:4');
    expect(warnings[0]).toContain('set EMBEDDINGS_SIMILARITY_FLOOR');
    expect(warnings[0]).toContain('--only=relevance');
  });

  it('keeps a measured floor: the one given is for a model without one', () => {
    const local = createLocalEmbeddingAdapter().id;
    expect(searchCalibration(local, 0.1)).toEqual({
      calibration: LOCAL_CALIBRATION,
      warning: expect.stringContaining('EMBEDDINGS_SIMILARITY_FLOOR (0.1) is not used'),
    });
    expect(searchCalibration(local)).toEqual({ calibration: LOCAL_CALIBRATION, warning: null });
    expect(searchCalibration('concepts-test:4', 0.5)).toEqual({
      calibration: { ...WORDS_ONLY_CALIBRATION, floor: 0.5 },
      warning: null,
    });
  });
});
