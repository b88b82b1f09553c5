// The library's lists open with a page of rows, not every document (issue 41, point 9): a
// library of thousands of papers would otherwise render thousands of rows before it shows one.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { RouterOutputs } from '../trpc.ts';
import { DocumentList } from './library-page.tsx';
import { moreRows } from './sections.ts';

type Doc = RouterOutputs['documents']['list'][number];

const doc = (i: number): Doc => ({
  id: `doc_${i}`,
  title: `Paper ${i}`,
  ownerId: 'u1',
  ownerName: 'Ada',
  authors: [],
  abstract: '',
  year: null,
  doi: null,
  venue: '',
  tags: [],
  citationKey: `paper${i}`,
  access: 'owner',
  published: false,
  source: 'pdf',
  pages: 3,
  characters: 1000,
  addedAt: '2026-12-01T10:00:00.000Z',
  lastActivityAt: '2026-12-01T10:00:00.000Z',
  index: { state: 'ready', reason: null, done: 1, total: 1, note: null },
  memory: null,
});

const render = (count: number): string =>
  renderToStaticMarkup(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <DocumentList
          docs={Array.from({ length: count }, (_, i) => doc(i))}
          label="Your documents"
          selected={new Set()}
          onToggle={() => undefined}
        />
      </MemoryRouter>
    </QueryClientProvider>,
  );

const rows = (html: string) => html.split('class="doc-row"').length - 1;

describe('the library list', () => {
  it('shows the first 100 of a large library and says how many more there are', () => {
    const html = render(2_500);
    expect(rows(html)).toBe(100);
    expect(html).toContain('Showing 100 of 2,500.');
    expect(html).toContain('Show 100 more');
    expect(html).toContain('Paper 99');
    expect(html).not.toContain('Paper 100<');
  });

  it('shows a small library whole, with no Show more', () => {
    const html = render(100);
    expect(rows(html)).toBe(100);
    expect(html).not.toContain('Show');
  });

  it('adds a page at a time, the last one only what is left', () => {
    expect(moreRows(250, 100)).toEqual({ words: 'Showing 100 of 250.', next: 100 });
    expect(moreRows(250, 200)).toEqual({ words: 'Showing 200 of 250.', next: 50 });
    expect(moreRows(250, 300)).toBeNull();
  });
});
