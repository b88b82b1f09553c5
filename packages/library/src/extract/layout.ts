/**
 * Reading order for a PDF page (SPEC §6b), from pdf.js's text items and their positions.
 *
 * pdf.js gives text in the order the file draws it, which on a two-column article is often not
 * the order it is read, and running heads and page numbers land in the middle of sentences. Here:
 *
 * - Columns: the page's gutter is found as the widest vertical strip in the middle half of the text
 *   that (almost) no item crosses, with enough lines on each side. Lines that cross it (a title, an
 *   abstract or a figure set across both columns) cut the page into bands; each band reads its left
 *   column, then its right one. One gutter per page: three columns read as two (the limit). Only
 *   where the ink lies counts, never the order the file draws it in: a page that some PDF printers
 *   draw row by row across both columns reads the same as one drawn column by column.
 * - Running heads and footers: the page's top and bottom lines, when a gap wider than the body's
 *   line spacing sets them apart, are kept aside (`head`, `foot`). assemblePages drops them when
 *   they are a page number ("12", "- 12 -", "Page 12", "12 of 30", "xii"), when the same line (its
 *   digits aside) is a head or foot of another page, or when a short one holds its own page's number;
 *   otherwise they go back as a paragraph of their own, so they never sit inside a sentence.
 * - A sentence that a page break cuts is finished on the page where it starts: the next page's text
 *   up to its first sentence end moves up (pages are cited by where a passage starts).
 * - Hyphens at line ends (see `joinHyphens` for the rule and its limits).
 * - Paragraphs: a blank line where a line is indented from its column's edge, or where the gap
 *   above it is wider than 1.5 line spacings; so the chunker cuts at paragraphs.
 * - Vertical writing (pdf.js dir "ttb"): each column of glyphs is a line, read right to left.
 *   Right-to-left lines (dir "rtl") order their items from the right.
 *
 * Not handled: footnotes (they read where they are, at a column's foot), tables, text rotated on
 * the page (read after the rest), and a column order that is not left then right.
 *
 * Loaded by the PDF thread with Node's type stripping: erasable TypeScript only.
 */

/** The fields of a pdf.js TextItem that reading order needs. */
export interface LayoutItem {
  str: string;
  /** [a, b, c, d, e, f]: e, f is the baseline's start; |d| (or |c|) the font size. */
  transform: number[];
  width: number;
  height: number;
  dir: string;
}

export interface PageText {
  /** The top line, when set apart from the body by a gap: maybe a running head. */
  head: string | null;
  /** The bottom line, likewise: maybe a footer or a page number. */
  foot: string | null;
  /** The body's paragraphs in reading order, each its lines joined by "\n". */
  paragraphs: string[];
  /** False when the body's first line continues a paragraph from the page before. */
  opensParagraph: boolean;
}

interface Box {
  str: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  dir: string;
}

interface Line {
  boxes: Box[];
  x0: number;
  x1: number;
  y: number;
  size: number;
}

// Chinese and Japanese are written without spaces between words: a gap pdf.js reads between two of
// their characters is the layout's, not the text's. Korean puts spaces between words, so Hangul
// keeps its spaces (it is CJK for how sentences run on across a page, below).
const UNSPACED = '\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\u3000-\\u303f\\uff00-\\uffef';
const CJK = `${UNSPACED}\\p{scx=Hangul}`;
const SPACE_IN_CJK = new RegExp(`(?<=[${UNSPACED}])[ \\t]+(?=[${UNSPACED}])`, 'gu');

/** The page's text in reading order, with its possible running head and footer kept apart. */
export function layoutPage(items: readonly LayoutItem[]): PageText {
  const boxes: Box[] = [];
  const vertical: Box[] = [];
  const rotated: Box[] = [];
  for (const item of items) {
    if (item.str === '') continue;
    const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = item.transform;
    const size = Math.hypot(c, d) || item.height || 1;
    const box = { str: item.str, x0: e, x1: e + item.width, y: f, size, dir: item.dir };
    if (item.dir === 'ttb') vertical.push(box);
    else if (Math.abs(b) > 0.01 * Math.abs(a) || a <= 0) rotated.push(box);
    else boxes.push(box);
  }

  const all = buildLines(boxes);
  const spacing = lineSpacing(all);
  let head: string | null = null;
  let foot: string | null = null;
  // A single line is the page's text, not a head or a foot.
  if (all.length >= 3) {
    if (all[0]!.y - all[1]!.y > 1.5 * spacing) head = lineText(all.shift()!);
    if (all.at(-2)!.y - all.at(-1)!.y > 1.5 * spacing) foot = lineText(all.pop()!);
  }
  const body = all.flatMap((line) => line.boxes);

  const paragraphs: string[][] = [];
  let opensParagraph = true;
  let last: Line | null = null;
  // Lines in reading order, with a blank line where a paragraph starts: where a line is indented
  // from its column's edge (and the line before it was not, as in a centred block), or where the
  // gap above it is wider than 1.5 line spacings. A column's first line, up at the top again,
  // continues the paragraph the column before ended with unless it is indented.
  const flow = (lines: Line[]) => {
    const left = commonLeft(lines);
    for (const line of lines) {
      const text = lineText(line);
      if (text === '') continue;
      const indented = line.x0 > left + 0.8 * line.size;
      const gap = last ? last.y - line.y : 0;
      const starts =
        paragraphs.length === 0 ||
        gap > 1.5 * spacing ||
        (indented && !(last && gap > 0 && Math.abs(last.x0 - line.x0) < 1));
      if (paragraphs.length === 0) opensParagraph = indented;
      if (starts) paragraphs.push([]);
      paragraphs.at(-1)!.push(text);
      last = line;
    }
  };
  for (const band of bands(body, spacing)) {
    if (band.across) flow(band.lines);
    else for (const column of band.columns) flow(column);
  }
  if (vertical.length > 0) paragraphs.push(verticalLines(vertical).filter((t) => t !== ''));
  if (rotated.length > 0)
    paragraphs.push(
      buildLines(rotated)
        .map(lineText)
        .filter((t) => t !== ''),
    );
  return {
    head,
    foot,
    paragraphs: paragraphs.filter((p) => p.length > 0).map((p) => p.join('\n')),
    opensParagraph,
  };
}

/** Boxes grouped into lines by baseline, top to bottom; a line's boxes left to right. */
function buildLines(boxes: Box[]): Line[] {
  const sorted = [...boxes].sort((p, q) => q.y - p.y || p.x0 - q.x0);
  const lines: Line[] = [];
  for (const box of sorted) {
    const line = lines.at(-1);
    // Superscripts and subscripts sit within half a size of the baseline and join its line.
    if (line && Math.abs(line.y - box.y) < 0.5 * Math.min(line.size, box.size)) {
      line.boxes.push(box);
      line.x0 = Math.min(line.x0, box.x0);
      line.x1 = Math.max(line.x1, box.x1);
      if (/\S/.test(box.str)) line.size = Math.max(line.size, box.size);
    } else lines.push({ boxes: [box], x0: box.x0, x1: box.x1, y: box.y, size: box.size });
  }
  for (const line of lines) {
    const rtl = line.boxes.filter((b) => b.dir === 'rtl').length * 2 > line.boxes.length;
    line.boxes.sort((p, q) => (rtl ? q.x0 - p.x0 : p.x0 - q.x0));
  }
  return lines;
}

/** A line's text: its boxes in order, a space where a gap parts two of them. */
function lineText(line: Line): string {
  let text = '';
  let end = -Infinity;
  for (const box of line.boxes) {
    const gap = Math.abs(box.x0 - end);
    if (text !== '' && !/\s$/.test(text) && !/^\s/.test(box.str) && gap > 0.15 * line.size && box.x0 > end)
      text += ' ';
    text += box.str;
    end = box.x1;
  }
  return text.replace(/\s+/g, ' ').trim().replace(SPACE_IN_CJK, '');
}

/**
 * The most common distance between consecutive baselines, the smallest of equally common ones (a
 * line height when there is one line).
 */
function lineSpacing(lines: Line[]): number {
  const gaps = lines
    .slice(1)
    .map((line, i) => Math.round(lines[i]!.y - line.y))
    .filter((g) => g > 0);
  if (gaps.length === 0) return lines[0] ? lines[0].size * 1.2 : 12;
  const counts = new Map<number, number>();
  for (const g of gaps) counts.set(g, (counts.get(g) ?? 0) + 1);
  let best = Infinity;
  let most = 0;
  for (const [g, n] of counts) if (n > most || (n === most && g < best)) [best, most] = [g, n];
  return best;
}

function median(values: number[]): number {
  const sorted = [...values].sort((p, q) => p - q);
  // The lower middle: of two gaps, a line's spacing rather than the gap to a footer.
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

/** The left edge most lines start at (the column's edge; indented lines start right of it). */
function commonLeft(lines: Line[]): number {
  const counts = new Map<number, number>();
  for (const line of lines) counts.set(Math.round(line.x0), (counts.get(Math.round(line.x0)) ?? 0) + 1);
  let best = Infinity;
  let most = 0;
  for (const [x, n] of counts) if (n > most || (n === most && x < best)) [best, most] = [x, n];
  return best;
}

type Band = { across: true; lines: Line[] } | { across: false; columns: Line[][] };

const INK = /\S/;

/**
 * The page cut into bands: lines across the gutter, and between them the two columns' lines. A
 * page without a gutter is one band of one column.
 *
 * Only ink decides a line's side, never the order the page is drawn in. A printer that draws a
 * two-column page row by row (left line 1, right line 1, left line 2, …) jumps across the gutter
 * in the middle of each row, and pdf.js reports that jump as a space spanning the gutter: such
 * whitespace belongs to neither column and is dropped.
 */
function bands(boxes: Box[], spacing: number): Band[] {
  const gutter = findGutter(boxes);
  if (!gutter) return [{ across: false, columns: [buildLines(boxes)] }];
  const [g0, g1] = gutter;
  const isLeft = (b: Box) => b.x1 <= g0 + 0.5;
  const isRight = (b: Box) => b.x0 >= g1 - 0.5;
  const out: Band[] = [];
  let left: Line[] = [];
  let right: Line[] = [];
  // The last line set across the gutter, while nothing has been read beside it since.
  let lastAcross: Line | null = null;
  const flush = () => {
    if (left.length + right.length > 0)
      out.push({ across: false, columns: [left, right].filter((c) => c.length) });
    left = [];
    right = [];
  };
  for (const line of buildLines(boxes)) {
    const ink = line.boxes.filter((b) => INK.test(b.str));
    if (ink.length === 0) continue;
    const inLeft = ink.filter(isLeft).length;
    const inRight = ink.filter(isRight).length;
    // A line on the left only, next below a line across with nothing beside it, is that full-width
    // paragraph's short last line (an abstract's), not the column's: it stays in its paragraph.
    // (Were it the column's first line after all, it is read in the same order either way.)
    const ends: boolean = lastAcross !== null && inRight === 0 && lastAcross.y - line.y <= 1.5 * spacing;
    if (inLeft + inRight < ink.length || ends) {
      flush();
      const last = out.at(-1);
      if (last?.across) last.lines.push(line);
      else out.push({ across: true, lines: [line] });
      lastAcross = ends ? null : line;
      continue;
    }
    // The two columns' lines sharing a baseline (or lying within half a size of one) part here.
    if (inLeft > 0) left.push(...buildLines(line.boxes.filter(isLeft)));
    if (inRight > 0) right.push(...buildLines(line.boxes.filter(isRight)));
    lastAcross = null;
  }
  flush();
  return out;
}

/**
 * The gutter between two columns, [from, to] in x, or null. Scanned in the middle half of the
 * text's width, in steps of one unit: the widest run of positions crossed by the fewest boxes,
 * accepted when it is at least 0.4 em wide, at least three lines lie wholly on each side, and
 * fewer lines cross it than lie beside it.
 */
function findGutter(boxes: Box[]): [number, number] | null {
  const ink = boxes.filter((b) => /\S/.test(b.str) && b.x1 > b.x0);
  if (ink.length < 6) return null;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const b of ink) {
    minX = Math.min(minX, b.x0);
    maxX = Math.max(maxX, b.x1);
  }
  const size = median(ink.map((b) => b.size));
  const from = Math.floor(minX + 0.25 * (maxX - minX));
  const steps = Math.max(0, Math.ceil(0.5 * (maxX - minX)));
  // Text spread over more than a few pages' widths is not a page of columns (nor worth the scan).
  if (!(steps <= 10_000)) return null;
  // How many boxes cross each position (x = from + i), by differences: linear in the boxes.
  const delta = new Int32Array(steps + 2);
  for (const b of ink) {
    const first = Math.max(0, Math.floor(b.x0 - from) + 1);
    const last = Math.min(steps, Math.ceil(b.x1 - from) - 1);
    if (first > last) continue;
    delta[first]! += 1;
    delta[last + 1]! -= 1;
  }
  let best = Infinity;
  let run: [number, number] | null = null;
  let current: [number, number] | null = null;
  let crossing = 0;
  for (let i = 0; i <= steps; i++) {
    crossing += delta[i]!;
    const x = from + i;
    if (crossing < best) {
      best = crossing;
      current = [x, x];
      run = current;
    } else if (crossing === best) {
      if (current && current[1] === x - 1) current[1] = x;
      else current = [x, x];
      if (current[1] - current[0] > run![1] - run![0]) run = current;
    } else current = null;
  }
  if (!run) return null;
  const [r0, r1] = run;
  let g0 = minX;
  let g1 = maxX;
  for (const b of ink) {
    if (b.x1 <= r0 + 1) g0 = Math.max(g0, b.x1);
    if (b.x0 >= r1 - 1) g1 = Math.min(g1, b.x0);
  }
  if (g1 - g0 < 0.4 * size) return null;
  const lines = buildLines(ink);
  const leftLines = lines.filter((l) => l.x1 <= g0 + 0.5).length;
  const rightLines = lines.filter((l) => l.x0 >= g1 - 0.5).length;
  const splitLines = lines.filter(
    (l) => l.boxes.every((b) => b.x1 <= g0 + 0.5 || b.x0 >= g1 - 0.5) && l.x1 > g1 && l.x0 < g0,
  ).length;
  const across = lines.length - leftLines - rightLines - splitLines;
  const beside = leftLines + rightLines + 2 * splitLines;
  if (leftLines + splitLines < 3 || rightLines + splitLines < 3 || across >= beside) return null;
  return [g0, g1];
}

/** Vertical writing: a line per column of glyphs, columns right to left, each top to bottom. */
function verticalLines(boxes: Box[]): string[] {
  const columns: Box[][] = [];
  for (const box of [...boxes].sort((p, q) => q.x0 - p.x0)) {
    const column = columns.at(-1);
    if (column && Math.abs(column[0]!.x0 - box.x0) < 0.5 * box.size) column.push(box);
    else columns.push([box]);
  }
  return columns.map((column) =>
    column
      .sort((p, q) => q.y - p.y)
      .map((b) => b.str)
      .join('')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(SPACE_IN_CJK, ''),
  );
}

// ——— The document: running heads, page breaks, hyphens ———

const PAGE_NUMBER =
  /^(?:[-–—]\s*)?(?:page\s+|p\.\s*)?(?:\d{1,5}|[ivxlcdm]{1,7})(?:\s*(?:of|\/)\s*\d{1,5})?(?:\s*[-–—])?$/i;

/** The pages' texts: running heads and footers dropped, sentences kept whole, hyphens joined. */
export function assemblePages(pages: readonly PageText[]): string[] {
  const key = (line: string) => line.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
  const seen = new Map<string, number>();
  for (const page of pages)
    for (const line of [page.head, page.foot]) if (line) seen.set(key(line), (seen.get(key(line)) ?? 0) + 1);
  const running = (line: string, n: number) =>
    PAGE_NUMBER.test(line.trim()) ||
    (seen.get(key(line)) ?? 0) > 1 ||
    (line.split(/\s+/).length <= 10 && line.split(/[^\d]+/).includes(String(n)));

  const bodies = pages.map((page, i) => {
    const paragraphs = [...page.paragraphs];
    if (page.head && !running(page.head, i + 1)) paragraphs.unshift(page.head);
    if (page.foot && !running(page.foot, i + 1)) paragraphs.push(page.foot);
    const opens = page.head && paragraphs[0] === page.head ? true : page.opensParagraph;
    return { paragraphs, opens };
  });

  for (let i = 0; i + 1 < bodies.length; i++) {
    const here = bodies[i]!.paragraphs;
    const next = bodies[i + 1]!;
    if (here.length === 0 || next.opens || next.paragraphs.length === 0) continue;
    const first = next.paragraphs[0]!;
    if (!continues(here.at(-1)!, first)) continue;
    const end = sentenceEnd(first);
    // A page is never emptied: a page without text reads as a scan (and would go to OCR).
    if (end > MAX_CARRY || (next.paragraphs.length === 1 && !/\S/.test(first.slice(end)))) continue;
    here[here.length - 1] += `\n${first.slice(0, end).trimEnd()}`;
    const rest = first.slice(end).trimStart();
    if (rest) next.paragraphs[0] = rest;
    else next.paragraphs.shift();
  }

  const texts = bodies.map((b) => b.paragraphs.join('\n\n'));
  return joinHyphens(texts);
}

// A sentence's end more than this far into the next page is more likely a misreading.
const MAX_CARRY = 1_000;
const CJK_CHAR = new RegExp(`[${CJK}]`, 'u');

/**
 * Whether `after` (a page's first paragraph) continues the sentence `before` (the last paragraph
 * of the page before) ends in: `before` stops on a lower-case letter, a comma, a semicolon or a
 * hyphen, and `after` starts in lower case, with a digit or a bracket (or anything, after a comma,
 * semicolon or hyphen); in Chinese, Japanese or Korean, `before` ends on a character that is not
 * a sentence end and `after` starts with one. Pages of numbers, headings or lists stay as they are.
 */
function continues(before: string, after: string): boolean {
  const end = before.at(-1) ?? '';
  const start = after[0] ?? '';
  if (CJK_CHAR.test(end) && !/[。！？]/u.test(end)) return CJK_CHAR.test(start);
  if (/[,;\-–]/u.test(end)) return /\S/u.test(start);
  return /\p{Ll}/u.test(end) && /[\p{Ll}\d([“"‘']/u.test(start);
}

const ABBREVIATION = /\b(?:e\.g|i\.e|et al|cf|vs|ca|approx|fig|figs|eq|eqs|no|vol|pp|dr|mr|mrs|ms|st)\.$/i;

/** Where the text's first sentence ends (past its closing punctuation), or its length. */
function sentenceEnd(text: string): number {
  for (const m of text.matchAll(/[.!?。！？…]["'”’)\]]*(?=\s|$)|[。！？]/gu)) {
    const end = m.index + m[0].length;
    if (!ABBREVIATION.test(text.slice(Math.max(0, end - 8), end))) return end;
  }
  return text.length;
}

/**
 * A hyphen at a line end, followed on the next line by a word in lower case, is either the
 * typesetter's (the word was cut: "recov-\nery") or part of the word ("sea-\nsurface"). With no
 * dictionary, the document's own words decide, in this order:
 *  1. the joined word occurs elsewhere in the document ("recovery") → joined;
 *  2. the hyphenated word occurs elsewhere ("sea-surface") → the hyphen stays;
 *  3. both halves, of three letters or more, occur elsewhere as words of their own, or an ending
 *     (-s, -es, -ed, -er, -est, -ing, -ly) away from one ("deep" beside "deeper", "water") → the
 *     hyphen stays;
 *  4. otherwise → joined (a cut word's halves are rarely words: "recov", "ery").
 * The rest of the word moves up to the line where it starts. A soft hyphen (U+00AD) always joins;
 * a hyphen before a capital or a digit ("COVID-\n19") always stays.
 * Limits: a cut word whose halves are both words and which occurs nowhere else whole ("some-\n
 * thing") keeps its hyphen; a compound that occurs nowhere else and whose halves do not either
 * ("high-\nresolution" in a text without "high", "nineteen-\neighties") loses it. No dictionary is
 * shipped: the document is the only vocabulary at hand in every language it may be in.
 */
const ENDINGS = ['s', 'es', 'ed', 'er', 'est', 'ing', 'ly'];

export function joinHyphens(pages: readonly string[]): string[] {
  // The cut word's halves; the rest of the next line's first word (punctuation) and the space after.
  const CUT = /(\p{L}[\p{L}\p{M}]*)([-\u2010\u00ad])\n(\p{Ll}[\p{L}\p{M}]*)(\S*)( |(?=\n)|$)/gu;
  const words = new Set<string>();
  for (const page of pages) {
    const masked = page.replace(CUT, ' ');
    for (const m of masked.matchAll(/\p{L}[\p{L}\p{M}'’]*(?:-\p{L}[\p{L}\p{M}'’]*)*/gu)) {
      const word = m[0].toLowerCase();
      words.add(word);
      if (word.includes('-')) for (const part of word.split('-')) words.add(part);
    }
  }
  // A word of the document, or one an ending away from one ("deep" beside "deeper").
  const known = (word: string) =>
    words.has(word) ||
    ENDINGS.some((e) => words.has(word + e) || (word.endsWith(e) && words.has(word.slice(0, -e.length))));
  const joins = (left: string, hyphen: string, right: string) => {
    if (hyphen === '\u00ad') return true;
    const [l, r] = [left.toLowerCase(), right.toLowerCase()];
    if (words.has(l + r)) return true;
    if (words.has(`${l}-${r}`)) return false;
    return !(l.length >= 3 && r.length >= 3 && known(l) && known(r));
  };
  return pages.map((page) =>
    page.replace(CUT, (_, left: string, hyphen: string, right: string, after: string, space: string) => {
      const word = joins(left, hyphen, right) ? `${left}${right}` : `${left}${hyphen}${right}`;
      // The rest of the line stays on its line; a word that was the whole line leaves none.
      return `${word}${after}${space ? '\n' : ''}`;
    }),
  );
}
