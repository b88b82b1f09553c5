import { describe, expect, it } from 'vitest';
import type { CitableDocument } from './entries.ts';
import { formatReferences } from './format.ts';
import { parseBibliography } from './parse.ts';

const HUGHES: CitableDocument = {
  citationKey: 'hughes2017',
  title: 'Global warming and recurrent mass bleaching of corals',
  authors: ['Terry P. Hughes', 'James T. Kerry', 'Mariana Álvarez-Noriega'],
  year: 2017,
  doi: '10.1038/nature21707',
  venue: 'Nature',
  abstract: 'Record temperatures bleached corals across the tropics.',
  tags: ['Coral reefs', 'climate change'],
};

/** What LaTeX, RIS and JSON each treat as their own: braces, escapes, accents, a backslash. */
const AWKWARD: CitableDocument = {
  citationKey: 'vanbeethoven1808a',
  title: 'Fifty {curly} notes & 100% of $costs_total^2 ~ C:\\temp — “quoted”, Ünïcödé',
  authors: ['Ludwig van Beethoven', 'Łukasz Kaiser', 'Plato'],
  year: 1808,
  doi: '10.1000/a_b-c.(1)',
  venue: 'Journal of Things & Stuff',
  abstract: 'An abstract with {braces}, a \\backslash, 50% and a # sign.',
  tags: ['to read', 'C# & F#'],
};

const NO_VENUE: CitableDocument = {
  citationKey: 'notes',
  title: 'Field notes from the reef',
  authors: [],
  year: null,
  doi: null,
  venue: '',
  abstract: '',
  tags: [],
};

describe('formatReferences', () => {
  it('formats text by the APA style by default, and by Vancouver and Harvard', () => {
    expect(formatReferences([HUGHES], 'text')).toBe(
      'Hughes, T. P., Kerry, J. T., & Álvarez-Noriega, M. (2017). Global warming and recurrent mass bleaching of corals. Nature. https://doi.org/10.1038/nature21707\n',
    );
    expect(formatReferences([HUGHES], 'text', 'vancouver')).toBe(
      '1. Hughes TP, Kerry JT, Álvarez-Noriega M. Global warming and recurrent mass bleaching of corals. Nature. 2017. doi:10.1038/nature21707\n',
    );
    expect(formatReferences([HUGHES], 'text', 'harvard1')).toBe(
      // The style says "[Preprint]" of an article without volume or pages: a document keeps neither.
      'Hughes, T.P., Kerry, J.T. and Álvarez-Noriega, M. (2017) “Global warming and recurrent mass bleaching of corals,” Nature [Preprint]. Available at: https://doi.org/10.1038/nature21707.\n',
    );
    // A document with nothing but a title is still a reference.
    expect(formatReferences([NO_VENUE], 'text')).toBe('Field notes from the reef. (n.d.).\n');
  });

  it('writes BibTeX as reference managers read it: one entry per document, keyed by its citation key', () => {
    const bib = formatReferences([HUGHES, NO_VENUE], 'bibtex');
    expect(bib).toContain('@article{hughes2017,\n');
    expect(bib).toContain(
      '\tauthor = {Hughes, Terry P. and Kerry, James T. and Álvarez-Noriega, Mariana},\n',
    );
    expect(bib).toContain('\tjournal = {Nature},\n');
    expect(bib).toContain('@misc{notes,\n');
  });

  it.each(['bibtex', 'ris', 'csl-json'] as const)(
    'round trip through %s: export, parse, the same metadata',
    (format) => {
      const text = formatReferences([HUGHES, AWKWARD, NO_VENUE], format);
      const name = { bibtex: 'out.bib', ris: 'out.ris', 'csl-json': 'out.json' }[format];
      const back = parseBibliography(text, name).map((e) => ({
        citationKey: e.key,
        title: e.title,
        authors: e.authors,
        year: e.year,
        doi: e.doi,
        venue: e.venue,
        abstract: e.abstract,
        tags: e.tags,
      }));
      expect(back).toEqual([HUGHES, AWKWARD, NO_VENUE]);
    },
  );
});
