/**
 * Whether a quote is in a document's text (SPEC §7b): the text check behind a `verified` passage
 * citation. Case, compatibility forms (ligatures) and how whitespace is spaced do not count, and a
 * quote that runs over a page break is found: the cited page is compared with the pages before
 * and after it joined. Judging a reply's citations (which document may be read, a quote too short
 * to prove anything, working notes, support) is citations.ts's.
 */

/** Text as a quote is compared: compatibility forms folded (ligatures), lower case, whitespace runs as one space. */
export function quoteForm(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Whether `quote` occurs on `page` (1-based) of the text, or on the page before or after it.
 *
 * @example
 * const { text, pageStarts } = joinPages(['one alpha', 'two beta']);
 * quoteOnPage(text, pageStarts, 1, 'Two  BETA'); // true: the page after, case and spaces aside
 */
export function quoteOnPage(
  text: string,
  pageStarts: readonly number[],
  page: number,
  quote: string,
): boolean {
  const pages = pageStarts.length;
  if (!Number.isInteger(page) || page < 1 || page > pages) return false;
  const from = pageStarts[Math.max(page - 2, 0)]!;
  // Page p + 1 ends where page p + 2 starts (pageStarts[p + 1]), or with the text.
  const to = page + 1 < pages ? pageStarts[page + 1]! : text.length;
  const wanted = quoteForm(quote);
  return wanted.length > 0 && quoteForm(text.slice(from, to)).includes(wanted);
}
