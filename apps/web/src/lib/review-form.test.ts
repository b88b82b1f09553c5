import { describe, expect, it } from 'vitest';
import { buildFields, issuesAt, prefill, primaryTextField, proposedName } from './review-form.ts';
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
