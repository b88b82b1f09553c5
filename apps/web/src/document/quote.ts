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

// A character with the combining marks after it: folded together, as NFKC composes them.
const CLUSTER = /\P{M}\p{M}*|\p{M}+/gsu;

function fold(text: string, offset = 0): Folded {
  const out: Folded = { text: '', from: [], to: [] };
  for (const m of text.matchAll(CLUSTER)) {
    const start = offset + m.index;
    const end = start + m[0].length;
    for (const c of m[0].normalize('NFKC').toLowerCase()) {
      if (/\s/u.test(c)) {
        // A run of whitespace is one space, however it was spaced.
        if (out.text.endsWith(' ')) {
          out.to[out.to.length - 1] = end;
          continue;
        }
        out.text += ' ';
      } else {
        out.text += c;
      }
      // A character that folds to several (ﬁ → fi) maps each of them to the whole of it.
      for (let i = 0; i < c.length; i++) {
        out.from.push(start);
        out.to.push(end);
      }
    }
  }
  return out;
}

/** The quote as the server compares it: folded, whitespace runs as one space, trimmed. */
export function quoteForm(quote: string): string {
  return fold(quote).text.trim();
}

/**
 * Where `quote` occurs in `text`: on `page` (1-based, pages cut at `pageStarts`) or the page
 * before or after it, preferring a match that touches the cited page itself; anywhere in the text
 * when `page` is not given. Null when it is not there (or the page is not the document's), as the
 * server would have said "unverified".
 *
 * @example findQuote('One.\n\nTwo  words.', [0, 6], 2, 'TWO words') // { start: 6, end: 15 }
 */
export function findQuote(
  text: string,
  pageStarts: readonly number[] | null | undefined,
  page: number | null | undefined,
  quote: string,
): Span | null {
  const wanted = quoteForm(quote);
  if (wanted === '') return null;
  const starts = pageStarts && pageStarts.length > 0 ? pageStarts : [0];
  let from = 0;
  let to = text.length;
  let cited: Span = { start: 0, end: text.length };
  if (page !== null && page !== undefined) {
    if (!Number.isInteger(page) || page < 1 || page > starts.length) return null;
    const startOf = (p: number): number => (p > starts.length ? text.length : (starts[p - 1] ?? 0));
    from = startOf(Math.max(page - 1, 1));
    to = startOf(page + 2);
    cited = { start: startOf(page), end: startOf(page + 1) };
  }
  const hay = fold(text.slice(from, to), from);
  let first: Span | null = null;
  for (let at = hay.text.indexOf(wanted); at !== -1; at = hay.text.indexOf(wanted, at + 1)) {
    const span = { start: hay.from[at]!, end: hay.to[at + wanted.length - 1]! };
    if (span.start < cited.end && span.end > cited.start) return span;
    first ??= span;
  }
  return first;
}
