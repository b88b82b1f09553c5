import { useEffect, useMemo } from 'react';
import type { RefObject } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { findQuote, type Span } from './quote.ts';

/**
 * A cited quote the document page was opened at (`?page=4&quote=…`, from a citation chip): where
 * it is in the text, to highlight, and the page scrolled to it once the text is shown. `notFound`
 * when the URL has a quote the page (± 1) does not hold — the document changed, or the link was
 * edited; the page then opens at that page with a notice.
 */
export function useQuotedPassage(
  doc: { text: string; pageStarts?: readonly number[] | null } | null,
  textRef: RefObject<HTMLElement | null>,
): { span: Span | null; notFound: boolean; page: number | null } {
  const [params] = useSearchParams();
  const { key } = useLocation();
  const quote = params.get('quote');
  const pageParam = Number(params.get('page'));
  const page = Number.isInteger(pageParam) && pageParam > 0 ? pageParam : null;
  const text = doc?.text;
  const pageStarts = doc?.pageStarts;
  const span = useMemo(
    () => (quote && text !== undefined ? findQuote(text, pageStarts, page, quote) : null),
    [quote, text, pageStarts, page],
  );
  const start = span?.start;
  useEffect(() => {
    if (start === undefined) {
      if (quote && page !== null) document.getElementById(`page-${page}`)?.scrollIntoView();
      return;
    }
    textRef.current?.querySelector('mark.quoted')?.scrollIntoView({ block: 'center' });
    // Again for every visit (`key`), as a click on the same chip a second time should scroll again.
  }, [start, quote, page, key, textRef]);
  return { span, notFound: !!quote && text !== undefined && span === null, page };
}
