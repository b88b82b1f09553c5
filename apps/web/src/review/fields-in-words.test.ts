import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fieldsAsText,
  fieldsInWords,
  profileFieldsOf,
  recordTitle,
  referenceWords,
  titlesOf,
  type FieldSpecs,
} from './fields-in-words.ts';

// A British reader: dates below are in their words.
beforeAll(() => vi.stubGlobal('navigator', { languages: ['en-GB'] }));
afterAll(() => vi.unstubAllGlobals());

const field = (name: string, spec: FieldSpecs[number]['codec']['spec'], description = '') => ({
  name,
  description,
  codec: { spec },
});

/** Research's finding as `profiles.preview` gives it: required first, then by name. */
const FINDING: FieldSpecs = [
  field('statement', { type: 'text', maxLength: 2000 }, 'The finding in one or two sentences.'),
  field('study', { type: 'ref', kinds: ['study'] }, 'The study that makes the finding.'),
  field('effect', { type: 'quantity' }, 'Effect size with its unit.'),
  field('effectMeasure', { type: 'enum', values: ['percent-change', 'odds-ratio'] }),
  field('interval', {
    type: 'object',
    fields: {
      low: { codec: { type: 'decimal' }, required: true, description: '' },
      high: { codec: { type: 'decimal' }, required: true, description: '' },
      level: { codec: { type: 'decimal' }, required: true, description: '' },
    },
  }),
  field('pValue', { type: 'decimal', min: '0', max: '1' }),
  field('sample', { type: 'ref', kinds: ['sample'] }),
];

const PUBLICATION: FieldSpecs = [
  field('status', { type: 'enum', values: ['preprint', 'published'] }),
  field('title', { type: 'text', maxLength: 1000 }),
  field('authors', { type: 'list', of: { type: 'text', maxLength: 300 }, maxItems: 500 }),
  field('language', { type: 'language' }),
  field('published', { type: 'date' }),
  field('versions', {
    type: 'list',
    maxItems: 20,
    of: {
      type: 'object',
      fields: {
        status: {
          codec: { type: 'enum', values: ['preprint', 'published'] },
          required: true,
          description: '',
        },
        date: { codec: { type: 'date' }, required: true, description: '' },
      },
    },
  }),
];

const titles = titlesOf([
  {
    name: 'study:western-cape-reef-survey',
    text: 'The Western Cape reef survey.',
    fields: { title: 'Western Cape reef survey', design: 'cohort' },
  },
]);

describe('fieldsInWords', () => {
  const kelp = {
    statement: 'The kelp canopy recovered 37 percent by 2021.',
    study: 'study:western-cape-reef-survey',
    effect: { value: '37', unit: '%' },
    effectMeasure: 'percent-change',
    interval: { low: '30', high: '44', level: '0.95' },
    pValue: '0.001',
  };

  it('reads a finding in words: a quantity with its unit, the interval with its level, the study by its title', () => {
    const lines = fieldsInWords('finding', kelp, FINDING, titles);
    expect(fieldsAsText(lines)).toBe(
      [
        'Statement: The kelp canopy recovered 37 percent by 2021.',
        'From study: Western Cape reef survey',
        'Effect: 37 %',
        'Effect measure: Percent change',
        '95% interval: 30–44 %',
        'P-value: 0.001',
      ].join('\n'),
    );
    expect(lines.find((l) => l.name === 'statement')?.help).toBe('The finding in one or two sentences.');
  });

  it('never shows JSON, a kind:slug name or a camelCase field, with or without the pack', () => {
    for (const specs of [FINDING, null]) {
      const text = fieldsAsText(
        fieldsInWords('finding', { ...kelp, sample: 'sample:reef-sites-112' }, specs, titles),
      );
      expect(text).not.toMatch(/[{}"]|\b[a-z]+:[a-z0-9-]+\b|\b[a-z]+[A-Z][a-z]+\b/u);
      expect(text).toContain('Effect: 37 %');
      expect(text).toContain('95% interval: 30–44 %');
      // A record not in view reads by its own name's words.
      expect(text).toContain('In sample: Reef sites 112');
    }
  });

  it('gives units as they are written after a number', () => {
    const effect = (unit: string) =>
      fieldsAsText(fieldsInWords('finding', { effect: { value: '1.10', unit } }, FINDING, titles));
    expect(effect('Cel')).toBe('Effect: 1.10 °C');
    expect(effect('mm[Hg]')).toBe('Effect: 1.10 mmHg');
    expect(effect('1')).toBe('Effect: 1.10');
    expect(effect('kg/m2')).toBe('Effect: 1.10 kg/m2');
  });

  it('reads dates, languages, enums and lists as text', () => {
    const lines = fieldsInWords(
      'publication',
      {
        title: 'Reef recovery after the 2016 bleaching',
        status: 'published',
        authors: ['Hughes, T.', 'Kerry, J.'],
        language: 'en-GB',
        published: '2021-06-01',
        versions: [
          { status: 'preprint', date: '2020-11' },
          { status: 'published', date: '2021-06-01' },
        ],
      },
      PUBLICATION,
      titles,
    );
    expect(fieldsAsText(lines)).toBe(
      [
        'Status: Published',
        'Title: Reef recovery after the 2016 bleaching',
        'Authors: Hughes, T.; Kerry, J.',
        'Language: British English',
        'Published on: 1 Jun 2021',
        'Versions: Status: Preprint, Date: Nov 2020; Status: Published, Date: 1 Jun 2021',
      ].join('\n'),
    );
  });

  it('lists a study’s publications by their titles', () => {
    const refs = titlesOf([
      {
        name: 'publication:hughes-2017',
        text: 'Hughes et al.',
        fields: { title: 'Global warming and coral bleaching' },
      },
    ]);
    const study: FieldSpecs = [
      field('reportedIn', { type: 'list', of: { type: 'ref', kinds: ['publication'] }, maxItems: 20 }),
    ];
    expect(
      fieldsAsText(
        fieldsInWords(
          'study',
          { reportedIn: ['publication:hughes-2017', 'publication:kerry-2018'] },
          study,
          refs,
        ),
      ),
    ).toBe('Reported in: Global warming and coral bleaching; Kerry 2018');
  });
});

describe('titles and references', () => {
  it('names a record by its title, its name, else its statement', () => {
    expect(recordTitle({ text: 'x', fields: { title: ' Western Cape reef survey ' } })).toBe(
      'Western Cape reef survey',
    );
    expect(recordTitle({ text: 'x', fields: { name: 'Photo quadrats' } })).toBe('Photo quadrats');
    expect(recordTitle({ text: 'Kelp recovered.', fields: null })).toBe('Kelp recovered.');
  });
  it('refers to a record by its title, else by the words of its name', () => {
    expect(referenceWords('study:western-cape-reef-survey', titles)).toBe('Western Cape reef survey');
    expect(referenceWords('study:reef-resurvey-2016', titles)).toBe('Reef resurvey 2016');
  });
  it('finds the fields inside a reviewed record’s data', () => {
    expect(profileFieldsOf({ profile: 'research', version: '1.0.0', fields: { title: 't' } })).toEqual({
      title: 't',
    });
    expect(profileFieldsOf({ source: {} })).toBeNull();
    expect(profileFieldsOf(null)).toBeNull();
  });
});
