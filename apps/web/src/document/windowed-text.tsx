import { SPONGE_LIMITS } from '@sponge/contract';
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { RefObject } from 'react';
import { blockAt, blocksOf, type Block } from './blocks.ts';
import { PageHead, Paragraphs } from './document-text.tsx';
import { paragraphSpans } from './pages.ts';
import type { Span } from './quote.ts';
import {
  DEFAULT_METRICS,
  WHOLE_TEXT_CHARS,
  estimateHeight,
  scrollCorrection,
  selectionBlocks,
  type HeightChange,
  type TextMetrics,
} from './windowing.ts';

/** Blocks within a screen's height above or below the viewport are drawn, ready before they show. */
const NEAR = '100% 0px';
/** Until the observer has said what is in view, the blocks of the text's first screens are drawn. */
const FIRST_DRAWN_CHARS = 16_000;
/** A paragraph's widest, as styles.css sets it (`.doc-text p`). */
const PARAGRAPH_MAX_REM = 42;

/**
 * The document page's text, a few screens at a time (SPEC §6d: a text of 2,000,000 characters
 * opens at once). The text is cut into blocks (blocks.ts): every block is in the page, in order,
 * but only those near the viewport hold their paragraphs; the others keep their page marker and
 * the height they had when drawn, or an estimate. So:
 * - scrolling is the window's own (keyboard, scrollbar, Page Down), and a block drawn above the
 *   reader does not move the line being read: the browser's scroll anchoring keeps it in place,
 *   and where a browser has none (Safari), the page corrects the scroll itself;
 * - every page's "Page N" heading is always there: a screen reader's list of headings reaches
 *   every page and `#page-N` links scroll to any page, whose text is then drawn;
 * - the blocks of a cited quote and of a selection stay drawn wherever they are, so a passage can
 *   be selected across pages and cited;
 * - Find in page finds only the drawn text, which the page says. A text of up to
 *   `WHOLE_TEXT_CHARS` (most papers) is drawn whole, as before.
 */
export function WindowedText({
  text,
  source,
  pageStarts,
  ocrPages,
  highlight,
  reveal,
  visit,
  bodyRef,
}: {
  text: string;
  source: string;
  pageStarts: readonly number[] | null;
  /** Pages whose text OCR recognised from a scan: each says so, to be checked against the scan. */
  ocrPages: readonly number[] | null;
  /** A stretch of `text` to mark (a cited quote). */
  highlight: Span | null;
  /** What to bring into view: the marked quote, or a page's marker. */
  reveal: 'quote' | number | null;
  /** The visit (location key): the same link followed again scrolls again. */
  visit: string;
  bodyRef: RefObject<HTMLDivElement | null>;
}) {
  const paged = source === 'pdf';
  const blocks = useMemo(() => blocksOf(text, paged ? pageStarts : null), [text, paged, pageStarts]);
  const whole = text.length <= WHOLE_TEXT_CHARS;
  const ocr = useMemo(() => new Set(ocrPages ?? []), [ocrPages]);
  const metrics = useTextMetrics(bodyRef);
  const watcher = useMemo(() => (whole ? null : new BlockWatcher()), [whole]);
  useEffect(() => () => watcher?.disconnect(), [watcher]);
  const selected = useSelectedBlocks(bodyRef, blocks, whole);
  const measured = metrics !== null;
  // Before the first paint of the blocks, with every height as it will be laid out: a height
  // changed after the scroll, in the same frame, would move the passage out of view.
  useLayoutEffect(() => {
    if (!measured || reveal === null) return;
    if (reveal === 'quote')
      bodyRef.current?.querySelector('mark.quoted')?.scrollIntoView({ block: 'center' });
    else document.getElementById(`page-${reveal}`)?.scrollIntoView();
  }, [measured, reveal, visit, highlight, bodyRef]);
  const quoted = highlight && {
    first: blockAt(blocks, highlight.start),
    last: blockAt(blocks, highlight.end - 1),
  };
  return (
    <>
      {!whole && (
        <p className="muted small">
          A long document: the page holds the text near where you read, so Find in page looks only there; the
          library’s Search finds a passage anywhere in it.
        </p>
      )}
      <div className="doc-body" ref={bodyRef}>
        {/* Drawn once the column is measured, so no estimate changes after the first paint. */}
        {metrics !== null &&
          blocks.map((block, i) => {
            const inQuote = !!quoted && i >= quoted.first && i <= quoted.last;
            return (
              <BlockView
                // Blocks are cut anew with a new text: a block is its place.
                key={i}
                text={text}
                block={block}
                index={i}
                paged={paged}
                ocr={ocr.has(block.page)}
                highlight={inQuote ? highlight : null}
                drawn={whole || inQuote || selected.has(i)}
                watcher={watcher}
                estimate={estimateHeight(block, metrics, paged)}
              />
            );
          })}
      </div>
    </>
  );
}

const BlockView = memo(function BlockView({
  text,
  block,
  index,
  paged,
  ocr,
  highlight,
  drawn,
  watcher,
  estimate,
}: {
  text: string;
  block: Block;
  index: number;
  paged: boolean;
  ocr: boolean;
  highlight: Span | null;
  /** Drawn whatever is in view. */
  drawn: boolean;
  watcher: BlockWatcher | null;
  estimate: number;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(() => block.start < FIRST_DRAWN_CHARS);
  useLayoutEffect(
    () => (watcher && ref.current ? watcher.watch(ref.current, block, index, setNear) : undefined),
    [watcher, block, index],
  );
  const shown = drawn || near;
  const paragraphs = shown ? paragraphSpans(text.slice(block.start, block.end), block.start) : [];
  const marker = paged && block.opensPage;
  return (
    <div
      ref={ref}
      className={`doc-block${marker ? ' opens-page' : ''}${block.continues ? ' continues' : ''}`}
      data-block={index}
      data-page={block.page}
      style={shown ? undefined : { height: watcher?.heightOf(block) ?? estimate }}
    >
      {marker && <PageHead number={block.page} ocr={ocr} />}
      {shown && paragraphs.length > 0 && <Paragraphs paragraphs={paragraphs} highlight={highlight} />}
      {shown && paragraphs.length === 0 && marker && <p className="page-empty">This page has no text.</p>}
    </div>
  );
});

/**
 * Watches the blocks of one text: which are near the viewport (an IntersectionObserver), and how
 * tall each was when last seen (a ResizeObserver), which a block keeps when it is no longer drawn.
 * Scroll anchoring (CSS) keeps the reader's place when blocks above change height, whatever made
 * them change — a block drawn, an estimate replaced, the column resized — since it takes the place
 * before each layout. A browser without it gets the correction of the changes this watcher sees.
 */
class BlockWatcher {
  private readonly corrects = typeof CSS !== 'undefined' && !CSS.supports('overflow-anchor', 'auto');
  private near: IntersectionObserver | null = null;
  private sizes: ResizeObserver | null = null;
  private readonly onNear = new Map<Element, (near: boolean) => void>();
  private readonly blockOf = new Map<Element, { block: Block; index: number }>();
  /** By block: a new text's blocks start with none. */
  private readonly heights = new WeakMap<Block, number>();

  watch(element: Element, block: Block, index: number, onNear: (near: boolean) => void): () => void {
    this.onNear.set(element, onNear);
    this.blockOf.set(element, { block, index });
    this.near ??= new IntersectionObserver(
      (entries) => {
        for (const entry of entries) this.onNear.get(entry.target)?.(entry.isIntersecting);
      },
      { rootMargin: NEAR },
    );
    this.sizes ??= new ResizeObserver((entries) => this.resized(entries));
    this.near.observe(element);
    this.sizes.observe(element);
    return () => {
      this.near?.unobserve(element);
      this.sizes?.unobserve(element);
      this.onNear.delete(element);
      this.blockOf.delete(element);
    };
  }

  /** The block's height when last seen, drawn or not. */
  heightOf(block: Block): number | undefined {
    return this.heights.get(block);
  }

  disconnect(): void {
    this.near?.disconnect();
    this.sizes?.disconnect();
    this.near = null;
    this.sizes = null;
  }

  private resized(entries: ResizeObserverEntry[]): void {
    const changes: HeightChange[] = [];
    for (const entry of entries) {
      const watched = this.blockOf.get(entry.target);
      if (!watched) continue;
      const { block, index } = watched;
      const after = entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height;
      const before = this.heights.get(block);
      this.heights.set(block, after);
      if (this.corrects && before !== undefined && before !== after) {
        changes.push({ index, top: entry.target.getBoundingClientRect().top, before, after });
      }
    }
    const by = this.corrects ? scrollCorrection(changes) : 0;
    if (by !== 0) window.scrollBy(0, by);
  }
}

/**
 * The width and type of the text as laid out, for the estimates of blocks not yet drawn: null
 * until the (empty) text column has been measured, before anything is painted.
 */
function useTextMetrics(bodyRef: RefObject<HTMLElement | null>): TextMetrics | null {
  const [metrics, setMetrics] = useState<TextMetrics | null>(null);
  useLayoutEffect(() => {
    const measure = () => {
      const body = bodyRef.current;
      if (!body) return;
      const style = getComputedStyle(body);
      const fontSize = parseFloat(style.fontSize) || DEFAULT_METRICS.fontSize;
      const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || fontSize;
      const next: TextMetrics = {
        lineWidth: Math.min(body.clientWidth || DEFAULT_METRICS.lineWidth, PARAGRAPH_MAX_REM * rem),
        fontSize,
        lineHeight: parseFloat(style.lineHeight) || 1.5 * fontSize,
        paragraphGap: 0.8 * rem,
        markerHeight: DEFAULT_METRICS.markerHeight,
      };
      setMetrics((old) =>
        old && (Object.keys(next) as Array<keyof TextMetrics>).every((k) => old[k] === next[k]) ? old : next,
      );
    };
    measure();
    addEventListener('resize', measure);
    return () => removeEventListener('resize', measure);
  }, [bodyRef]);
  return metrics;
}

/** The blocks a selection in the text touches (`selectionBlocks`), kept drawn while it lasts. */
function useSelectedBlocks(
  bodyRef: RefObject<HTMLElement | null>,
  blocks: readonly Block[],
  whole: boolean,
): ReadonlySet<number> {
  const [selected, setSelected] = useState<ReadonlySet<number>>(() => new Set());
  useEffect(() => {
    if (whole) return;
    const onChange = () => {
      const sel = document.getSelection();
      const a = sel && !sel.isCollapsed ? blockOf(bodyRef.current, sel.anchorNode) : null;
      const b = sel && !sel.isCollapsed ? blockOf(bodyRef.current, sel.focusNode) : null;
      const next =
        a === null || b === null ? [] : selectionBlocks(blocks, a, b, 2 * SPONGE_LIMITS.passageChars);
      setSelected((old) => (old.size === next.length && next.every((i) => old.has(i)) ? old : new Set(next)));
    };
    document.addEventListener('selectionchange', onChange);
    return () => document.removeEventListener('selectionchange', onChange);
  }, [bodyRef, blocks, whole]);
  return selected;
}

/** The index of the block of the text holding `node`, or null outside the text. */
function blockOf(body: HTMLElement | null, node: Node | null): number | null {
  const element = node instanceof Element ? node : node?.parentElement;
  const block = element?.closest<HTMLElement>('[data-block]');
  return block && body?.contains(block) ? Number(block.dataset.block) : null;
}
