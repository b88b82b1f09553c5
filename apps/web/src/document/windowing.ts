// What the windowed document text (windowed-text.tsx) decides without a browser: how tall a
// block not yet drawn is taken to be, which blocks a selection keeps drawn, and — for a browser
// without scroll anchoring — how far to scroll when blocks above the reader change height, so
// the line they are reading stays where it is.
import type { Block } from './blocks.ts';

/**
 * Up to this many characters a document is drawn whole, as before: the browser's Find in page and
 * a screen reader's reading see all of it, and it renders in some 100 ms. A longer one is drawn a
 * few screens at a time.
 */
export const WHOLE_TEXT_CHARS = 120_000;

/** The type as the document's text is set, measured on the page (or its CSS, before it is). */
export interface TextMetrics {
  /** Width of a line of text, in px (a paragraph's max-width when the column is wider). */
  lineWidth: number;
  fontSize: number;
  lineHeight: number;
  /** Space between paragraphs, in px. */
  paragraphGap: number;
  /** A page marker's height with its space, in px. */
  markerHeight: number;
}

/** 42rem lines of 16 px type, as styles.css sets the text on a wide screen. */
export const DEFAULT_METRICS: TextMetrics = {
  lineWidth: 672,
  fontSize: 16,
  lineHeight: 24,
  paragraphGap: 12.8,
  markerHeight: 30,
};

/** A typical paragraph's length, for the gaps of a block not yet split into paragraphs. */
const PARAGRAPH_CHARS = 700;
/** An average character of proportional type is about half an em wide. */
const EM_PER_CHAR = 0.5;

/**
 * How tall a block is taken to be before it is drawn: its lines at the measured width and type,
 * its paragraph gaps, its page marker. Only a guess — the scrollbar's length rests on it — since
 * a drawn block is measured, and scroll anchoring keeps the reader's place when a guess was off.
 */
export function estimateHeight(block: Block, metrics: TextMetrics, paged: boolean): number {
  const chars = block.end - block.start;
  const perLine = Math.max(1, Math.floor(metrics.lineWidth / (metrics.fontSize * EM_PER_CHAR)));
  const paragraphs = Math.max(1, Math.round(chars / PARAGRAPH_CHARS));
  const lines = Math.ceil(chars / perLine) + paragraphs - 1;
  const marker = paged && block.opensPage ? metrics.markerHeight : 0;
  return Math.round(marker + lines * metrics.lineHeight + (paragraphs - 1) * metrics.paragraphGap);
}

/** A block whose height changed since it was last measured, as seen now. */
export interface HeightChange {
  /** Its place in the text: blocks are laid out in this order. */
  index: number;
  /** Its top now, relative to the top of the viewport (px). */
  top: number;
  before: number;
  after: number;
}

/**
 * How far to scroll down (px) after blocks changed height, so that what the reader sees does not
 * move: the sum of the changes of the blocks that were wholly above the viewport. A block reaching
 * into view grows at its bottom, below what is read, and is left alone. Each block's place before
 * the changes is its place now less the changes of the blocks before it.
 *
 * @example scrollCorrection([{ index: 3, top: -900, before: 300, after: 500 }]) // 200
 */
export function scrollCorrection(changes: readonly HeightChange[]): number {
  let shifted = 0;
  let correction = 0;
  for (const change of [...changes].sort((a, b) => a.index - b.index)) {
    const delta = change.after - change.before;
    if (change.top - shifted + change.before <= 0) correction += delta;
    shifted += delta;
  }
  return correction;
}

/**
 * The blocks to keep drawn for a selection from block `a` to block `b` (either order): all of
 * them, so the selection holds the text between its ends and not only the page markers, up to
 * `maxChars` of text; past that, the blocks from its start until `maxChars` is passed, and its
 * last — enough for the selection to read as over the passage limit, which it is.
 *
 * @example selectionBlocks(blocks, 4, 2, 20_000) // [2, 3, 4]
 */
export function selectionBlocks(blocks: readonly Block[], a: number, b: number, maxChars: number): number[] {
  const first = Math.min(a, b);
  const last = Math.max(a, b);
  const drawn: number[] = [];
  for (let i = first; i <= last; i++) {
    drawn.push(i);
    if (i < last && blocks[i]!.end - blocks[first]!.start > maxChars) {
      drawn.push(last);
      break;
    }
  }
  return drawn;
}
