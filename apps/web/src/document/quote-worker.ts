// The Web Worker that looks for a cited quote in a long stretch of text (locate-quote.ts), off
// the thread that draws the page.
import type { QuoteAnswer, QuoteRequest } from './locate-quote.ts';
import { findQuoteIn } from './quote.ts';

// The app's TypeScript knows the window, not a worker's scope: only these two are used.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<QuoteRequest>) => void) | null;
  postMessage(answer: QuoteAnswer): void;
};

scope.onmessage = ({ data: { id, hay, offset, cited, quote } }) => {
  scope.postMessage({ id, span: findQuoteIn(hay, offset, cited, quote) });
};
