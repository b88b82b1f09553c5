import { describe, expect, it } from 'vitest';
import { unitProblem } from './units.ts';

describe('unitProblem', () => {
  it.each([
    'mg',
    'kg',
    'ug',
    'mmol/L',
    'mg/dL',
    'm/s2',
    'm.s-2',
    'kg.m2.s-2',
    '%',
    '1',
    '100',
    '{ratio}',
    'mg{creat}',
    'mm[Hg]',
    'cm[H2O]',
    '10*3/uL',
    '10*-3',
    'Cel',
    '[degF]',
    '[lb_av]',
    'ug/(kg.d)',
    '/min',
    'kPa',
    'dB',
    'mol',
    'cd',
    'Pa',
    'min',
    'h',
    'a',
    'mo',
    '[in_i]',
    'KiBy',
    'kHz',
    '[IU]/L',
    'g/(m2.d)',
    "'",
  ])('accepts %s', (unit) => {
    expect(unitProblem(unit)).toBeNull();
  });

  it.each([
    ['', /cannot be empty/],
    ['furlongs', /unknown unit "furlongs"/],
    ['kmin', /unknown unit "kmin"/], // minutes take no prefix
    ['da', /unknown unit "da"/],
    ['mg / dL', /spaces or non-ASCII/],
    ['µg', /spaces or non-ASCII/],
    ['m/', /ends where a unit was expected/],
    ['(m/s', /missing "\)"/],
    ['m)', /unexpected "\)"/],
    ['mg{x', /missing "}"/],
    ['m123', /exponent "123" is out of range/],
    ['-1', /is not a unit/],
    ['x'.repeat(65), /at most 64 characters/],
  ])('refuses %s', (unit, message) => {
    expect(unitProblem(unit)).toMatch(message);
  });
});
