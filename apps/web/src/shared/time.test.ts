import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  formatAgo,
  formatAtWhen,
  formatCalendarDate,
  formatDate,
  formatDuration,
  formatWhen,
} from './time.ts';

// Local-time dates, so the tests hold in any time zone.
const at = (d: number, h: number, m = 0, month = 2) => new Date(2026, month, d, h, m).getTime();
const iso = (ms: number) => new Date(ms).toISOString();
// ICU puts a narrow no-break space before AM/PM; the tests read it as a space.
const plain = (s: string) => s.replace(/[\u202f\u00a0]/gu, ' ');

/** The reader's browser states these locales. */
const reader = (...languages: string[]) => vi.stubGlobal('navigator', { languages });
afterEach(() => vi.unstubAllGlobals());

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

describe('a moment, in one style (a British reader)', () => {
  beforeEach(() => reader('en-GB'));
  const now = at(10, 14, 2);
  it('names today, yesterday and tomorrow after the time', () => {
    expect(formatWhen(iso(at(10, 14, 2)), now)).toBe('14:02 today');
    expect(formatWhen(iso(at(10, 0, 13)), now)).toBe('00:13 today');
    expect(formatWhen(iso(at(9, 8)), now)).toBe('08:00 yesterday');
    expect(formatWhen(iso(at(11, 14, 2)), now)).toBe('14:02 tomorrow');
  });
  it('gives any other day its date and year, then the time', () => {
    expect(formatWhen(iso(at(6, 14, 2, 11)), now)).toBe('6 Dec 2026, 14:02');
    expect(formatWhen(iso(at(3, 9, 5)), now)).toBe('3 Mar 2026, 09:05');
    expect(formatDate(iso(at(9, 23, 30)))).toBe('9 Mar 2026');
  });
  it("gives a record's calendar date in the same style, whatever the reader's time zone", () => {
    expect(formatCalendarDate('2021-06-01')).toBe('1 Jun 2021');
    expect(formatCalendarDate('2021-06')).toBe('Jun 2021');
    expect(formatCalendarDate('2021')).toBe('2021');
    expect(formatCalendarDate('around 2021')).toBe('around 2021');
  });
  it('reads after a verb', () => {
    expect(formatAtWhen(iso(at(10, 15, 20)), now)).toBe('at 15:20 today');
    expect(formatAtWhen(iso(at(3, 9, 5)), now)).toBe('on 3 Mar 2026, 09:05');
  });
  it('never mixes a 12-hour clock with seconds into it', () => {
    const moment = iso(at(6, 0, 13, 11));
    expect(formatWhen(moment, at(6, 1, 0, 11))).toBe('00:13 today');
    expect(formatWhen(moment, now)).not.toMatch(/AM|PM|:\d\d:\d\d|\//u);
  });
});

describe("a moment in an American reader's locale", () => {
  beforeEach(() => reader('en-US'));
  const now = at(10, 14, 2);
  it('uses their clock and date order, in the same shape', () => {
    expect(plain(formatWhen(iso(at(10, 14, 2)), now))).toBe('2:02 PM today');
    expect(plain(formatWhen(iso(at(6, 0, 13, 11)), now))).toBe('Dec 6, 2026, 12:13 AM');
    expect(formatDate(iso(at(9, 23, 30)))).toBe('Mar 9, 2026');
  });
});

describe('how long ago, in one style', () => {
  beforeEach(() => reader('en-GB'));
  const now = at(10, 14, 2);
  it('reads as minutes, hours, then days', () => {
    expect(formatAgo(iso(now - 20_000), now)).toBe('just now');
    expect(formatAgo(iso(now - 2 * 60_000), now)).toBe('2 min ago');
    expect(formatAgo(iso(now - 5 * 60_000), now)).toBe('5 min ago');
    expect(formatAgo(iso(at(10, 9, 0)), now)).toBe('5 h ago');
    expect(formatAgo(iso(at(9, 23, 0)), now)).toBe('yesterday');
    expect(formatAgo(iso(at(6, 12, 0)), now)).toBe('4 days ago');
    expect(formatAgo(iso(at(1, 12, 0)), now)).toBe('on 1 Mar 2026');
  });
  it('says yesterday for last night, even under a day ago', () => {
    expect(formatAgo(iso(at(9, 23, 0)), at(10, 0, 30))).toBe('yesterday');
  });
});
