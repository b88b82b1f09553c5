import { describe, expect, it } from 'vitest';
import { apiStartFlags } from './http.ts';

describe('startApi', () => {
  it("starts the API with the flags of its own start script (the young generation's bound)", () => {
    expect(apiStartFlags()).toEqual(['--max-semi-space-size=16']);
  });
});
