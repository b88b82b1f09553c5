import { describe, expect, it } from 'vitest';
import {
  UNITS,
  codeLabel,
  fieldDescription,
  fieldHelp,
  fieldLabel,
  fittingProfile,
  kindInSentence,
  kindsInWords,
  orderKinds,
  proposalTitle,
  statementFrom,
  unitOf,
} from './words.ts';

describe('labels', () => {
  it('spells a field name out as words', () => {
    expect(fieldLabel('effectMeasure')).toBe('Effect measure');
    expect(fieldLabel('reportedIn')).toBe('Reported in');
    expect(fieldLabel('statement')).toBe('Statement');
    expect(fieldLabel('doi')).toBe('DOI');
    expect(fieldLabel('url')).toBe('Web address');
    expect(fieldLabel('sourceUrl')).toBe('Source web address');
    expect(fieldLabel('page2Count')).toBe('Page 2 count');
  });

  it('reads better where the spelled-out name would not', () => {
    expect(fieldLabel('pValue')).toBe('P-value');
    expect(fieldLabel('study', 'finding')).toBe('From study');
    expect(fieldLabel('study', 'sample')).toBe('Of study');
    expect(fieldLabel('level')).toBe('Confidence level');
  });

  it('never leaves a camelCase word or a code in a label', () => {
    for (const name of ['effectMeasure', 'pValue', 'reportedIn', 'usageExample', 'isoCode', 'maxItems']) {
      expect(fieldLabel(name), name).not.toMatch(/[a-z][A-Z]/);
    }
    expect(codeLabel('randomized-controlled-trial')).toBe('Randomized controlled trial');
    expect(codeLabel('usage-example')).toBe('Usage example');
    expect(kindInSentence('finding')).toBe('a finding');
    expect(kindInSentence('expression-of-concern')).toBe('an expression of concern');
  });

  it('says what a field holds, and how to write what a codec is strict about', () => {
    expect(fieldHelp('Date of the version of record.', { type: 'date' })).toBe(
      'Date of the version of record. Written as 2021-06-01, 2021-06 or 2021.',
    );
    expect(fieldHelp('Reported p-value.', { type: 'decimal', min: '0', max: '1' })).toBe(
      'Reported p-value. A number from 0 to 1.',
    );
    expect(fieldHelp('Title as published.', { type: 'text' })).toBe('Title as published.');
  });

  it('says what a field holds without the codes behind the words', () => {
    const pack = 'Effect size with its unit (1 for a ratio, % for a percentage).';
    expect(fieldDescription('finding', 'effect', pack)).toBe(
      'The size of the effect, with its unit (a ratio has none).',
    );
    expect(fieldDescription('finding', 'statement', 'The finding in one or two sentences.')).toBe(
      'The finding in one or two sentences.',
    );
  });
});

describe('units', () => {
  it('lists units in words with the code behind, each code once', () => {
    expect(unitOf('%')).toEqual({ label: 'percent', code: '%' });
    expect(unitOf('Cel')?.label).toBe('°C');
    expect(unitOf('a')?.label).toBe('years');
    expect(unitOf('d')?.label).toBe('days');
    expect(unitOf('furlong')).toBeNull();
    expect(new Set(UNITS.map((u) => u.code)).size).toBe(UNITS.length);
    for (const wanted of ['percent', '°C', 'mg/L', 'm', 'km', 'kg', 'g', 'mmol/L', 'count', 'years', 'days'])
      expect(UNITS.map((u) => u.label)).toContain(wanted);
  });
});

describe('statementFrom', () => {
  // What the scripted agent keeps (packages/agent/src/runtime/scripted-agent.ts).
  const source = { documentId: 'doc_kelp', page: 1, quote: 'The kelp canopy recovered 37 percent by 2021.' };
  const scripted =
    'Asked: “How much did the kelp canopy recover?”. “Kelp scan”, p. 1: “The kelp canopy recovered 37 percent by 2021.”';

  it('takes the finding sentence, not the question that led to it', () => {
    expect(statementFrom({ text: scripted, data: { source } })).toBe(source.quote);
    expect(statementFrom({ text: scripted, data: null })).toBe(source.quote);
    expect(
      statementFrom({ text: 'Check against “Other”, p. 3: “Urchins grazed the barrens.”', data: null }),
    ).toBe('Urchins grazed the barrens.');
  });

  it('falls back on the source’s quote, and keeps a plain note’s own text', () => {
    expect(statementFrom({ text: 'Asked: “How much?”', data: { source } })).toBe(source.quote);
    expect(statementFrom({ text: 'How much did it recover? About a third.', data: null })).toBe(
      'About a third.',
    );
    expect(statementFrom({ text: 'grazing fish decide recovery', data: { source } })).toBe(
      'grazing fish decide recovery',
    );
    expect(statementFrom({ text: '', data: { source } })).toBe(source.quote);
  });

  it('titles the dialog with the statement, clipped to a line', () => {
    expect(proposalTitle('The kelp canopy recovered.')).toBe(
      'Propose for review: “The kelp canopy recovered.”',
    );
    expect(proposalTitle('x'.repeat(200))).toHaveLength('Propose for review: “”'.length + 90);
    expect(proposalTitle('  ')).toBe('Propose for review');
  });
});

describe('profiles and kinds', () => {
  const packs = [
    { name: 'finance', kinds: ['event', 'filing', 'instrument', 'metric'] },
    { name: 'language', kinds: ['sense', 'term', 'translation', 'usage-example'] },
    { name: 'research', kinds: ['correction', 'finding', 'method', 'publication', 'sample', 'study'] },
  ];
  it('suggests the profile with the note’s kind, else Research', () => {
    expect(fittingProfile(packs, 'term')?.name).toBe('language');
    expect(fittingProfile(packs, 'lead')?.name).toBe('research');
    expect(fittingProfile([], 'lead')).toBeNull();
  });
  it('orders kinds as a researcher meets them, and names them in a sentence', () => {
    expect(orderKinds(packs[2]!.kinds.map((name) => ({ name }))).map((k) => k.name)).toEqual([
      'finding',
      'study',
      'publication',
      'method',
      'sample',
      'correction',
    ]);
    expect(kindsInWords(packs[2]!.kinds)).toBe(
      'findings, studies, publications, methods, samples and corrections',
    );
  });
});
