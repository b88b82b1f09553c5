import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { planQuoteSearch, searchInWorker, type QuoteJob } from './locate-quote.ts';
import type { Span } from './quote.ts';

/**
 * A cited quote the document page was opened at (`?page=4&quote=…`, from a citation chip or a
 * search hit): where it is in the text, to highlight, and what to bring into view — the passage
 * once it is found, the cited page while a long stretch is still searched or when the quote is
 * not there. `notFound` when the URL has a quote the page (± 1) does not hold — the document
 * changed, or the link was edited; the page then opens at that page with a notice.
 */
export function useQuotedPassage(doc: { text: string; pageStarts?: readonly number[] | null } | null): {
  span: Span | null;
  notFound: boolean;
  page: number | null;
  /** The passage (`quote`) or a page to scroll to; null when the URL cites no quote. */
  reveal: 'quote' | number | null;
} {
  const [params] = useSearchParams();
  const quote = params.get('quote');
  const pageParam = Number(params.get('page'));
  const page = Number.isInteger(pageParam) && pageParam > 0 ? pageParam : null;
  const text = doc?.text;
  const pageStarts = doc?.pageStarts;
  const search = useMemo(
    () => (quote && text !== undefined ? planQuoteSearch(text, pageStarts, page, quote) : null),
    [quote, text, pageStarts, page],
  );
  // The worker's answer, for the job it answers: a newer job's answer replaces it.
  const [answer, setAnswer] = useState<{ job: QuoteJob; span: Span | null } | null>(null);
  useEffect(() => {
    if (!search || search.done) return;
    let current = true;
    void searchInWorker(search.job).then((span) => {
      if (current) setAnswer({ job: search.job, span });
    });
    return () => {
      current = false;
    };
  }, [search]);
  const searching = !!search && !search.done && answer?.job !== search.job;
  const span = !search ? null : search.done ? search.span : searching ? null : answer!.span;
  return {
    span,
    notFound: !!search && !searching && span === null,
    page,
    reveal: !quote ? null : span ? 'quote' : page,
  };
}
