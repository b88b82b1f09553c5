// The document page shows a long text a few blocks at a time (windowed-text.tsx): a block is a
// page, or a stretch of a page short enough to render at once. A 2,000-page PDF is 2,000 blocks;
// a pasted text of 2,000,000 characters, one page, is some 250. Blocks are cut by offset, so
// nothing but the blocks on screen is ever split into paragraphs or turned into elements.
import { pageCuts } from './pages.ts';

/** A stretch of the text rendered as one piece: `text.slice(start, end)`, on page `page`. */
export interface Block {
  page: number;
  start: number;
  end: number;
  /** The first block of its page: it carries the page's marker. */
  opensPage: boolean;
  /** It starts inside a paragraph the block before began: one too long for a block was cut. */
  continues: boolean;
}

/** About this many characters a block: a few screens of text, a few milliseconds to render. */
const BLOCK_CHARS = 8_000;

/**
 * The blocks of `text`: one per page (cut at `pageStarts`, as `pagesOf` cuts pages), and a page
 * longer than `maxChars` cut into blocks of `maxChars / 2` to `maxChars` characters — at a
 * paragraph break where the stretch has one, else at a line break, else between words, else
 * anywhere but inside a character. Together they hold every character of the text, in order.
 */
export function blocksOf(
  text: string,
  pageStarts: readonly number[] | null | undefined,
  maxChars = BLOCK_CHARS,
): Block[] {
  const blocks: Block[] = [];
  for (const page of pageCuts(text.length, pageStarts)) {
    let start = page.start;
    let continues = false;
    while (page.end - start > maxChars) {
      const cut = cutBetween(text, start + Math.ceil(maxChars / 2), start + maxChars);
      blocks.push({ page: page.number, start, end: cut.at, opensPage: start === page.start, continues });
      continues = !cut.atParagraph;
      start = cut.at;
    }
    blocks.push({ page: page.number, start, end: page.end, opensPage: start === page.start, continues });
  }
  return blocks;
}

/** Where to end a block that must end between `from` and `to` (after `from`, not after `to`). */
function cutBetween(text: string, from: number, to: number): { at: number; atParagraph: boolean } {
  const paragraph = lastBlankLineEnd(text, from, to);
  if (paragraph !== null) return { at: paragraph, atParagraph: true };
  for (const gap of ['\n', ' ']) {
    const at = text.lastIndexOf(gap, to - 1);
    if (at >= from) return { at: at + 1, atParagraph: false };
  }
  // No space in thousands of characters: not between a surrogate pair or a letter and its marks.
  let at = to;
  while (at < text.length && (isLowSurrogate(text.charCodeAt(at)) || /\p{M}/u.test(text[at]!))) at++;
  return { at, atParagraph: false };
}

/** Just past the last blank line (a line of only spaces counts) ending in [from, to], or null. */
function lastBlankLineEnd(text: string, from: number, to: number): number | null {
  let found: number | null = null;
  for (let i = text.indexOf('\n', from - 1); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) {
    let j = i + 1;
    while (j < to && (text[j] === ' ' || text[j] === '\t' || text[j] === '\r')) j++;
    if (j < to && text[j] === '\n' && j + 1 >= from) found = j + 1;
  }
  return found;
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The index of the block holding character `offset` (the last one, at the very end). */
export function blockAt(blocks: readonly Block[], offset: number): number {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (blocks[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
