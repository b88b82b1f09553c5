// Where a cited quote is, without holding up the page: a quote cited on a page of a PDF is looked
// for on that page and its neighbours, a few thousand characters, at once; a longer stretch — a
// pasted text is one page of up to 2,000,000 characters — is searched by a Web Worker, so the page
// stays drawn and scrollable meanwhile (use-quoted-passage.ts).
import { findQuoteIn, quoteWindow, type Span } from './quote.ts';

/** Up to this many characters are searched at once, where the page is drawn (a few milliseconds). */
const AT_ONCE_CHARS = 100_000;

/** A search to hand to the worker: the stretch of text, where it starts, the cited page in it. */
export interface QuoteJob {
  hay: string;
  offset: number;
  cited: Span;
  quote: string;
}

/**
 * The quote's place when the stretch to search is short (`done`), else the search to run in the
 * worker. Pure: it only decides, so a render may call it.
 */
export function planQuoteSearch(
  text: string,
  pageStarts: readonly number[] | null | undefined,
  page: number | null,
  quote: string,
  atOnce = AT_ONCE_CHARS,
): { done: true; span: Span | null } | { done: false; job: QuoteJob } {
  const window = quoteWindow(text.length, pageStarts, page);
  if (!window) return { done: true, span: null };
  const hay = text.slice(window.start, window.end);
  if (hay.length <= atOnce) return { done: true, span: findQuoteIn(hay, window.start, window.cited, quote) };
  return { done: false, job: { hay, offset: window.start, cited: window.cited, quote } };
}

/** What the page and the worker say to each other. */
export interface QuoteRequest extends QuoteJob {
  id: number;
}
export interface QuoteAnswer {
  id: number;
  span: Span | null;
}

/** The part of a Worker the search uses (a test gives its own). */
interface QuoteWorker {
  postMessage(request: QuoteRequest): void;
  addEventListener(type: 'message', listener: (event: { data: QuoteAnswer }) => void): void;
  addEventListener(type: 'error', listener: () => void): void;
}

/**
 * Runs jobs in one worker, started at the first, answers matched to requests by id. Where no
 * worker can start, or it fails, the search runs where the page is drawn: slower, never wrong.
 */
export function quoteSearcher(
  startWorker: () => QuoteWorker | null,
): (job: QuoteJob) => Promise<Span | null> {
  let worker: QuoteWorker | null | undefined;
  let nextId = 0;
  const waiting = new Map<number, { job: QuoteJob; resolve: (span: Span | null) => void }>();
  const here = ({ hay, offset, cited, quote }: QuoteJob) => findQuoteIn(hay, offset, cited, quote);
  const start = (): QuoteWorker | null => {
    try {
      const started = startWorker();
      started?.addEventListener('message', ({ data }) => {
        waiting.get(data.id)?.resolve(data.span);
        waiting.delete(data.id);
      });
      started?.addEventListener('error', () => {
        worker = null;
        for (const { job, resolve } of waiting.values()) resolve(here(job));
        waiting.clear();
      });
      return started;
    } catch {
      return null;
    }
  };
  return (job) => {
    if (worker === undefined) worker = start();
    if (worker === null) return Promise.resolve(here(job));
    const id = ++nextId;
    const answer = new Promise<Span | null>((resolve) => waiting.set(id, { job, resolve }));
    worker.postMessage({ id, ...job });
    return answer;
  };
}

/** The app's searcher: a module worker from this app's own origin, as its CSP allows. */
export const searchInWorker = quoteSearcher(() =>
  typeof Worker === 'undefined'
    ? null
    : new Worker(new URL('./quote-worker.ts', import.meta.url), { type: 'module', name: 'quote search' }),
);
