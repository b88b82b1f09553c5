/**
 * Finding a cited quote in a document's text, to highlight it (`/documents/:id?page=4&quote=…`).
 * The same judgement as the server's when it verified the citation (`quoteOnPage`,
 * packages/library/src/documents/quotes.ts): on the cited page or the page before or after it,
 * over page breaks, compatibility forms folded (ligatures), case ignored, any run of whitespace as
 * one space. Unlike the server this also says where, in the text as stored, so the highlight
 * covers exactly what the quote matched.
 */

/** A stretch of the document's text: `text.slice(start, end)`. */
export interface Span {
  start: number;
  end: number;
}

/** Text as a quote is compared, with where each compared character came from in the original. */
interface Folded {
  text: string;
  /** For each character of `text`: the original offset of the character (cluster) it folds from. */
  from: number[];
  /** ... and the offset just past that cluster. */
  to: number[];
}

/** Folded text, and the stretch of the original that `length` folded characters at `at` fold from. */
interface FoldedText {
  text: string;
  spanOf(at: number, length: number): Span;
}

// A character with the combining marks after it: folded together, as NFKC composes them.
const CLUSTER = /\P{M}\p{M}*|\p{M}+/suy;
/** Below this code no character is a combining mark: what precedes it needs no composing. */
const FIRST_MARK = 0x300;

/**
 * Folds `text` (which starts at `offset` of the whole text) in one pass, in time linear in its
 * length: a 2,000,000-character page takes tens of milliseconds. Plain ASCII — nearly all of most
 * texts — is folded by its code; anything else cluster by cluster, through NFKC.
 */
function fold(text: string, offset = 0): Folded {
  const chars: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const push = (c: string, start: number, end: number) => {
    // A run of whitespace is one space, however it was spaced: the run's space reaches further.
    if (c === ' ' && chars[chars.length - 1] === ' ') {
      to[to.length - 1] = end;
      return;
    }
    chars.push(c);
    from.push(start);
    to.push(end);
  };
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    if (code < 0x80 && next < FIRST_MARK) {
      const start = offset + i;
      push(asciiFold(code), start, start + 1);
      i++;
      continue;
    }
    CLUSTER.lastIndex = i;
    const cluster = CLUSTER.exec(text)![0];
    const start = offset + i;
    const end = start + cluster.length;
    // A character that folds to several (ﬁ → fi) maps each of them to the whole of it.
    for (const c of cluster.normalize('NFKC').toLowerCase()) {
      if (/\s/u.test(c)) push(' ', start, end);
      else for (let k = 0; k < c.length; k++) push(k === 0 ? c : '', start, end);
    }
    i = end - offset;
  }
  return { text: chars.join(''), from, to };
}

/** An ASCII character as a quote is compared: A–Z lower case, whitespace a space. */
function asciiFold(code: number): string {
  if (code >= 0x41 && code <= 0x5a) return String.fromCharCode(code + 0x20);
  // \t \n \v \f \r and the space: what /\s/ is in ASCII.
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return ' ';
  return String.fromCharCode(code);
}

/** `fold`'s answer as a `FoldedText`. */
function folded(text: string, offset: number): FoldedText {
  const { text: foldedText, from, to } = fold(text, offset);
  return { text: foldedText, spanOf: (at, length) => ({ start: from[at]!, end: to[at + length - 1]! }) };
}

/**
 * Most text folds with the engine's own string functions, some ten times faster than `fold`:
 * text NFKC leaves as it is, with no combining marks (each character its own cluster), whose lower
 * case keeps its length and needs no context (no capital sigma: ς or σ depends on the next letter).
 * Then folding only lowers the case and shrinks whitespace runs, and a folded offset is found in
 * the original from the runs before it. Null for any other text.
 */
function plainFolded(text: string, offset: number): FoldedText | null {
  const lower = text.toLowerCase();
  if (lower.length !== text.length || text.includes('Σ') || /\p{M}/u.test(text)) return null;
  if (text.normalize('NFKC') !== text) return null;
  // Only runs of two or more whitespace characters fold shorter (to one space): a folded offset
  // is the original one less what the runs before it lost, found run by run from the last one
  // asked for (the engine finds the next run).
  const RUN = /\s{2,}/gu;
  const RUN_HERE = /\s{2,}/uy;
  let i = 0; // in `lower`
  let j = 0; // in the folded text, at `i`
  const origin = (at: number): Span => {
    // Matches come in order, but may overlap the last one's end: then walk again from the start.
    if (at < j) [i, j] = [0, 0];
    for (;;) {
      RUN.lastIndex = i;
      const run = RUN.exec(lower);
      const runAt = run ? j + (run.index - i) : Infinity;
      if (runAt >= at) {
        i += at - j;
        j = at;
        break;
      }
      i = run!.index + run![0].length;
      j = runAt + 1;
    }
    RUN_HERE.lastIndex = i;
    const run = RUN_HERE.exec(lower);
    return { start: offset + i, end: offset + i + (run ? run[0].length : 1) };
  };
  return {
    text: lower.replace(/\s+/gu, ' '),
    spanOf: (at, length) => {
      const start = origin(at).start;
      return { start, end: origin(at + length - 1).end };
    },
  };
}

/** The quote as the server compares it: folded, whitespace runs as one space, trimmed. */
export function quoteForm(quote: string): string {
  return fold(quote).text.trim();
}

/** The stretch of text a quote is looked for in, and the cited page within it. */
export interface QuoteWindow extends Span {
  cited: Span;
}

/**
 * Where to look for a quote cited on `page` (1-based, pages cut at `pageStarts`) of a text
 * `length` long: that page with the page before and after it, as the server verified it; the
 * whole text when `page` is not given. Null when the page is not the document's.
 *
 * @example quoteWindow(30, [0, 10, 20], 1) // { start: 0, end: 20, cited: { start: 0, end: 10 } }
 */
export function quoteWindow(
  length: number,
  pageStarts: readonly number[] | null | undefined,
  page: number | null | undefined,
): QuoteWindow | null {
  if (page === null || page === undefined) return { start: 0, end: length, cited: { start: 0, end: length } };
  const starts = pageStarts && pageStarts.length > 0 ? pageStarts : [0];
  if (!Number.isInteger(page) || page < 1 || page > starts.length) return null;
  const startOf = (p: number): number => (p > starts.length ? length : (starts[p - 1] ?? 0));
  return {
    start: startOf(Math.max(page - 1, 1)),
    end: startOf(page + 2),
    cited: { start: startOf(page), end: startOf(page + 1) },
  };
}

/**
 * Where `quote` occurs in `hay`, the stretch of a text that starts at `offset`, preferring a match
 * that touches `cited` (offsets of the whole text), else the first. Null when it is not there, as
 * the server would have said "unverified".
 */
export function findQuoteIn(hay: string, offset: number, cited: Span, quote: string): Span | null {
  const wanted = quoteForm(quote);
  if (wanted === '') return null;
  const hayFolded = plainFolded(hay, offset) ?? folded(hay, offset);
  let first: Span | null = null;
  for (let at = hayFolded.text.indexOf(wanted); at !== -1; at = hayFolded.text.indexOf(wanted, at + 1)) {
    const span = hayFolded.spanOf(at, wanted.length);
    if (span.start < cited.end && span.end > cited.start) return span;
    first ??= span;
  }
  return first;
}

/**
 * Where `quote` occurs in `text`: on `page` or the page before or after it (`quoteWindow`),
 * preferring a match on the cited page itself; anywhere in the text when `page` is not given.
 *
 * @example findQuote('One.\n\nTwo  words.', [0, 6], 2, 'TWO words') // { start: 6, end: 15 }
 */
export function findQuote(
  text: string,
  pageStarts: readonly number[] | null | undefined,
  page: number | null | undefined,
  quote: string,
): Span | null {
  const window = quoteWindow(text.length, pageStarts, page);
  return window && findQuoteIn(text.slice(window.start, window.end), window.start, window.cited, quote);
}
