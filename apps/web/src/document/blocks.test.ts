import { describe, expect, it } from 'vitest';
import { blockAt, blocksOf, type Block } from './blocks.ts';
import { joined } from './testing/joined-pages.ts';

/** Every character of the text in exactly one block, in order. */
function expectTiled(text: string, blocks: Block[]) {
  expect(blocks[0]?.start).toBe(0);
  expect(blocks.at(-1)?.end).toBe(text.length);
  blocks.slice(1).forEach((b, i) => expect(b.start).toBe(blocks[i]!.end));
  expect(blocks.map((b) => text.slice(b.start, b.end)).join('')).toBe(text);
}

describe('blocksOf', () => {
  it('is a block a page, each opening its page, for pages of ordinary length', () => {
    const { text, pageStarts } = joined(['One.', '', 'Three.\n\nStill three.']);
    const blocks = blocksOf(text, pageStarts, 100);
    expect(blocks.map((b) => [b.page, b.opensPage, b.continues])).toEqual([
      [1, true, false],
      [2, true, false],
      [3, true, false],
    ]);
    expectTiled(text, blocks);
  });

  it('cuts a long page at paragraph breaks into blocks of half to the whole of the size', () => {
    const paragraph = (n: number) => `Paragraph ${n} ${'word '.repeat(20)}`.trim();
    const text = Array.from({ length: 200 }, (_, i) => paragraph(i)).join('\n\n');
    const blocks = blocksOf(text, [0], 1_000);
    expectTiled(text, blocks);
    expect(blocks.length).toBeGreaterThan(text.length / 1_000);
    for (const b of blocks.slice(0, -1)) {
      expect(b.end - b.start).toBeGreaterThanOrEqual(500);
      expect(b.end - b.start).toBeLessThanOrEqual(1_000);
      // Each cut falls just after a blank line: no paragraph is split.
      expect(text.slice(b.end - 2, b.end)).toBe('\n\n');
      expect(b.page).toBe(1);
    }
    expect(blocks.filter((b) => b.opensPage)).toHaveLength(1);
    expect(blocks.some((b) => b.continues)).toBe(false);
  });

  it('cuts a paragraph too long for a block at a line break, else between words, and says it continues', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} of the one paragraph`).join('\n');
    const byLine = blocksOf(lines, null, 300);
    expectTiled(lines, byLine);
    expect(byLine.slice(0, -1).every((b) => lines[b.end - 1] === '\n')).toBe(true);
    expect(byLine.slice(1).every((b) => b.continues)).toBe(true);

    const words = 'word '.repeat(500);
    const byWord = blocksOf(words, null, 300);
    expectTiled(words, byWord);
    expect(byWord.slice(0, -1).every((b) => words[b.end - 1] === ' ')).toBe(true);
  });

  it('never cuts inside a character, even where a text has no space to cut at', () => {
    const text = '😀é\u0301'.repeat(400);
    const blocks = blocksOf(text, null, 301);
    expectTiled(text, blocks);
    for (const b of blocks.slice(1)) {
      expect(text.codePointAt(b.start)).not.toBe(undefined);
      expect(/^[\p{M}\uDC00-\uDFFF]/u.test(text.slice(b.start))).toBe(false);
    }
  });

  it('cuts a 2,000,000-character page into some 250 blocks', () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `Paragraph ${i}. ${'x'.repeat(985)}`).join('\n\n');
    const blocks = blocksOf(text, [0]);
    expectTiled(text, blocks);
    expect(blocks.length).toBeGreaterThan(240);
    expect(blocks.length).toBeLessThan(510);
  });
});

describe('blockAt', () => {
  it('finds the block holding an offset; a blank page holds none', () => {
    const { text, pageStarts } = joined(['One.', '', 'Three.']);
    const blocks = blocksOf(text, pageStarts);
    expect(blockAt(blocks, 0)).toBe(0);
    expect(blockAt(blocks, text.indexOf('Three'))).toBe(2);
    expect(blockAt(blocks, text.length - 1)).toBe(2);
    const many = blocksOf('a\n\n'.repeat(5_000), [0], 100);
    for (const offset of [0, 99, 100, 5_000, 14_999]) {
      const b = many[blockAt(many, offset)]!;
      expect(offset >= b.start && offset < b.end).toBe(true);
    }
  });
});
