import { describe, expect, it } from 'vitest';
import {
  authorYear,
  doiUrl,
  duplicateWords,
  familyName,
  paperName,
  tagLabel,
  yearVenue,
} from './paper-words.ts';

describe('familyName', () => {
  it('reads "Family, Given" and "Given Family" alike', () => {
    expect(familyName('Hughes, Terry P.')).toBe('Hughes');
    expect(familyName('Terry P. Hughes')).toBe('Hughes');
    expect(familyName('  Plato ')).toBe('Plato');
    expect(familyName('van der Berg, Anna')).toBe('van der Berg');
  });
});

describe('authorYear', () => {
  it('names one, two, or the first of many authors, with the year', () => {
    expect(authorYear({ authors: ['Hughes, T. P.'], year: 2017 })).toBe('Hughes 2017');
    expect(authorYear({ authors: ['T. P. Hughes', 'J. T. Kerry'], year: 2017 })).toBe(
      'Hughes and Kerry 2017',
    );
    expect(
      authorYear({ authors: ['Hughes, T. P.', 'Kerry, J. T.', 'Álvarez-Noriega, M.'], year: 2017 }),
    ).toBe('Hughes et al. 2017');
  });

  it('says what it knows, and nothing when it knows neither', () => {
    expect(authorYear({ authors: ['Hughes, T. P.', 'Kerry, J.', 'Baird, A.'], year: null })).toBe(
      'Hughes et al.',
    );
    expect(authorYear({ authors: [], year: 2019 })).toBe('2019');
    expect(authorYear({ authors: [], year: null })).toBeNull();
  });
});

describe('paperName and duplicateWords', () => {
  const hughes = {
    title: 'Global warming and recurrent mass bleaching of corals',
    authors: ['Hughes, T.', 'Kerry, J.', 'Baird, A.'],
    year: 2017,
  };
  const notes = { title: 'Kelp canopy loss', authors: [], year: null };

  it('names a paper by authors and year, else by its title', () => {
    expect(paperName(hughes)).toBe('Hughes et al. 2017');
    expect(paperName(notes)).toBe('“Kelp canopy loss”');
    expect(paperName({ ...notes, year: 2024 })).toBe('“Kelp canopy loss”');
  });

  it('offers the document the library has, by the list, else by the API’s sentence', () => {
    expect(duplicateWords(hughes, 'ignored')).toBe('Already in your library: Hughes et al. 2017 — open it?');
    expect(
      duplicateWords(undefined, 'Already in your library: Hughes et al. 2017 — "Global warming and…"'),
    ).toBe('Already in your library: Hughes et al. 2017 — open it?');
    expect(duplicateWords(undefined, '')).toBe('Already in your library — open it?');
  });

  it('shows a tag with its hash', () => {
    expect(tagLabel('bleaching')).toBe('#bleaching');
  });
});

describe('doiUrl and yearVenue', () => {
  it('links a DOI at doi.org, its parts encoded', () => {
    expect(doiUrl('10.1038/nature21707')).toBe('https://doi.org/10.1038/nature21707');
    expect(doiUrl('10.1016/s0140-6736(20)30183-5')).toBe('https://doi.org/10.1016/s0140-6736(20)30183-5');
    expect(doiUrl('10.1000/a#b?c')).toBe('https://doi.org/10.1000/a%23b%3Fc');
  });

  it('says the year and the venue that are known', () => {
    expect(yearVenue({ year: 2017, venue: 'Nature' })).toBe('2017 · Nature');
    expect(yearVenue({ year: null, venue: 'Field notes (scan, OCR)' })).toBe('Field notes (scan, OCR)');
    expect(yearVenue({ year: null, venue: ' ' })).toBe('');
  });
});
