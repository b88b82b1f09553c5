import { describe, expect, it } from 'vitest';
import {
  planQuoteSearch,
  quoteSearcher,
  type QuoteAnswer,
  type QuoteJob,
  type QuoteRequest,
} from './locate-quote.ts';
import { joined } from './testing/joined-pages.ts';

const pages = Array.from({ length: 2_000 }, (_, i) => `Transect ${i + 1} was surveyed. ${'x'.repeat(960)}`);
const pdf = joined(pages);

describe('planQuoteSearch', () => {
  it('searches a cited page of a PDF and its neighbours at once, never the rest', () => {
    const plan = planQuoteSearch(pdf.text, pdf.pageStarts, 1_900, 'Transect 1900 was surveyed');
    expect(plan).toEqual({ done: true, span: expect.objectContaining({ start: pdf.pageStarts[1_899] }) });
    // A quote two pages away is not the cited passage, however long the document.
    expect(planQuoteSearch(pdf.text, pdf.pageStarts, 1_900, 'Transect 1902 was surveyed')).toEqual({
      done: true,
      span: null,
    });
  });

  it('hands a long stretch to the worker: a pasted text is one page, all of it searched', () => {
    const text = pages.join('\n\n');
    const plan = planQuoteSearch(text, [0], 1, 'Transect 1900 was surveyed');
    expect(plan.done).toBe(false);
    const job = (plan as { job: QuoteJob }).job;
    expect(job).toMatchObject({
      offset: 0,
      cited: { start: 0, end: text.length },
      quote: 'Transect 1900 was surveyed',
    });
    expect(job.hay).toBe(text);
  });

  it('hands the worker only the cited pages when they are long', () => {
    const plan = planQuoteSearch(pdf.text, pdf.pageStarts, 1_000, 'Transect 1000 was surveyed', 2_000);
    const job = (plan as { job: QuoteJob }).job;
    expect(job.offset).toBe(pdf.pageStarts[998]);
    expect(job.hay).toBe(pdf.text.slice(pdf.pageStarts[998], pdf.pageStarts[1_001]));
    expect(job.cited).toEqual({ start: pdf.pageStarts[999], end: pdf.pageStarts[1_000] });
  });

  it('is nothing to search for a page the document does not have', () => {
    expect(planQuoteSearch(pdf.text, pdf.pageStarts, 2_001, 'Transect')).toEqual({ done: true, span: null });
  });
});

/** A worker that answers as the real one does, when told to. */
function fakeWorker() {
  const listeners: Record<string, Array<(event: { data: QuoteAnswer }) => void>> = { message: [], error: [] };
  const requests: QuoteRequest[] = [];
  return {
    requests,
    worker: {
      postMessage: (request: QuoteRequest) => void requests.push(request),
      addEventListener: (type: 'message' | 'error', listener: (event: { data: QuoteAnswer }) => void) =>
        void listeners[type]!.push(listener),
    },
    answer: (answer: QuoteAnswer) => listeners.message!.forEach((l) => l({ data: answer })),
    fail: () => listeners.error!.forEach((l) => l({ data: { id: 0, span: null } })),
  };
}

const job = (quote: string): QuoteJob => ({
  hay: 'Alpha beta. Gamma delta.',
  offset: 100,
  cited: { start: 100, end: 124 },
  quote,
});

describe('quoteSearcher', () => {
  it('asks one worker, started once, and matches its answers to the requests', async () => {
    const fake = fakeWorker();
    let started = 0;
    const search = quoteSearcher(() => {
      started++;
      return fake.worker;
    });
    const first = search(job('alpha'));
    const second = search(job('gamma'));
    expect(started).toBe(1);
    expect(fake.requests.map((r) => r.quote)).toEqual(['alpha', 'gamma']);
    fake.answer({ id: fake.requests[1]!.id, span: { start: 112, end: 117 } });
    fake.answer({ id: fake.requests[0]!.id, span: { start: 100, end: 105 } });
    expect(await first).toEqual({ start: 100, end: 105 });
    expect(await second).toEqual({ start: 112, end: 117 });
  });

  it('searches here when no worker can start, or when it fails', async () => {
    expect(await quoteSearcher(() => null)(job('gamma'))).toEqual({ start: 112, end: 117 });
    const throwing = quoteSearcher(() => {
      throw new Error('blocked');
    });
    expect(await throwing(job('gamma delta'))).toEqual({ start: 112, end: 123 });

    const fake = fakeWorker();
    const search = quoteSearcher(() => fake.worker);
    const waiting = search(job('beta'));
    fake.fail();
    expect(await waiting).toEqual({ start: 106, end: 110 });
    // And from then on, without it.
    expect(await search(job('delta'))).toEqual({ start: 118, end: 123 });
    expect(fake.requests).toHaveLength(1);
  });
});
