import { describe, expect, it } from 'vitest';
import {
  buildFields,
  issuesAt,
  passageCheck,
  prefill,
  primaryTextField,
  proposedName,
  showsNoteSource,
  passageFromSource,
  sourcePrefill,
} from './review-form.ts';
import type { FieldPreview } from './review-form.ts';

const field = (name: string, spec: FieldPreview['codec']['spec'], required = false): FieldPreview => ({
  name,
  description: name,
  required,
  codec: { summary: spec.type, spec },
});

// Research › finding, as profiles.preview describes it (required first).
const finding: FieldPreview[] = [
  field('statement', { type: 'text', maxLength: 2000 }, true),
  field('study', { type: 'ref', kinds: ['study'] }, true),
  field('effect', { type: 'quantity' }),
  field('effectMeasure', { type: 'enum', values: ['mean-difference', 'other'] }),
  field('interval', {
    type: 'object',
    fields: {
      low: { codec: { type: 'decimal' }, required: true, description: 'low' },
      high: { codec: { type: 'decimal' }, required: true, description: 'high' },
    },
  }),
  field('size', { type: 'integer' }),
  field('authors', { type: 'list', of: { type: 'text', maxLength: 300 }, maxItems: 10 }),
];

describe('prefill', () => {
  it('puts the note text in the statement and data keys into the fields they name', () => {
    const values = prefill(finding, {
      text: 'a third of cover back',
      data: {
        effect: { value: '33.3', unit: '%' },
        size: 112,
        interval: { low: '1.0' },
        authors: ['A', 'B'],
        other: 1,
      },
    });
    expect(values).toEqual({
      statement: 'a third of cover back',
      'effect.value': '33.3',
      'effect.unit': '%',
      size: '112',
      'interval.low': '1.0',
      authors: 'A\nB',
    });
    // A number part reads as its digits; an object part as JSON, never "[object Object]".
    expect(prefill(finding, { text: '', data: { effect: { value: 33.3, unit: { si: '%' } } } })).toEqual({
      'effect.value': '33.3',
      'effect.unit': '{"si":"%"}',
    });
  });

  it('chooses a preferred text field, else the longest', () => {
    expect(primaryTextField(finding)).toBe('statement');
    expect(
      primaryTextField([
        field('a', { type: 'text', maxLength: 10 }),
        field('b', { type: 'text', maxLength: 500 }),
      ]),
    ).toBe('b');
    expect(primaryTextField([field('n', { type: 'integer' })])).toBeNull();
  });
});

describe('buildFields', () => {
  it('turns inputs back into the JSON the API validates, leaving empty ones out', () => {
    expect(
      buildFields(finding, {
        statement: 'x',
        study: ' study:s1 ',
        'effect.value': '1.10',
        'effect.unit': '',
        effectMeasure: '',
        'interval.high': '2',
        size: '12',
        authors: 'A\n\n B ',
      }),
    ).toEqual({
      statement: 'x',
      study: 'study:s1',
      // The unit is sent empty: the API names the missing part (fields.effect.unit).
      effect: { value: '1.10', unit: '' },
      interval: { high: '2' },
      size: 12,
      authors: ['A', 'B'],
    });
    // Decimals stay strings: "1.10" is never 1.1.
    expect(buildFields(finding, { 'interval.low': '1.10' })).toEqual({ interval: { low: '1.10' } });
    // An integer past the safe range travels as digits.
    expect(buildFields(finding, { size: '9007199254740993' })).toEqual({ size: '9007199254740993' });
  });
});

describe('names, issues and passages', () => {
  it('names the proposal after the chosen kind', () => {
    expect(proposedName('finding', 'todo:check-figure-3')).toBe('finding:check-figure-3');
  });

  it('places server issues on their field', () => {
    const issues = [
      { path: 'fields.effect.unit', message: 'required' },
      { path: 'fields.effect', message: 'bad' },
      { path: 'fields.effectMeasure', message: 'not one of' },
      { path: 'passage', message: 'passage not found in the source' },
    ];
    expect(issuesAt(issues, 'fields.effect')).toEqual(['unit: required', 'bad']);
    expect(issuesAt(issues, 'passage')).toEqual(['passage not found in the source']);
  });
});

describe('sourcePrefill', () => {
  const source = { documentId: 'doc_methods', page: 4, quote: 'Divers counted 42 photo quadrats per site.' };

  it('takes the source document and passage from the note’s data.source', () => {
    expect(sourcePrefill({ data: { source, effect: 1 } }, 'doc_reef')).toEqual({
      sourceId: 'doc_methods',
      passage: source.quote,
      noteSource: source,
    });
  });

  it('opens on the panel’s document with no passage when the note has no well-formed source', () => {
    const none = { sourceId: 'doc_reef', passage: '', noteSource: null };
    expect(sourcePrefill({ data: null }, 'doc_reef')).toEqual(none);
    expect(sourcePrefill({ data: { effect: 1 } }, 'doc_reef')).toEqual(none);
    expect(
      sourcePrefill({ data: { source: { documentId: 'doc_methods', page: 0, quote: 'x' } } }, 'doc_reef'),
    ).toEqual(none);
    expect(sourcePrefill({ data: { source: 'doc_methods p. 4' } }, 'doc_reef')).toEqual(none);
  });

  it('knows the source as long as the reviewer has not changed it', () => {
    expect(showsNoteSource(source, 'doc_methods', source.quote)).toBe(source);
    // Spacing as the passage check folds it is no change.
    expect(showsNoteSource(source, 'doc_methods', ' Divers counted 42\nphoto quadrats per site. ')).toBe(
      source,
    );
    expect(showsNoteSource(source, 'doc_reef', source.quote)).toBeNull();
    expect(showsNoteSource(source, 'doc_methods', 'Divers counted')).toBeNull();
    expect(showsNoteSource(null, 'doc_methods', source.quote)).toBeNull();
  });
});

describe('passageCheck', () => {
  const text = 'Methods. Divers counted 42 photo quadrats\nper site.';

  it('says whether the passage occurs in the source, as the API checks it', () => {
    expect(
      passageCheck({ passage: '42 photo quadrats per site', source: { text }, fromNote: false }),
    ).toEqual({
      tone: 'ok',
      text: '✓ passage found in the source',
    });
    expect(passageCheck({ passage: '43 photo quadrats', source: { text }, fromNote: false })).toEqual({
      tone: 'bad',
      text: '✗ passage not found in the source',
    });
    // Case is not folded: the API's check on a decision does not fold it either.
    expect(passageCheck({ passage: 'divers counted', source: { text }, fromNote: false }).tone).toBe('bad');
  });

  it('says in the note’s terms when its passage or its document is gone', () => {
    expect(
      passageCheck({ passage: 'Divers counted 42 photo quadrats', source: { text }, fromNote: true }),
    ).toEqual({
      tone: 'ok',
      text: '✓ passage found in the source',
    });
    expect(passageCheck({ passage: 'Divers counted 40 quadrats', source: { text }, fromNote: true })).toEqual(
      {
        tone: 'bad',
        text: '✗ the note’s passage is no longer found in its source document: select or paste the passage again',
      },
    );
    expect(passageCheck({ passage: 'x', source: { state: 'missing' }, fromNote: true }).text).toBe(
      '✗ the note’s source document is no longer in your library: choose a source and passage',
    );
  });

  it('waits for the source, and asks for a passage first', () => {
    expect(passageCheck({ passage: ' ', source: { text }, fromNote: false }).text).toBe(
      'Cite the passage that supports the record.',
    );
    expect(passageCheck({ passage: 'x', source: { state: 'loading' }, fromNote: true })).toEqual({
      tone: '',
      text: 'Checking the source…',
    });
    expect(
      passageCheck({ passage: 'x', source: { state: 'error', message: 'offline' }, fromNote: false }).text,
    ).toBe('Could not load the source: offline');
  });
});

describe('passageFromSource', () => {
  const source = {
    text: 'Page one ends here.\n\nRecovery was UNEVEN across\nthe reef flats.\n\nPage three.',
    pageStarts: [0, 21, 63],
  };
  it("takes the document's own spelling of a quote the agent cased or spaced differently", () => {
    const noteSource = { documentId: 'doc_reef', page: 2, quote: 'recovery was uneven across the reef' };
    const passage = passageFromSource(source, noteSource);
    expect(passage).toBe('Recovery was UNEVEN across\nthe reef');
    expect(source.text).toContain(passage);
  });
  it('keeps the quote as it is when the document does not hold it (the check then says so)', () => {
    const noteSource = { documentId: 'doc_reef', page: 2, quote: 'recovery was complete' };
    expect(passageFromSource(source, noteSource)).toBe('recovery was complete');
  });
});
