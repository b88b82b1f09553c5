import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unitProblem } from './units.ts';

/**
 * The `<validation>` cases of the UCUM functional tests (fixtures/ucum, EPL 1.0). Cases inside XML
 * comments are read too: the file comments out one, 1-103 (the empty unit, "strictly not valid"),
 * and we refuse it like the other invalid ones.
 */
function validationCases(): Array<{ id: string; unit: string; valid: boolean }> {
  const xml = readFileSync(new URL('fixtures/ucum/UcumFunctionalTests.xml', import.meta.url), 'utf8');
  const section = xml.slice(xml.indexOf('<validation>'), xml.indexOf('</validation>'));
  const entities: Record<string, string> = { amp: '&', apos: "'", quot: '"', lt: '<', gt: '>' };
  const attr = (tag: string, name: string) =>
    new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]?.replace(/&(\w+);/g, (_m, e: string) => entities[e]!);
  return [...section.matchAll(/<case\b[^>]*\/>/g)].map(([tag]) => ({
    id: attr(tag, 'id')!,
    unit: attr(tag, 'unit')!,
    valid: attr(tag, 'valid') === 'true',
  }));
}

describe('unitProblem against the UCUM functional tests', () => {
  const cases = validationCases();

  it('accepts every valid unit and refuses every invalid one (530 cases)', () => {
    expect(cases).toHaveLength(530);
    const valid = cases.filter((c) => c.valid);
    const invalid = cases.filter((c) => !c.valid);
    const wronglyRefused = valid.filter((c) => unitProblem(c.unit) !== null);
    const wronglyAccepted = invalid.filter((c) => unitProblem(c.unit) === null);
    console.log(
      `UCUM functional tests: ${valid.length - wronglyRefused.length}/${valid.length} valid accepted, ` +
        `${invalid.length - wronglyAccepted.length}/${invalid.length} invalid refused`,
    );
    expect(wronglyRefused.map((c) => `${c.id} ${c.unit}: ${unitProblem(c.unit)}`)).toEqual([]);
    expect(wronglyAccepted.map((c) => `${c.id} ${c.unit}`)).toEqual([]);
    expect([valid.length, invalid.length]).toEqual([490, 40]);
  });

  it('names the unit in every refusal', () => {
    for (const c of cases.filter((x) => !x.valid && x.unit !== '')) {
      expect(unitProblem(c.unit), c.id).toContain(`"${c.unit}"`);
    }
  });
});

describe('unitProblem', () => {
  it.each([
    'mg',
    'ug/(kg.d)',
    'mm[Hg]',
    '10*3/uL',
    "[in_i'Hg]",
    '[foz_br]',
    'dB[10.nV]',
    '/[LPF]',
    'mL/min/{1.73_m2}',
    '{ratio}',
    'kPa',
    'KiBy',
    'Cel',
    'g%',
  ])('accepts %s', (unit) => {
    expect(unitProblem(unit)).toBeNull();
  });

  it.each([
    ['', /^a unit cannot be empty/],
    ['furlongs', /^"furlongs" is not a UCUM unit \(expected a UCUM unit such as mg/],
    ['mg / dL', /^unit "mg \/ dL" has spaces or non-ASCII/],
    [' mg', /has spaces or non-ASCII/], // the library would trim it and say "valid"
    ['µg', /has spaces or non-ASCII characters \(UCUM spells µ as u\)/],
    ['m/', /^"m\/" is not a UCUM unit: It is terminated with the operator "\/"/],
    ['(m/s', /^"\(m\/s" is not a UCUM unit: Missing close parenthesis/],
    ['mg{x', /^"mg\{x" is not a UCUM unit: Missing closing brace/],
    ['ohm', /^"ohm" is not a UCUM unit: The UCUM code for ohm is Ohm. Did you mean Ohm\?/],
    ['mmol/24h', /^"mmol\/24h" is not a UCUM unit: Did you mean 24\.h\?/],
    ['x'.repeat(65), /at most 64 characters/],
  ])('refuses %j in plain words', (unit, message) => {
    expect(unitProblem(unit)).toMatch(message);
  });

  it('refuses a prefix on a non-metric unit, which the library alone would accept', () => {
    expect(unitProblem('kmin')).toBe(
      'unit "kmin": the prefix "k" cannot stand on "min" (minute); UCUM allows prefixes only on metric units',
    );
    expect(unitProblem('mg/da')).toMatch(/the prefix "d" cannot stand on "a" \(year\)/);
    expect(unitProblem('k[in_i]2')).toMatch(/the prefix "k" cannot stand on "\[in_i\]"/);
    expect(unitProblem('k%{x.y}')).toMatch(/the prefix "k" cannot stand on "%"/);
    // Metric atoms, base units and bracketed metric atoms keep their prefixes.
    for (const unit of ['km2', 'ms-1', 'k[IU]/L', 'mCel', 'dam', 'GiBy', 'uB[10.nV]'])
      expect(unitProblem(unit)).toBeNull();
  });

  it('writes nothing to the console when the library fails inside', () => {
    const log = console.log;
    const lines: unknown[] = [];
    console.log = (...args: unknown[]) => void lines.push(args);
    try {
      expect(unitProblem('()')).toMatch(/^"\(\)" is not a UCUM unit/);
      expect(unitProblem('{|}1')).toMatch(/^"\{\|\}1" is not a UCUM unit/);
    } finally {
      console.log = log;
    }
    expect(lines).toEqual([]);
  });
});
