import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  accessLabel,
  activityLabel,
  anyIndexing,
  excerpt,
  highlight,
  holdsMemory,
  indexLabel,
  inProgress,
  memoryLabel,
  pageLabel,
  pollMs,
  sessionWord,
  shorten,
} from './row-words.ts';
import type { MemoryState, RowIndex } from './row-words.ts';

// Local-time dates, so the tests hold in any time zone.
const at = (d: number, h: number, m = 0) => new Date(2026, 2, d, h, m).getTime();
const iso = (ms: number) => new Date(ms).toISOString();
const now = at(10, 14, 2);
const MIN = 60_000;
// A British reader: the dates below are in their words.
beforeAll(() => vi.stubGlobal('navigator', { languages: ['en-GB'] }));
afterAll(() => vi.unstubAllGlobals());

describe('accessLabel', () => {
  it("names the owner of someone else's document", () => {
    expect(accessLabel('owner', 'Ada Lovelace')).toBe('owner');
    expect(accessLabel('shared', 'Grace Hopper')).toBe('shared by Grace Hopper');
    expect(accessLabel('public', 'Grace Hopper')).toBe('public · from Grace Hopper');
  });
});

describe('activityLabel', () => {
  it('says "added" until something happens, then "active", in the one "ago" style', () => {
    const added = iso(now - 10_000);
    expect(activityLabel({ addedAt: added, lastActivityAt: added }, now)).toBe('added just now');
    expect(activityLabel({ addedAt: iso(at(9, 8)), lastActivityAt: iso(now - 2 * MIN) }, now)).toBe(
      'active 2 min ago',
    );
    expect(activityLabel({ addedAt: iso(at(1, 8)), lastActivityAt: iso(at(9, 23)) }, now)).toBe(
      'active yesterday',
    );
  });
});

const memory = (
  state: MemoryState,
  forgetsAt = now + 21 * 3600_000 + 59 * MIN,
  forgottenAt: string | null = null,
) => ({
  sessionId: 'ses_1',
  state,
  forgetsAt: iso(forgetsAt),
  forgottenAt,
});

describe('sessionWord: one word per state', () => {
  it('names each state once', () => {
    expect(sessionWord(memory('open'), now)).toBe('open');
    expect(sessionWord(memory('expired', now - 1), now)).toBe('expired');
    expect(sessionWord(memory('forgotten', now + MIN, iso(now - MIN)), now)).toBe('forgotten');
    expect(sessionWord(memory('purged', now - MIN), now)).toBe('purged');
    expect(sessionWord(memory('opening'), now)).toBe('opening');
    expect(sessionWord(memory('empty'), now)).toBe('never opened');
  });
  it('reads an open session past its time as expired, before the API has noticed', () => {
    expect(sessionWord(memory('open', now - 1), now)).toBe('expired');
  });
  it('keeps calling a session the owner forgot "forgotten" after the worker has cleared it', () => {
    expect(sessionWord(memory('purged', now + MIN, iso(now - MIN)), now)).toBe('forgotten');
  });
});

describe('memoryLabel', () => {
  it('counts down an open session roughly', () => {
    expect(memoryLabel(memory('open'), now)).toBe('agent memory · open · forgets in 21 h');
    expect(memoryLabel(memory('open', now + 42 * MIN + 10_000), now)).toBe(
      'agent memory · open · forgets in 42 min',
    );
    expect(memoryLabel(memory('open', now + 20_000), now)).toBe(
      'agent memory · open · forgets in under a minute',
    );
  });
  it('reads an open session past its time as expired', () => {
    expect(memoryLabel(memory('open', now - 1), now)).toBe('agent memory · expired · waiting to be purged');
    expect(memoryLabel(memory('expired', now - 1), now)).toBe(
      'agent memory · expired · waiting to be purged',
    );
  });
  it('names the closed states with the same words as the panel and the transcript', () => {
    expect(memoryLabel(memory('forgotten', now, iso(now - MIN)), now)).toBe('agent memory · forgotten');
    expect(memoryLabel(memory('purged', now, iso(now - MIN)), now)).toBe('agent memory · forgotten');
    expect(memoryLabel(memory('purged', now - MIN), now)).toBe('agent memory · purged');
    expect(memoryLabel(memory('opening'), now)).toBe('agent memory · opening');
    expect(memoryLabel(memory('empty'), now)).toBe('agent memory · never opened');
    expect(memoryLabel(null, now)).toBeNull();
  });
  it('tells which sessions still hold notes', () => {
    expect(holdsMemory(memory('open'))).toBe(true);
    expect(holdsMemory(memory('expired', now - 1))).toBe(true);
    expect(holdsMemory(memory('open', now - 1))).toBe(true);
    expect(holdsMemory(memory('forgotten'))).toBe(false);
    expect(holdsMemory(memory('empty'))).toBe(false);
    expect(holdsMemory(null)).toBe(false);
  });
});

describe('indexLabel and anyIndexing', () => {
  const index = (state: RowIndex['state'], done = 0, total = 0, reason: string | null = null): RowIndex => ({
    state,
    done,
    total,
    reason,
    note: null,
  });
  it('shows progress, stays quiet when ready, and says why it failed', () => {
    expect(indexLabel(index('extracting', 0, 0))).toBe('extracting the text…');
    expect(indexLabel(index('extracting', 0, 40))).toBe('extracting the text, page 1 of 40');
    expect(indexLabel(index('extracting', 17, 40))).toBe('extracting the text, page 18 of 40');
    expect(indexLabel(index('extracting', 40, 40))).toBe('extracting the text, page 40 of 40');
    expect(indexLabel(index('recognizing', 0, 12))).toBe('recognizing text, page 1 of 12');
    expect(indexLabel(index('recognizing', 2, 12))).toBe('recognizing text, page 3 of 12');
    expect(indexLabel(index('recognizing', 12, 12))).toBe('recognizing text, page 12 of 12');
    expect(indexLabel(index('indexing', 4, 10))).toBe('indexing… 40%');
    expect(indexLabel(index('indexing', 0, 0))).toBe('indexing…');
    expect(indexLabel(index('indexing', 12, 10))).toBe('indexing… 100%');
    expect(indexLabel(index('ready', 10, 10))).toBeNull();
    expect(indexLabel(null)).toBeNull();
    expect(indexLabel(index('failed', 3, 10, 'the embeddings endpoint timed out'))).toBe(
      'failed: the embeddings endpoint timed out',
    );
  });
  it('polls only while a document is extracting, recognizing or indexing', () => {
    expect(anyIndexing([{ index: index('ready') }, { index: null }])).toBe(false);
    expect(anyIndexing([{ index: index('ready') }, { index: index('indexing', 1, 3) }])).toBe(true);
    expect(anyIndexing([{ index: index('failed') }])).toBe(false);
    expect(anyIndexing([{ index: index('recognizing', 0, 2) }])).toBe(true);
    expect(anyIndexing([{ index: index('extracting') }])).toBe(true);
    expect(inProgress(index('extracting', 3, 9))).toBe(true);
    expect(inProgress(index('failed'))).toBe(false);
    expect(inProgress(null)).toBe(false);
    expect(anyIndexing(undefined)).toBe(false);
  });
});

describe('shorten and pageLabel', () => {
  it('keeps short passages and cuts long ones at a word', () => {
    expect(shorten('  Sea\n surface  temperature. ')).toBe('Sea surface temperature.');
    const long = `${'word '.repeat(60)}end`;
    const cut = shorten(long, 50);
    expect(cut.length).toBeLessThanOrEqual(51);
    expect(cut).toMatch(/^(word )+word…$/);
  });
  it('names the page of a PDF hit only', () => {
    expect(pageLabel(3, 'pdf')).toBe('p. 3');
    expect(pageLabel(1, 'markdown')).toBeNull();
    expect(pageLabel(null, 'pdf')).toBeNull();
  });
});

describe('search hit highlighting', () => {
  it('marks every matched term, case aside, longest first, and never alters the text', () => {
    const text = 'At 8 DHW in 2018 the reef bleached; dhw counts heat. See 10.1038/nature21707 (a DOI).';
    const pieces = highlight(text, ['DHW', '8', '10.1038/nature21707', ' dhw ']);
    expect(pieces.map((p) => p.text).join('')).toBe(text);
    expect(pieces.filter((p) => p.mark).map((p) => p.text)).toEqual([
      '8',
      'DHW',
      'dhw',
      '10.1038/nature21707',
    ]);
    expect(highlight('plain', [])).toEqual([{ text: 'plain', mark: false }]);
    expect(highlight('a (b) c', ['(b)'])).toEqual([
      { text: 'a ', mark: false },
      { text: '(b)', mark: true },
      { text: ' c', mark: false },
    ]);
  });
  it('marks a term only where it is a whole word', () => {
    const marked = (text: string, terms: string[]) =>
      highlight(text, terms)
        .filter((p) => p.mark)
        .map((p) => p.text);
    expect(marked('At 8 DHW in 80 days of 2018', ['8'])).toEqual(['8']);
    expect(marked('one coral, two corals', ['coral'])).toEqual(['coral']);
    expect(marked('two corals, one coral', ['corals', 'coral'])).toEqual(['corals', 'coral']);
  });

  it('starts the excerpt near the first matched term when it lies past the cut', () => {
    const text = `${'filler '.repeat(60)}the marker term here ${'tail '.repeat(40)}`;
    const shown = excerpt(text, ['marker'], 120);
    expect(shown.startsWith('…')).toBe(true);
    expect(shown).toContain('marker');
    expect(excerpt('short marker text', ['marker'])).toBe('short marker text');
    expect(excerpt(text, [], 120)).toBe(shorten(text, 120));
  });
});

describe('how often a page being indexed asks again', () => {
  it('every second while what it reads is small, less often as each answer grows, never past 10 s', () => {
    expect(pollMs(12, 500)).toBe(1000);
    expect(pollMs(1_000, 500)).toBe(2000);
    expect(pollMs(10_000, 500)).toBe(10_000);
    expect(pollMs(2_000_000, 500_000)).toBe(4000);
  });
});
