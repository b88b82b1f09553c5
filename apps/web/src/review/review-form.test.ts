import { describe, expect, it } from 'vitest';
import {
  addRow,
  assembleGroup,
  buildFields,
  emptyValues,
  issuesAt,
  issuesOfRecord,
  newRef,
  openKey,
  passageCheck,
  passageOnPage,
  prefill,
  primaryTextField,
  removeRow,
  reviewedChoices,
  rewritesOf,
  rowsKey,
  showsNoteSource,
  sourcePrefill,
  statedQuantity,
} from './review-form.ts';
import type { Draft, FieldPreview, FormValues } from './review-form.ts';

const field = (name: string, spec: FieldPreview['codec']['spec'], required = false): FieldPreview => ({
  name,
  description: name,
  required,
  codec: { summary: spec.type, spec },
});

// Research's kinds as profiles.preview describes them (required first, each group by name).
const finding: FieldPreview[] = [
  field('statement', { type: 'text', maxLength: 2000 }, true),
  field('study', { type: 'ref', kinds: ['study'] }, true),
  field('effect', { type: 'quantity' }),
  field('effectMeasure', { type: 'enum', values: ['mean-difference', 'percent-change', 'other'] }),
  field('interval', {
    type: 'object',
    fields: {
      low: { codec: { type: 'decimal' }, required: true, description: 'low' },
      high: { codec: { type: 'decimal' }, required: true, description: 'high' },
      level: { codec: { type: 'decimal', min: '0', max: '1' }, required: true, description: 'level' },
    },
  }),
  field('pValue', { type: 'decimal', min: '0', max: '1' }),
];
const study: FieldPreview[] = [
  field('design', { type: 'enum', values: ['cohort', 'other'] }, true),
  field(
    'reportedIn',
    { type: 'list', of: { type: 'ref', kinds: ['publication'] }, minItems: 1, maxItems: 20 },
    true,
  ),
  field('title', { type: 'text', maxLength: 500 }, true),
  field('methods', { type: 'list', of: { type: 'ref', kinds: ['method'] }, maxItems: 50 }),
];
const publication: FieldPreview[] = [
  field('status', { type: 'enum', values: ['preprint', 'published'] }, true),
  field('title', { type: 'text', maxLength: 1000 }, true),
  field('authors', { type: 'list', of: { type: 'text', maxLength: 300 }, maxItems: 500 }),
  field('size', { type: 'integer' }),
];
const kindFields = (kind: string) => ({ finding, study, publication })[kind as 'finding'] ?? [];

const scriptedNote = {
  text: 'Asked: “How much did the kelp canopy recover?”. “Kelp scan”, p. 1: “The kelp canopy recovered 37 percent by 2021.”',
  data: {
    source: { documentId: 'doc_kelp', page: 1, quote: 'The kelp canopy recovered 37 percent by 2021.' },
  },
};

describe('prefill', () => {
  it('puts the note’s statement (not its question) in the statement, and the quantity it states in the effect', () => {
    expect(prefill(finding, scriptedNote)).toEqual({
      statement: 'The kelp canopy recovered 37 percent by 2021.',
      'effect.value': '37',
      'effect.unit': '%',
    });
  });

  it('takes data keys into the fields they name: parts, lists as rows, a group opened', () => {
    expect(
      prefill([...finding, ...publication.slice(2)], {
        text: 'a third of cover back',
        data: {
          effect: { value: '33.3', unit: '%' },
          interval: { low: '1.0' },
          authors: ['A', 'B'],
          size: 112,
        },
      }),
    ).toEqual({
      statement: 'a third of cover back',
      'effect.value': '33.3',
      'effect.unit': '%',
      [openKey('interval')]: '1',
      'interval.low': '1.0',
      [rowsKey('authors')]: '2',
      'authors.0': 'A',
      'authors.1': 'B',
      size: '112',
    });
  });

  it('starts a required list with one row to fill in', () => {
    expect(emptyValues(study)).toEqual({ [rowsKey('reportedIn')]: '1' });
  });

  it('reads a stated quantity only when the statement states exactly one', () => {
    expect(statedQuantity('Cover recovered 37 percent by 2021.')).toEqual({ value: '37', unit: '%' });
    expect(statedQuantity('Waters warmed by 1.1 °C.')).toEqual({ value: '1.1', unit: 'Cel' });
    expect(statedQuantity('From 80% down to 40%.')).toBeNull();
    expect(statedQuantity('Surveyed 112 sites in 2016.')).toBeNull();
  });

  it('chooses a preferred text field, else the longest', () => {
    expect(primaryTextField(finding)).toBe('statement');
    expect(primaryTextField(study)).toBe('title');
    expect(primaryTextField([field('n', { type: 'integer' })])).toBeNull();
  });
});

describe('buildFields', () => {
  it('turns inputs back into what the API validates, leaving empty ones out', () => {
    expect(
      buildFields(finding, {
        statement: 'x',
        study: ' study:s1 ',
        'effect.value': '1.10',
        'effect.unit': '',
        effectMeasure: '',
        pValue: ' 0.04 ',
      }),
    ).toEqual({
      statement: 'x',
      study: 'study:s1',
      // The unit is sent empty: the API names the missing part (fields.effect.unit).
      effect: { value: '1.10', unit: '' },
      pValue: '0.04',
    });
  });

  it('sends an optional group only once it is opened, and then asks for all its parts', () => {
    const typed = { statement: 'x', 'interval.low': '30', 'interval.high': '44', 'interval.level': '0.95' };
    expect(buildFields(finding, typed)).toEqual({ statement: 'x' });
    expect(buildFields(finding, { ...typed, [openKey('interval')]: '1' })).toEqual({
      statement: 'x',
      interval: { low: '30', high: '44', level: '0.95' },
    });
  });

  it('sends a list’s filled rows as a list, integers as numbers', () => {
    expect(
      buildFields(publication, {
        [rowsKey('authors')]: '3',
        'authors.0': 'Ada',
        'authors.1': ' ',
        'authors.2': 'Grace',
        size: '12',
      }),
    ).toEqual({ authors: ['Ada', 'Grace'], size: 12 });
    // Past the safe range an integer travels as digits.
    expect(buildFields(publication, { size: '9007199254740993' })).toEqual({ size: '9007199254740993' });
  });

  it('adds and removes rows, the later ones moving up', () => {
    let values: FormValues = {
      [rowsKey('authors')]: '3',
      'authors.0': 'A',
      'authors.1': 'B',
      'authors.2': 'C',
      title: 't',
    };
    values = removeRow(values, 'authors', 1);
    expect(values).toEqual({ [rowsKey('authors')]: '2', 'authors.0': 'A', 'authors.1': 'C', title: 't' });
    expect(addRow(values, 'authors')[rowsKey('authors')]).toBe('3');
  });
});

describe('assembleGroup', () => {
  const drafts: Record<string, Draft> = {
    main: {
      kind: 'finding',
      values: { statement: 'The kelp canopy recovered 37 percent by 2021.', study: newRef('s') },
      name: null,
      text: null,
    },
    s: {
      kind: 'study',
      values: {
        title: 'Kelp canopy survey',
        design: 'cohort',
        [rowsKey('reportedIn')]: '1',
        'reportedIn.0': newRef('p'),
      },
      name: null,
      text: null,
    },
    p: {
      kind: 'publication',
      values: { title: 'Kelp canopy survey', status: 'published' },
      name: null,
      text: null,
    },
    orphan: { kind: 'study', values: { title: 'Dropped' }, name: null, text: null },
  };

  it('makes one decision of a finding, its new study and the study’s new publication, named from their statements', () => {
    const group = assembleGroup({ mainId: 'main', drafts, kindFields, taken: new Set() });
    expect(group.main).toEqual({
      draftId: 'main',
      kind: 'finding',
      name: 'finding:kelp-canopy-recovered-37-percent-by-2021',
      text: 'The kelp canopy recovered 37 percent by 2021.',
      fields: {
        statement: 'The kelp canopy recovered 37 percent by 2021.',
        study: 'study:kelp-canopy-survey',
      },
    });
    // Depth first, each once: the order the server's issue paths count (with.0, with.1); the
    // study and the publication share a title and still get two names.
    expect(group.with).toEqual([
      {
        draftId: 's',
        kind: 'study',
        name: 'study:kelp-canopy-survey',
        text: 'Kelp canopy survey',
        fields: {
          design: 'cohort',
          reportedIn: ['publication:kelp-canopy-survey'],
          title: 'Kelp canopy survey',
        },
      },
      {
        draftId: 'p',
        kind: 'publication',
        name: 'publication:kelp-canopy-survey',
        text: 'Kelp canopy survey',
        fields: { status: 'published', title: 'Kelp canopy survey' },
      },
    ]);
  });

  it('keeps generated names clear of reviewed records and of each other; a name the reviewer set is kept', () => {
    const twin = {
      ...drafts,
      p: { ...drafts.p!, kind: 'study', values: { title: 'Kelp canopy survey' } },
      s: {
        ...drafts.s!,
        values: { ...drafts.s!.values, [rowsKey('methods')]: '1', 'methods.0': newRef('p') },
      },
    };
    const group = assembleGroup({
      mainId: 'main',
      drafts: twin,
      kindFields,
      taken: new Set(['study:kelp-canopy-survey']),
    });
    expect(group.with.map((r) => r.name)).toEqual([
      'study:kelp-canopy-survey-2',
      'study:kelp-canopy-survey-3',
    ]);
    const named = assembleGroup({
      mainId: 'main',
      drafts: { ...drafts, main: { ...drafts.main!, name: 'finding:kelp-37', text: 'Kelp back by 37 %.' } },
      kindFields,
      taken: new Set(),
    });
    expect(named.main).toMatchObject({ name: 'finding:kelp-37', text: 'Kelp back by 37 %.' });
  });

  it('names a record with no statement yet by its kind', () => {
    const group = assembleGroup({
      mainId: 'main',
      drafts: { main: { kind: 'finding', values: {}, name: null, text: null } },
      kindFields,
      taken: new Set(),
    });
    expect(group.main.name).toBe('finding:finding');
    expect(group.with).toEqual([]);
  });
});

describe('the server’s issues', () => {
  const issues = [
    { path: 'fields.effect.unit', message: 'a unit cannot be empty' },
    { path: 'fields.effect', message: 'bad' },
    { path: 'with.0.fields.title', message: 'required' },
    { path: 'with.1.fields.reportedIn.0', message: 'not reviewed' },
    { path: 'with.0', message: 'the study as a whole' },
    { path: 'passage', message: 'passage not found in the source' },
  ];

  it('go to the record they are about, paths relative to it', () => {
    expect(issuesOfRecord(issues, null).map((i) => i.path)).toEqual([
      'fields.effect.unit',
      'fields.effect',
      'passage',
    ]);
    expect(issuesOfRecord(issues, 0)).toEqual([
      { path: 'fields.title', message: 'required' },
      { path: '', message: 'the study as a whole' },
    ]);
    expect(issuesOfRecord(issues, 1)).toEqual([{ path: 'fields.reportedIn.0', message: 'not reviewed' }]);
  });

  it('go next to their field, a part named in words', () => {
    expect(issuesAt(issues, 'fields.effect')).toEqual(['Unit: a unit cannot be empty', 'bad']);
    expect(issuesAt(issuesOfRecord(issues, 1), 'fields.reportedIn')).toEqual(['Row 1: not reviewed']);
    expect(issuesAt(issues, 'fields', true)).toEqual([]);
  });
});

describe('reviewedChoices', () => {
  const decision = (
    name: string,
    decision: 'accept' | 'reject',
    fields: Record<string, string> | null,
    text = '',
  ) => ({ name, kind: name.split(':')[0]!, decision, fields, text }) as never;

  it('offers what is in view at the newest revision, by its title', () => {
    expect(
      reviewedChoices([
        decision('study:reef', 'accept', { title: 'Reef resurvey 2016' }),
        decision('study:reef', 'accept', { title: 'Old title' }),
        decision('study:rejected', 'reject', { title: 'Never accepted' }),
        decision('method:quadrats', 'accept', { name: 'Photo quadrats' }),
        decision('finding:x', 'accept', null, 'A finding’s text'),
      ]),
    ).toEqual([
      { name: 'finding:x', kind: 'finding', label: 'A finding’s text' },
      { name: 'method:quadrats', kind: 'method', label: 'Photo quadrats' },
      { name: 'study:reef', kind: 'study', label: 'Reef resurvey 2016' },
    ]);
  });
});

describe('source and passage', () => {
  const source = { documentId: 'doc_methods', page: 4, quote: 'Divers counted 42 photo quadrats per site.' };

  it('opens on the note’s source and page, and on no source at all when the note has none', () => {
    expect(sourcePrefill({ data: { source, effect: 1 } })).toEqual({
      sourceId: 'doc_methods',
      page: 4,
      passage: source.quote,
      noteSource: source,
    });
    const none = { sourceId: '', page: 1, passage: '', noteSource: null };
    expect(sourcePrefill({ data: null })).toEqual(none);
    expect(sourcePrefill({ data: { source: { documentId: 'doc_methods', page: 0, quote: 'x' } } })).toEqual(
      none,
    );
    expect(sourcePrefill({ data: { source: 'doc_methods p. 4' } })).toEqual(none);
  });

  it('takes the page’s own spelling of a quote the agent cased or spaced differently', () => {
    const page = 'Recovery was UNEVEN across\nthe reef flats.';
    expect(passageOnPage(page, 'recovery was uneven across the reef')).toBe(
      'Recovery was UNEVEN across\nthe reef',
    );
    expect(passageOnPage(page, 'recovery was complete')).toBe('recovery was complete');
  });

  it('knows the source as long as the reviewer has not changed it', () => {
    expect(showsNoteSource(source, 'doc_methods', ' Divers counted 42\nphoto quadrats per site. ')).toBe(
      source,
    );
    expect(showsNoteSource(source, 'doc_reef', source.quote)).toBeNull();
    expect(showsNoteSource(source, 'doc_methods', 'Divers counted')).toBeNull();
  });

  it('checks the passage on the page shown, as the API checks it', () => {
    const page = {
      text: 'Methods. Divers counted 42 photo quadrats\nper site.',
      page: 4,
      pages: 40,
      ocr: false,
    };
    expect(passageCheck({ passage: '42 photo quadrats per site', page, fromNote: false })).toEqual({
      tone: 'ok',
      text: '✓ passage found in the source (p. 4)',
    });
    expect(passageCheck({ passage: '43 photo quadrats', page, fromNote: false })).toEqual({
      tone: 'bad',
      text: '✗ passage not found on this page (p. 4): go to its page, or select it below',
    });
    // Case is not folded: the API's check on a decision does not fold it either.
    expect(passageCheck({ passage: 'divers counted', page, fromNote: false }).tone).toBe('bad');
    expect(passageCheck({ passage: 'x', page: { ...page, pages: 1 }, fromNote: false }).text).toBe(
      '✗ passage not found in the source',
    );
  });

  it('says in the note’s terms when its passage or its document is gone, and asks for a source first', () => {
    const page = { text: 'Other words.', page: 2, pages: 9, ocr: false };
    expect(passageCheck({ passage: 'Divers counted', page, fromNote: true }).text).toBe(
      '✗ the note’s passage is no longer found on its page (p. 2): select or paste the passage again',
    );
    expect(passageCheck({ passage: 'x', page: { state: 'missing' }, fromNote: true }).text).toBe(
      '✗ the note’s source document is no longer in your library: choose a source and passage',
    );
    expect(passageCheck({ passage: 'x', page: { state: 'none' }, fromNote: false }).text).toBe(
      'Choose the document the passage is from.',
    );
    expect(passageCheck({ passage: ' ', page, fromNote: false }).text).toBe(
      'Select the passage in the page below, or paste it.',
    );
    expect(passageCheck({ passage: 'x', page: { state: 'loading' }, fromNote: true }).text).toBe(
      'Checking the source…',
    );
  });
});

describe('rewritesOf', () => {
  it('lists what the codecs rewrote in every record of the decision, in words', () => {
    const rewrote = (path: string, from: string, to: string) => ({
      path,
      from,
      to,
      why: 'the preferred form',
    });
    expect(
      rewritesOf({
        normalized: [rewrote('effect.unit', 'percent', '%')],
        with: [
          { kind: 'study', normalized: [] },
          {
            kind: 'publication',
            normalized: [
              rewrote('language', 'en-UK', 'en-GB'),
              rewrote('versions.1.doi', 'DOI:10.1/X', '10.1/x'),
            ],
          },
        ],
      }),
    ).toEqual([
      { where: 'Effect, Unit', from: 'percent', to: '%', why: 'the preferred form' },
      { where: 'New publication, Language', from: 'en-UK', to: 'en-GB', why: 'the preferred form' },
      {
        where: 'New publication, Versions, row 2, DOI',
        from: 'DOI:10.1/X',
        to: '10.1/x',
        why: 'the preferred form',
      },
    ]);
  });
});
