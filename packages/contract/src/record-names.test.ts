import { NAME_RE } from '@oh/schema';
import { describe, expect, it } from 'vitest';
import { recordNameFrom, uniqueRecordName } from './index.ts';

describe('recordNameFrom', () => {
  it("names a record from its statement's words, in lowercase ASCII", () => {
    expect(recordNameFrom('finding', 'The kelp canopy recovered 37 percent by 2021.')).toBe(
      'finding:kelp-canopy-recovered-37-percent-by-2021',
    );
    expect(recordNameFrom('study', 'Western Cape reef survey')).toBe('study:western-cape-reef-survey');
  });

  it('keeps the words that make it read, and a decimal as a number', () => {
    expect(recordNameFrom('finding', 'Bleaching starts at 1.10 °C above the mean & spreads')).toBe(
      'finding:bleaching-starts-at-1.10-c-above-the-mean-and-spreads',
    );
    expect(recordNameFrom('finding', 'Cover fell 12%.')).toBe('finding:cover-fell-12-percent');
    expect(recordNameFrom('finding', 'A')).toBe('finding:a');
  });

  it('turns accented letters into their ASCII letters and drops other signs', () => {
    expect(recordNameFrom('publication', 'Économie de la mer — Müller, Ørsted (2019)')).toBe(
      'publication:economie-de-la-mer-muller-rsted-2019',
    );
  });

  it('cuts a long statement at a word boundary near 60 characters', () => {
    const text =
      'Sea otters returning to the outer coast reduced urchin density by half within three years of resettlement';
    const name = recordNameFrom('finding', text);
    const slug = name.slice('finding:'.length);
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(text.toLowerCase().replace(/ /g, '-')).toContain(slug);
    expect(slug).toBe('sea-otters-returning-to-the-outer-coast-reduced-urchin');
    expect(recordNameFrom('finding', 'x'.repeat(200))).toBe(`finding:${'x'.repeat(60)}`);
  });

  it('names a statement without ASCII words by a stable hash of it', () => {
    const a = recordNameFrom('finding', '海藻林の回復');
    expect(a).toMatch(/^finding:record-[0-9a-f]{8}$/);
    expect(recordNameFrom('finding', '海藻林の回復')).toBe(a);
    expect(recordNameFrom('finding', '海藻林')).not.toBe(a);
    expect(recordNameFrom('finding', '')).toMatch(/^finding:record-[0-9a-f]{8}$/);
    expect(recordNameFrom('finding', '...')).toMatch(/^finding:record-[0-9a-f]{8}$/);
  });

  it('always gives a valid name, and refuses a kind that is not one', () => {
    for (const text of ['-x-', '1.', '.5 percent', 'a  b\n\tc', '%', 'the the', 'ǅemal', '1.2.3.4'])
      expect(recordNameFrom('finding', text), text).toMatch(NAME_RE);
    expect(() => recordNameFrom('Finding', 'x')).toThrow(/not a kind/);
  });
});

describe('uniqueRecordName', () => {
  it('keeps a free name and numbers a taken one from 2', () => {
    expect(uniqueRecordName('study:reef-survey', new Set())).toBe('study:reef-survey');
    const taken = new Set(['study:reef-survey', 'study:reef-survey-2']);
    expect(uniqueRecordName('study:reef-survey', taken)).toBe('study:reef-survey-3');
  });

  it('shortens the slug when the suffix would not fit in a name', () => {
    const base = `finding:${'a'.repeat(96)}`;
    const name = uniqueRecordName(base, new Set([base]));
    expect(name).toBe(`finding:${'a'.repeat(94)}-2`);
    expect(name).toMatch(NAME_RE);
  });
});
