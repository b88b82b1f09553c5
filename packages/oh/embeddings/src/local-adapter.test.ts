import { describe, expect, it } from 'vitest';
import { createLocalEmbeddingAdapter, embedLocal, stem, tokenize } from './local-adapter.ts';
import { EmbeddingError } from './adapter.ts';

const cos = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array): number => Math.sqrt(cos(a, a));

describe('local embedding adapter', () => {
  it('is deterministic across calls and instances', async () => {
    const texts = ['Coral bleaching on the northern reefs', 'Manta tow survey method', ''];
    const a = await createLocalEmbeddingAdapter().embed(texts);
    const b = await createLocalEmbeddingAdapter({ dimensions: 256 }).embed(texts);
    expect(a.map((v) => Array.from(v))).toEqual(b.map((v) => Array.from(v)));
    // A fixed fingerprint: changing features or hashing must bump LOCAL_EMBEDDING_VERSION.
    const v = embedLocal('Coral bleaching on the northern reefs', 256);
    const top = Array.from(v)
      .map((x, i) => [i, x] as const)
      .sort((p, q) => Math.abs(q[1]) - Math.abs(p[1]) || p[0] - q[0])
      .slice(0, 3)
      .map(([i]) => i);
    expect(top).toEqual([129, 33, 109]);
  });

  it('returns L2-normalised vectors of the configured dimension, zero for text without words', async () => {
    const adapter = createLocalEmbeddingAdapter({ dimensions: 96 });
    expect(adapter.dimensions).toBe(96);
    expect(adapter.id).toBe('local-hash-v1:96');
    const [v, empty, punct] = await adapter.embed([
      'Sea surface temperature, NOAA 5 km product',
      '',
      '!!! ...',
    ]);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v!.length).toBe(96);
    expect(norm(v!)).toBeCloseTo(1, 5);
    expect(Array.from(empty!).every((x) => x === 0)).toBe(true);
    expect(Array.from(punct!).every((x) => x === 0)).toBe(true);
  });

  it('puts similar texts closer than unrelated ones', async () => {
    const [a, b, c, d] = await createLocalEmbeddingAdapter().embed([
      'Mass coral bleaching hit the northern Great Barrier Reef in 2016',
      'corals bleached across the northern reef during 2016',
      'Bootstrap confidence intervals for regional means',
      'the confidence interval was computed by bootstrapping',
    ]);
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!) + 0.2);
    expect(cos(c!, d!)).toBeGreaterThan(cos(b!, d!) + 0.2);
    expect(cos(a!, a!)).toBeCloseTo(1, 5);
  });

  it('folds case and accents and lightly stems', () => {
    expect(tokenize('Récifs CORALLIENS, 2016!')).toEqual(['recifs', 'coralliens', '2016']);
    expect(stem('corals')).toBe('coral');
    expect(stem('bleaching')).toBe('bleach');
    expect(stem('bleached')).toBe('bleach');
    expect(stem('modelled')).toBe('model');
    expect(stem('species')).toBe('specy'); // crude, but the same on both sides
    expect(stem('2016s')).toBe('2016s');
    expect(cos(embedLocal('CORAL Réefs', 64), embedLocal('coral reefs', 64))).toBeCloseTo(1, 5);
    expect(cos(embedLocal('coral reefs', 64), embedLocal('coral reef', 64))).toBeGreaterThan(0.8);
  });

  it('refuses a bad dimension', () => {
    expect(() => createLocalEmbeddingAdapter({ dimensions: 0 })).toThrow(EmbeddingError);
    expect(() => createLocalEmbeddingAdapter({ dimensions: 1.5 })).toThrow(/dimensions/);
    expect(() => createLocalEmbeddingAdapter({ dimensions: 70_000 })).toThrow(/65536/);
  });
});
