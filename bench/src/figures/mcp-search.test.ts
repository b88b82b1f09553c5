import { describe, expect, it } from 'vitest';
import { syntheticText } from './mcp-search.ts';

describe('syntheticText', () => {
  it('writes the same document for the same seed, and another for another seed', () => {
    expect(syntheticText(3, 4)).toBe(syntheticText(3, 4));
    expect(syntheticText(3, 4)).not.toBe(syntheticText(4, 4));
  });

  it('writes the paragraphs asked for, in words every query of the figure uses', () => {
    const text = syntheticText(1, 12);
    expect(text.split('\n\n')).toHaveLength(12);
    for (const word of ['coral', 'grazing', 'larvae', 'heatwave']) expect(text).toContain(word);
  });
});
