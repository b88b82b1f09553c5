/**
 * What a PDF says it is (metadata.ts), from its Info dictionary, XMP and page text as pdf.js gives
 * them. The PDFs made by real tools are read end to end in metadata-pdfs.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SPONGE_LIMITS } from '@sponge/contract';
import type { LayoutItem } from './layout.ts';
import {
  MAX_AUTHOR_CHARS,
  MAX_AUTHORS,
  findAbstract,
  findDoi,
  paperMetadata,
  plausibleTitle,
  splitAuthors,
  typesetLines,
  typesetTitle,
} from './metadata.ts';
import type { TypesetLine } from './metadata.ts';

/** Page-1 lines from the top down, 14 points apart, as [text, font size]. */
const lines = (...rows: Array<[string, number]>): TypesetLine[] =>
  rows.map(([text, size], i) => ({ text, size, y: 780 - 14 * i }));
/** A pdf.js text item at (x, y) in a font of `size`, about half an em per character. */
const at = (str: string, x: number, y: number, size = 10, dir = 'ltr'): LayoutItem => ({
  str,
  transform: [size, 0, 0, size, x, y],
  width: str.length * size * 0.5,
  height: size,
  dir,
});
const BODY: Array<[string, number]> = [
  ['Coral reefs are among the most diverse ecosystems on the planet, and their', 10],
  ['recovery from disturbance has been studied for decades by many teams.', 10],
  ['Bleaching happens when the algae inside the coral tissue are expelled.', 10],
  ['A bleached colony is not dead, but it starves unless the algae return.', 10],
];

describe('findDoi', () => {
  it('finds a DOI in text, lower-cased, without its trailing punctuation or resolver', () => {
    expect(findDoi('See https://doi.org/10.5555/JES.2024.0012.')).toBe('10.5555/jes.2024.0012');
    expect(findDoi('DOI: 10.1038/nature21707;')).toBe('10.1038/nature21707');
    expect(findDoi('(doi:10.1000/xyz-1),')).toBe('10.1000/xyz-1');
    expect(findDoi('"10.1000/abc"')).toBe('10.1000/abc');
  });

  it('keeps brackets that belong to the DOI', () => {
    expect(findDoi('doi:10.1016/0006-2952(83)90098-8.')).toBe('10.1016/0006-2952(83)90098-8');
    expect(findDoi('(see 10.1002/(sici)1097-0258(19980815/30)17:15/16<1661::aid-sim968>3.0.co;2-2)')).toBe(
      '10.1002/(sici)1097-0258(19980815/30)17:15/16',
    );
  });

  it('leaves out what is after a references heading: those are other papers', () => {
    const page = 'Body text.\nReferences\n1. Deep, B. (2015). Carbon in mud. doi:10.5555/deep.2015.4';
    expect(findDoi(page)).toBeUndefined();
    expect(findDoi('Body.\n\n5. REFERENCES\n[1] 10.5555/x.1')).toBeUndefined();
    expect(findDoi('Our doi:10.5555/ours.1\nReferences\n10.5555/theirs.2')).toBe('10.5555/ours.1');
  });

  it('follows a DOI the typesetter broke at a line end after a dot, slash or dash', () => {
    expect(findDoi('https://doi.org/10.1371/journal.\npone.0123456\nReceived')).toBe(
      '10.1371/journal.pone.0123456',
    );
    expect(findDoi('doi:10.5555/abc-\n123.x')).toBe('10.5555/abc-123.x');
    // A DOI that ends its sentence is not continued by the next line.
    expect(findDoi('doi: 10.5555/jes.2024.0012.\nReceived 3 May 2024')).toBe('10.5555/jes.2024.0012');
  });

  it('is undefined for text without a DOI', () => {
    expect(findDoi('Version 10.2 of the tool, 10.12/ab is too short a prefix')).toBeUndefined();
  });
});

describe('plausibleTitle', () => {
  it('keeps a real title, its whitespace made single', () => {
    expect(plausibleTitle('  Recovery of Reef Corals\n after Bleaching ')).toBe(
      'Recovery of Reef Corals after Bleaching',
    );
    expect(plausibleTitle('Attention')).toBe('Attention');
  });

  it('drops what word processors, typesetters and publishers write in its place', () => {
    for (const raw of [
      'Microsoft Word - draft3.docx',
      'Microsoft PowerPoint - talk',
      'draft3.docx',
      'paper.tex',
      'main.dvi',
      'jes_2024_0012',
      'MS123-R2',
      'Untitled',
      'untitled document',
      'Title',
      'PII: S0022-1694(14)00123-4',
      'Layout 1',
      'doi:10.5555/x.1',
      '10.5555/x.1',
      'https://example.org/paper',
      '---',
      '',
      undefined,
      42,
    ])
      expect(plausibleTitle(raw), String(raw)).toBeUndefined();
  });
});

describe('splitAuthors', () => {
  it('splits the ways producers list several people', () => {
    expect(splitAuthors('Ana Example; Ben Sample')).toEqual(['Ana Example', 'Ben Sample']);
    expect(splitAuthors('Ana Example, Ben Sample and Cy Third')).toEqual([
      'Ana Example',
      'Ben Sample',
      'Cy Third',
    ]);
    expect(splitAuthors('Ana Example & Ben Sample')).toEqual(['Ana Example', 'Ben Sample']);
    expect(splitAuthors(['Chen Li', 'Dana Roe; Eve Moss'])).toEqual(['Chen Li', 'Dana Roe', 'Eve Moss']);
  });

  it("keeps to the contract's limits on authors", () => {
    expect([MAX_AUTHORS, MAX_AUTHOR_CHARS]).toEqual([SPONGE_LIMITS.authors, SPONGE_LIMITS.authorChars]);
    const many = Array.from({ length: 60 }, (_, i) => `Author Number${i}`).join('; ');
    expect(splitAuthors(many)).toHaveLength(SPONGE_LIMITS.authors);
    expect(splitAuthors(`Ana Example; ${'Long Name '.repeat(30)}`)).toEqual(['Ana Example']);
  });

  it('keeps "Family, Given" whole and drops account names', () => {
    expect(splitAuthors('Example, Ana')).toEqual(['Example, Ana']);
    expect(splitAuthors('Example, Ana; Sample, Ben')).toEqual(['Example, Ana', 'Sample, Ben']);
    for (const raw of ['jsmith', 'Administrator', 'user', '', '  ', undefined])
      expect(splitAuthors(raw)).toEqual([]);
  });
});

describe('typesetLines', () => {
  it("gives page 1's horizontal lines from the top, each at the size most of its characters have", () => {
    const items = [
      at('Coral Reefs in a Warming Sea', 72, 760, 16),
      // A drop capital three lines high beginning the body's first line.
      at('C', 72, 720, 30),
      at('oral reefs are among the most diverse ecosystems.', 87, 720, 10),
      at('arXiv:2101.01234v1 [q-bio.PE]', 20, 400, 20, 'ttb'),
      { ...at('Rotated stamp', 20, 300, 20), transform: [0, 20, -20, 0, 20, 300] },
      at('', 72, 700, 40),
    ];
    expect(typesetLines(items)).toEqual([
      { text: 'Coral Reefs in a Warming Sea', size: 16, y: 760 },
      { text: 'Coral reefs are among the most diverse ecosystems.', size: 10, y: 720 },
    ]);
  });
});

describe('typesetTitle', () => {
  it('joins the largest lines near the top of the page', () => {
    const page = lines(
      ['Journal of Example Studies 12 (2024) 101–109', 8],
      ['Recovery of Reef Corals after', 17],
      ['Repeated Bleaching Events', 17],
      ['Ana Example and Ben Sample', 10],
      ...BODY,
    );
    expect(typesetTitle(page)).toBe('Recovery of Reef Corals after Repeated Bleaching Events');
  });

  it('passes over an arXiv stamp, a journal banner and the venue, however large', () => {
    const page = lines(
      ['arXiv:2101.01234v1 [q-bio.PE] 4 Jan 2021', 18],
      ['Journal of Example Studies', 20],
      ['Example Letters in Ecology', 22],
      ['RESEARCH ARTICLE', 16],
      ['Seagrass Meadows Store Carbon for', 14],
      ['Centuries in Anoxic Sediments', 14],
      ['Eve Moss', 10],
      ...BODY,
    );
    expect(typesetTitle(page, 'Example Letters in Ecology')).toBe(
      'Seagrass Meadows Store Carbon for Centuries in Anoxic Sediments',
    );
  });

  // From the cover pages of libtasn1.pdf (texinfo, pdfTeX) and MIE1.1-20070121.pdf (Word, Quartz) in
  // Debian's /usr/share/doc, as typesetLines reads them.
  it('reads a cover page, where the title is most of the text, and a one-word name with digits', () => {
    const mie = [
      { text: 'MIE 1.1', size: 24, y: 674.64 },
      { text: 'Meta Information Encapsulation', size: 24, y: 632.88 },
      { text: 'File Format Specification', size: 24, y: 591.36 },
      { text: '2007-01-21', size: 18, y: 555.12 },
      { text: '(Rev. 6)', size: 13.4, y: 524.16 },
      { text: 'Copyright 2005-2012, Phil Harvey', size: 13.4, y: 112.08 },
    ];
    expect(typesetTitle(mie)).toBe('MIE 1.1 Meta Information Encapsulation File Format Specification');
    const tasn1 = [
      { text: 'Libtasn1', size: 20.7, y: 561.79 },
      { text: 'Abstract Syntax Notation One (ASN.1) library for the GNU system', size: 10.9, y: 541.65 },
      { text: 'for version 4.19.0, 18 August 2022', size: 10.9, y: 528.7 },
      { text: 'Fabio Fiorina', size: 14.3, y: 146.55 },
      { text: 'Simon Josefsson', size: 14.3, y: 129.61 },
    ];
    expect(typesetTitle(tasn1)).toBe('Libtasn1');
  });

  it('is undefined when no line stands out from the body, or the large lines are low on the page', () => {
    expect(
      typesetTitle(lines(['A first line of text', 12], ...BODY.map(([t]) => [t, 12] as [string, number]))),
    ).toBe(undefined);
    expect(typesetTitle(lines(...BODY, ...BODY, ['Figure 1: A big caption', 16]))).toBeUndefined();
    expect(typesetTitle([])).toBeUndefined();
    // A short note, its footer smaller: a run of more than four lines is text, not a title.
    const note = lines(
      ['Dear colleagues, the survey of the reefs', 12],
      ['will start on Monday at the harbour. Please', 12],
      ['bring your logbooks, your masks and the', 12],
      ['forms for the transects. The boat leaves', 12],
      ['at seven in the morning, whatever the weather.', 12],
      ['Reef survey team', 12],
    );
    expect(typesetTitle([...note, { text: 'Page 1', size: 9, y: 100 }])).toBeUndefined();
  });
});

describe('findAbstract', () => {
  it('takes the lines after an "Abstract" heading up to the next heading', () => {
    const page =
      'Recovery of Reef Corals\n\nAna Example\n\nAbstract\nWe describe how coral cover\nchanged over nine years.\n\n1. Introduction\n\nCoral reefs are diverse.';
    expect(findAbstract(page)).toBe('We describe how coral cover changed over nine years.');
  });

  it('reads an abstract set on the heading’s own line, up to keywords', () => {
    expect(
      findAbstract('Eve Moss\nAbstract. Cores hold carbon.\nThe mud held no oxygen.\nKeywords: seagrass'),
    ).toBe('Cores hold carbon. The mud held no oxygen.');
    expect(findAbstract('ABSTRACT—Cores hold carbon.\nINTRODUCTION\nText.')).toBe('Cores hold carbon.');
    expect(findAbstract('Abstract: Cores hold carbon.')).toBe('Cores hold carbon.');
  });

  it('keeps the paragraphs of a longer abstract', () => {
    expect(findAbstract('ABSTRACT\nFirst part.\nSecond part.\n\nThird part.\n1 Introduction\nBody.')).toBe(
      'First part. Second part.\n\nThird part.',
    );
  });

  it('is at most 5,000 characters, cut at a sentence', () => {
    const sentence = 'Cover fell sharply after each bleaching event on every reef. ';
    const abstract = findAbstract(`Abstract\n${sentence.repeat(200)}`)!;
    expect(abstract.length).toBeLessThanOrEqual(5_000);
    expect(abstract.length).toBeGreaterThan(4_900);
    expect(abstract).toMatch(/reef\.$/);
  });

  it('is undefined without an Abstract heading', () => {
    expect(
      findAbstract(
        'Libtasn1\nAbstract Syntax Notation One (ASN.1) library for the GNU system\nfor version 4.19.0',
      ),
    ).toBe(undefined);
    expect(findAbstract('Abstracts of the meeting are online.\nWe describe corals.')).toBeUndefined();
    expect(findAbstract('Title\n\nBody text only.')).toBeUndefined();
    expect(findAbstract('Abstract\n1. Introduction')).toBeUndefined();
  });
});

describe('paperMetadata', () => {
  const page1 = lines(['Recovery of Reef Corals', 17], ...BODY);
  const empty = { info: {}, xmp: {}, firstPageLines: [], pages: [] };

  it('trusts the Info dictionary, then XMP, then the typeset title', () => {
    const info = { Title: 'From Info', Author: 'Ana Example' };
    const xmp = { 'dc:title': 'From XMP', 'dc:creator': ['Chen Li', 'Dana Roe'] };
    expect(paperMetadata({ ...empty, info, xmp, firstPageLines: page1 })).toMatchObject({
      title: 'From Info',
      authors: ['Ana Example'],
    });
    expect(paperMetadata({ ...empty, xmp, firstPageLines: page1 })).toMatchObject({
      title: 'From XMP',
      authors: ['Chen Li', 'Dana Roe'],
    });
    expect(
      paperMetadata({
        ...empty,
        info: { Title: 'Microsoft Word - draft3.docx', Author: 'jsmith' },
        firstPageLines: page1,
      }),
    ).toEqual({ title: 'Recovery of Reef Corals' });
  });

  it("passes over a Title that is the journal's name", () => {
    const xmp = { 'prism:publicationname': 'Journal of Hydrology' };
    expect(
      paperMetadata({ ...empty, info: { Title: 'Journal of Hydrology' }, xmp, firstPageLines: page1 }).title,
    ).toBe('Recovery of Reef Corals');
  });

  it('takes the DOI from XMP or Info before the page, and the venue from XMP', () => {
    const pages = ['Printed doi:10.5555/PAGE.1'];
    expect(paperMetadata({ ...empty, pages }).doi).toBe('10.5555/page.1');
    expect(
      paperMetadata({ ...empty, pages, xmp: { 'prism:doi': 'https://doi.org/10.5555/XMP.1' } }).doi,
    ).toBe('10.5555/xmp.1');
    expect(paperMetadata({ ...empty, pages, xmp: { 'dc:identifier': 'doi:10.5555/ID.1' } }).doi).toBe(
      '10.5555/id.1',
    );
    expect(paperMetadata({ ...empty, pages, info: { Custom: { doi: '10.5555/INFO.1' } } }).doi).toBe(
      '10.5555/info.1',
    );
    expect(paperMetadata({ ...empty, xmp: { 'prism:publicationname': ' Example  Letters ' } }).venue).toBe(
      'Example Letters',
    );
  });

  it('takes the year from the publication date or one printed as such, never from when the file was made', () => {
    const info = { CreationDate: "D:20261206081605Z00'00'" };
    expect(paperMetadata({ ...empty, info, xmp: { 'xmp:createdate': '2025-01-01' } }).year).toBeUndefined();
    const printed = (page: string) => paperMetadata({ ...empty, info, pages: [page] }).year;
    expect(printed('Reef Corals\n\n© 2017 Macmillan Publishers Limited.')).toBe(2017);
    expect(printed('Copyright (c) 2009 Elsevier B.V. All rights reserved.')).toBe(2009);
    expect(printed('Received 2 May 2016 · Published: 16 March 2017')).toBe(2017);
    expect(printed('Published online 2018-03-08 in Wiley Online Library')).toBe(2018);
    // A year in the text is not the paper's.
    expect(printed('Surveys from 2016 to 2019 found 12 reefs bleached.')).toBeUndefined();
    expect(paperMetadata({ ...empty, info, xmp: { 'dc:date': ['2023-06-01'] } }).year).toBe(2023);
    expect(paperMetadata({ ...empty, info, xmp: { 'prism:publicationdate': '2019-02' } }).year).toBe(2019);
    expect(paperMetadata({ ...empty, info: { CreationDate: 'D:00010101' } }).year).toBeUndefined();
    expect(paperMetadata({ ...empty, xmp: { 'dc:date': 'sometime' } }).year).toBeUndefined();
  });

  it('has nothing where nothing is said', () => {
    expect(paperMetadata(empty)).toEqual({});
    expect(
      paperMetadata({ ...empty, info: { Title: 42, Author: ['x'] }, xmp: { 'dc:title': { a: 1 } } }),
    ).toEqual({});
  });
});
