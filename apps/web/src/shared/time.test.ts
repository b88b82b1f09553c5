import { describe, expect, it } from 'vitest';
import {
  formatAgo,
  formatDate,
  formatDateAndClock,
  formatDay,
  formatDayAndTime,
  formatDuration,
  formatTimeAndDay,
} from './time.ts';

// Local-time dates, so the tests hold in any time zone.
const at = (d: number, h: number, m = 0) => new Date(2026, 2, d, h, m).getTime();
const iso = (ms: number) => new Date(ms).toISOString();

describe('formatDuration', () => {
  it('reads as hours, minutes and seconds', () => {
    expect(formatDuration((21 * 3600 + 58 * 60 + 7) * 1000)).toBe('21 h 58 m 7 s');
    expect(formatDuration((58 * 60 + 7) * 1000)).toBe('58 m 7 s');
    expect(formatDuration(7_900)).toBe('7 s');
  });
  it('never goes below zero', () => {
    expect(formatDuration(-5_000)).toBe('0 s');
  });
});

describe('days and times', () => {
  const now = at(10, 14, 2);
  it('names today, tomorrow and yesterday, else the date', () => {
    expect(formatDay(iso(at(10, 23, 59)), now)).toBe('today');
    expect(formatDay(iso(at(11, 0, 1)), now)).toBe('tomorrow');
    expect(formatDay(iso(at(9, 8)), now)).toBe('yesterday');
    expect(formatDay(iso(at(3, 8)), now)).toBe('3 Mar');
  });
  it('formats the panel header pieces', () => {
    expect(formatTimeAndDay(iso(at(10, 14, 2)), now)).toBe('14:02 today');
    expect(formatDayAndTime(iso(at(11, 14, 2)), now)).toBe('tomorrow 14:02');
    expect(formatTimeAndDay(iso(at(3, 9, 5)), now)).toBe('09:05, 3 Mar');
  });
  it('gives a far-off moment with its year', () => {
    expect(formatDateAndClock(iso(new Date(2026, 8, 12, 14, 0).getTime()))).toMatch(/^12 Sept? 2026, 14:00$/);
    expect(formatDate(iso(new Date(2026, 2, 9, 23, 30).getTime()))).toBe('9 Mar 2026');
  });
  it('says how long ago', () => {
    expect(formatAgo(iso(now - 20_000), now)).toBe('just now');
    expect(formatAgo(iso(now - 5 * 60_000), now)).toBe('5 m ago');
    expect(formatAgo(iso(now - 2 * 3600_000 - 60_000), now)).toBe('2 h ago');
    expect(formatAgo(iso(now - 3 * 86_400_000), now)).toBe('3 d ago');
  });
});
