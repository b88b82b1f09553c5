import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isLibraryError } from '../errors.ts';
import { bibtexFilePaths, parseBibliography } from './parse.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

const HUGHES = {
  title: 'Global warming and recurrent mass bleaching of corals',
  year: 2017,
  doi: '10.1038/nature21707',
  venue: 'Nature',
  abstract:
    'Record temperatures in 2015 and 2016 bleached corals across the tropics; this study maps the bleaching on the Great Barrier Reef and asks what protects a reef from it.',
};

describe('parseBibliography', () => {
  it("reads Zotero's BibTeX: metadata, keywords as tags, the PDF it names (not the snapshot's page)", () => {
    const [hughes, hastie] = parseBibliography(fixture('zotero.bib'), 'Exported Items.bib');
    expect(hughes).toMatchObject({
      key: 'hughes_global_2017',
      ...HUGHES,
      authors: [
        'Terry P. Hughes',
        'James T. Kerry',
        'Mariana Álvarez-Noriega',
        'Jorge G. Álvarez-Romero',
        'Kristen D. Anderson',
      ],
      tags: ['Climate-change ecology', 'Coral reefs'],
      files: [
        'Hughes et al. - 2017 - Global warming and recurrent mass bleaching of cor.pdf',
        'nature21707.html',
      ],
      paths: [
        'files/12/Hughes et al. - 2017 - Global warming and recurrent mass bleaching of cor.pdf',
        'files/13/nature21707.html',
      ],
    });
    // A book: its publisher is its venue; the braces that kept the capitals are gone.
    expect(hastie).toMatchObject({
      title: 'The Elements of Statistical Learning: Data Mining, Inference, and Prediction',
      authors: ['Trevor Hastie', 'Robert Tibshirani', 'Jerome Friedman'],
      year: 2009,
      doi: '10.1007/978-0-387-84858-7',
      venue: 'Springer',
      files: [],
    });
  });

  it("reads JabRef's BibTeX: groups and keywords as tags, relative and escaped Windows file paths", () => {
    const [wernberg, vaswani] = parseBibliography(fixture('jabref.bib'), 'library.bib');
    expect(wernberg).toMatchObject({
      key: 'Wernberg2016',
      title: 'Climate-driven regime shift of a temperate marine ecosystem',
      year: 2016,
      doi: '10.1126/science.aad8745',
      venue: 'Science',
      tags: ['kelp forests', 'marine heatwave', 'Kelp', 'Warming'],
      files: ['Wernberg2016.pdf'],
    });
    expect(wernberg?.authors).toContain('Thibaut de Bettignies');
    expect(vaswani).toMatchObject({
      venue: 'Advances in Neural Information Processing Systems',
      tags: ['Models'],
      files: ['Vaswani2017.pdf'],
    });
    expect(vaswani?.authors).toContain('Łukasz Kaiser');
  });

  it("reads Mendeley's BibTeX: LaTeX accents, groups and tags, its $\\backslash$ file paths", () => {
    const [krumhansl, muller] = parseBibliography(fixture('mendeley.bib'), 'library.bib');
    expect(krumhansl).toMatchObject({
      title: 'Global patterns of kelp forest change over the past half-century',
      year: 2016,
      doi: '10.1073/pnas.1606102113',
      venue: 'Proceedings of the National Academy of Sciences',
      tags: ['climate change', 'kelp', 'to read'],
      files: [
        'Krumhansl et al. - 2016 - Global patterns of kelp forest change over the past half-century.pdf',
      ],
    });
    expect(krumhansl?.authors).toContain('Alejandro Pérez-Matus');
    expect(muller).toMatchObject({
      authors: ['Anna Müller', 'Jörg Schäfer'],
      files: ['Müller, Schäfer - 2019 - Seegraswiesen im Wandel.pdf'],
    });
  });

  it("reads Zotero's RIS (CRLF lines): metadata, KW tags, the L1 file", () => {
    const [hughes, hastie] = parseBibliography(fixture('zotero.ris'), 'Exported Items.ris');
    expect(hughes).toMatchObject({
      ...HUGHES,
      authors: ['Terry P. Hughes', 'James T. Kerry', 'Mariana Álvarez-Noriega'],
      tags: ['Climate-change ecology', 'Coral reefs'],
      files: ['Hughes et al. - 2017 - Global warming and recurrent mass bleaching of cor.pdf'],
    });
    expect(hastie).toMatchObject({ year: 2009, venue: 'Springer', doi: '10.1007/978-0-387-84858-7' });
  });

  it("reads Zotero's CSL JSON, years written as strings included", () => {
    const [hughes] = parseBibliography(fixture('zotero.json'), 'Exported Items.json');
    expect(hughes).toMatchObject({
      ...HUGHES,
      authors: ['Terry P. Hughes', 'James T. Kerry', 'Mariana Álvarez-Noriega'],
      files: [],
    });
  });

  it('takes a RIS journal given only by its abbreviation as the venue, and an L1 file:// URL as a path', () => {
    const ris = [
      'TY  - JOUR',
      'TI  - Kelp forests in a warming sea',
      'AU  - Müller, Anna',
      'J2  - Mar. Ecol.',
      'PY  - 2019',
      'L1  - file:///C:/Users/anna/Documents/M%C3%BCller%20-%202019%20-%20Kelp.pdf',
      'ER  - ',
      '',
    ].join('\n');
    expect(parseBibliography(ris, 'export.ris')[0]).toMatchObject({
      venue: 'Mar. Ecol.',
      files: ['Müller - 2019 - Kelp.pdf'],
      paths: ['C:/Users/anna/Documents/Müller - 2019 - Kelp.pdf'],
    });
  });

  it('refuses in words what is no bibliography, a broken one, and one over the entry limit', () => {
    const refusal = (text: string, name: string) => {
      try {
        parseBibliography(text, name);
      } catch (err) {
        if (isLibraryError(err)) return `${err.reason}: ${err.message}`;
        throw err;
      }
      return 'accepted';
    };
    expect(refusal('just some notes', 'notes.txt')).toMatch(
      /^invalid_input: notes.txt is not a bibliography/,
    );
    expect(refusal('{"title": ', 'items.json')).toMatch(/^invalid_input: .*not JSON/);
    expect(refusal('[1, 2]', 'items.json')).toMatch(/^invalid_input: .*not CSL JSON/);
    expect(refusal('% nothing here\n', 'empty.bib')).toMatch(/^invalid_input: empty.bib holds no entries/);
    const many = Array.from({ length: 501 }, (_, i) => `@misc{k${i}, title = {T${i}}}`).join('\n');
    expect(refusal(many, 'many.bib')).toMatch(
      /^invalid_input: The bibliography has 501 entries; an import takes at most 500/,
    );
  });
});

describe('bibtexFilePaths', () => {
  it.each([
    ['Full Text PDF:files/12/a b.pdf:application/pdf', ['files/12/a b.pdf']],
    [':C\\:\\\\Users\\\\me\\\\a.pdf:PDF', ['C:\\Users\\me\\a.pdf']],
    [':C$\\backslash$:/Users/me/a.pdf:pdf', ['C:/Users/me/a.pdf']],
    [
      'A:files/1/a\\;b.pdf:application/pdf;B:files/2/c.pdf:application/pdf',
      ['files/1/a;b.pdf', 'files/2/c.pdf'],
    ],
    ['papers/plain.pdf', ['papers/plain.pdf']],
  ])('%s', (field, paths) => {
    expect(bibtexFilePaths(field)).toEqual(paths);
  });
});
