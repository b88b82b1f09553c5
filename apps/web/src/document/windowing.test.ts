import { describe, expect, it } from 'vitest';
import { blocksOf, type Block } from './blocks.ts';
import { DEFAULT_METRICS, estimateHeight, scrollCorrection, selectionBlocks } from './windowing.ts';

const block = (chars: number, opensPage = true): Block => ({
  page: 1,
  start: 0,
  end: chars,
  opensPage,
  continues: false,
});

describe('estimateHeight', () => {
  it('grows with the text, and a page marker only where a page opens', () => {
    const short = estimateHeight(block(500), DEFAULT_METRICS, true);
    const long = estimateHeight(block(5_000), DEFAULT_METRICS, true);
    expect(long).toBeGreaterThan(5 * short);
    expect(estimateHeight(block(500, false), DEFAULT_METRICS, true)).toBe(
      short - DEFAULT_METRICS.markerHeight,
    );
    expect(estimateHeight(block(500), DEFAULT_METRICS, false)).toBe(short - DEFAULT_METRICS.markerHeight);
  });
  it('takes a narrower column for more lines', () => {
    const narrow = { ...DEFAULT_METRICS, lineWidth: DEFAULT_METRICS.lineWidth / 2 };
    expect(estimateHeight(block(5_000), narrow, false)).toBeGreaterThan(
      1.8 * estimateHeight(block(5_000), DEFAULT_METRICS, false),
    );
  });
});

describe('scrollCorrection', () => {
  it('scrolls by the change of a block wholly above the viewport', () => {
    expect(scrollCorrection([{ index: 3, top: -900, before: 300, after: 500 }])).toBe(200);
    expect(scrollCorrection([{ index: 3, top: -900, before: 700, after: 400 }])).toBe(-300);
    // Ending right at the top of the viewport is above it.
    expect(scrollCorrection([{ index: 3, top: -300, before: 300, after: 350 }])).toBe(50);
  });
  it('leaves a block reaching into view, or below it, alone: it grows below what is read', () => {
    expect(scrollCorrection([{ index: 3, top: -100, before: 300, after: 500 }])).toBe(0);
    expect(scrollCorrection([{ index: 9, top: 400, before: 300, after: 500 }])).toBe(0);
  });
  it('judges each block where it was before the changes above it moved it', () => {
    // Block 2, wholly above, grew by 400. Block 5, now at -50 with 200 of height, reaches into view
    // now, but was at -450 before block 2 grew, wholly above the viewport: it counts too.
    const changes = [
      { index: 5, top: -50, before: 200, after: 250 },
      { index: 2, top: -900, before: 400, after: 800 },
    ];
    expect(scrollCorrection(changes)).toBe(450);
    // A block wholly in view whose change is after one above: not counted.
    expect(
      scrollCorrection([
        { index: 2, top: -900, before: 400, after: 800 },
        { index: 6, top: 600, before: 200, after: 250 },
      ]),
    ).toBe(400);
  });
  it('is nothing for no change', () => {
    expect(scrollCorrection([])).toBe(0);
  });
});

describe('selectionBlocks', () => {
  const blocks = blocksOf('word '.repeat(20_000), null, 1_000);
  it('keeps every block between the ends of a selection drawn, in either direction', () => {
    expect(selectionBlocks(blocks, 4, 2, 20_000)).toEqual([2, 3, 4]);
    expect(selectionBlocks(blocks, 2, 4, 20_000)).toEqual([2, 3, 4]);
    expect(selectionBlocks(blocks, 7, 7, 20_000)).toEqual([7]);
  });
  it('past the limit, draws from its start until over the limit, and its last block', () => {
    const drawn = selectionBlocks(blocks, 0, 90, 5_000);
    expect(drawn.at(-1)).toBe(90);
    const head = drawn.slice(0, -1);
    expect(head[0]).toBe(0);
    expect(blocks[head.at(-1)!]!.end - blocks[0]!.start).toBeGreaterThan(5_000);
    expect(head.length).toBeLessThan(15);
  });
});
