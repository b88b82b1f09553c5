// What a library search shows (UI.md "Library"; SPEC §6d), rendered to markup: that nothing
// matched, in words, with the query; each hit's passage with the words that matched marked, the
// document's text as text; and a hit's link opening the document at its passage, highlighted.
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import type { RouterOutputs } from '../trpc.ts';
import { SearchHits } from './library-search.tsx';

type Hit = RouterOutputs['documents']['search'][number];

const render = (query: string, hits: Hit[], source = 'text'): string =>
  renderToStaticMarkup(
    <MemoryRouter>
      <SearchHits query={query} hits={hits} sourceOf={() => source} />
    </MemoryRouter>,
  );

const PASSAGE =
  'Divers saw <img src=x onerror=alert(1)> bleached corals at 8 DHW in 80 days; the bleaching spread.';

const hit = (over: Partial<Hit> = {}): Hit => ({
  id: 'doc_1',
  documentId: 'doc_1',
  title: 'Reef & heat <2016>',
  score: 0.91,
  access: 'owner',
  passage: PASSAGE,
  page: 3,
  chunk: 0,
  start: 120,
  end: 120 + PASSAGE.length,
  terms: ['bleached', 'bleaching', 'DHW', '8'],
  authors: [],
  year: null,
  doi: null,
  venue: '',
  tags: [],
  citationKey: 'reef2016',
  ...over,
});

describe('a library search', () => {
  it('says in words that no passage of the library matches, with the query', () => {
    const html = render('ETXTBSY & <b>', []);
    expect(html).toContain('No passage of your library matches “ETXTBSY &amp; &lt;b&gt;”.');
  });

  it('marks the words that matched, whole words only, and shows the document’s text as text', () => {
    const html = render('bleaching at 8 DHW', [hit()]);
    const marked = [...html.matchAll(/<mark>(.*?)<\/mark>/g)].map((m) => m[1]);
    // "8" is marked where it is a word, not inside "80".
    expect(marked).toEqual(['bleached', '8', 'DHW', 'bleaching']);
    expect(html).toContain('Divers saw &lt;img src=x onerror=alert(1)&gt; ');
    expect(html).not.toContain('<img');
    expect(html).toContain('Reef &amp; heat &lt;2016&gt;');
  });

  it('opens a hit’s document at its passage, highlighted, with the link a citation chip uses', () => {
    const html = render('DHW', [hit()], 'pdf');
    const href = /<a href="([^"]*)"/.exec(html)![1]!.replaceAll('&amp;', '&');
    const url = new URL(href, 'http://sponge.test');
    expect(url.pathname).toBe('/documents/doc_1');
    expect(url.searchParams.get('page')).toBe('3');
    expect(url.searchParams.get('quote')).toBe(PASSAGE);
    expect(html).toContain('p. 3');
  });

  it('says what a score means, and shows a weak hit as weak', () => {
    const html = render('DHW', [hit({ score: 0.06 })]);
    expect(html).toContain('0.06');
    expect(html).toMatch(/title="[^"]*chance[^"]*"/);
  });
});

describe('a search narrowed by a tag', () => {
  it('says that no passage of the documents with that tag matches', () => {
    const html = renderToStaticMarkup(
      <MemoryRouter>
        <SearchHits query="kelp" hits={[]} sourceOf={() => 'text'} tag="reefs" />
      </MemoryRouter>,
    );
    expect(html).toContain('No passage of your library tagged #reefs matches “kelp”.');
  });
});

describe('a hit says what paper it is from', () => {
  it('names its authors and year before the title, and its venue after', () => {
    const html = render('DHW', [
      hit({ authors: ['Terry P. Hughes', 'James T. Kerry', 'Andrew H. Baird'], year: 2017, venue: 'Nature' }),
    ]);
    expect(html.replace(/<[^>]+>/g, '')).toContain(
      'Hughes et al. 2017 · Reef &amp; heat &lt;2016&gt; · Nature',
    );
  });
});
