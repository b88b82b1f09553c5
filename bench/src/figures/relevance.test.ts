import { describe, expect, it } from 'vitest';
import { configuredModel, floorAbove } from './relevance.ts';

describe('the relevance figure measures the embedding model the API would open', () => {
  it('local hashing by default, sized by EMBEDDINGS_DIMENSIONS; the cloud model with EMBEDDINGS_URL', () => {
    expect(configuredModel({}).adapter.id).toBe('local-hash-v1:256');
    expect(configuredModel({ EMBEDDINGS_DIMENSIONS: '128' }).adapter.id).toBe('local-hash-v1:128');
    const cloud = configuredModel({
      EMBEDDINGS_URL: 'http://127.0.0.1:9/v1',
      EMBEDDINGS_MODEL: 'small',
      EMBEDDINGS_DIMENSIONS: '64',
    }).adapter;
    expect(cloud.id).toContain('small');
    expect(cloud.dimensions).toBe(64);
  });

  it('takes EMBEDDINGS_SIMILARITY_FLOOR as the API does, and refuses what the API refuses', () => {
    expect(configuredModel({}).floor).toBeUndefined();
    expect(configuredModel({ EMBEDDINGS_SIMILARITY_FLOOR: ' 0.42 ' }).floor).toBe(0.42);
    for (const v of ['1.5', '-0.1', 'high'])
      expect(() => configuredModel({ EMBEDDINGS_SIMILARITY_FLOOR: v })).toThrow(
        `EMBEDDINGS_SIMILARITY_FLOOR: expected a number 0..1, got "${v}"`,
      );
  });

  it('puts the floor at the lowest hundredth above the highest similarity of a query about nothing', () => {
    expect(floorAbove(0.2483)).toBe(0.25);
    expect(floorAbove(0.25)).toBe(0.26);
    expect(floorAbove(0)).toBe(0.01);
  });
});
