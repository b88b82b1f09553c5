import { describe, expect, it } from 'vitest';
import { memoryCardHeadline, recallEntryWords, recallsHeading } from './memory-card.ts';

describe('memoryCardHeadline', () => {
  it('says Remembered for writes and Recalled for recalls, one note or many', () => {
    expect(memoryCardHeadline({ action: 'remembered', count: 1, removed: 0 })).toBe('Remembered 1 note');
    expect(memoryCardHeadline({ action: 'remembered', count: 3, removed: 0 })).toBe('Remembered 3 notes');
    expect(memoryCardHeadline({ action: 'recalled', count: 2, removed: 0, mode: 'live', found: 2 })).toBe(
      'Recalled 2 notes',
    );
  });

  it('says Removed for a call that only removed notes', () => {
    expect(memoryCardHeadline({ action: 'remembered', count: 2, removed: 2 })).toBe('Removed 2 notes');
    expect(memoryCardHeadline({ action: 'remembered', count: 1, removed: 1 })).toBe('Removed 1 note');
  });

  it('names both parts of a mixed call', () => {
    expect(memoryCardHeadline({ action: 'remembered', count: 3, removed: 1 })).toBe(
      'Remembered 2 notes · removed 1',
    );
    expect(memoryCardHeadline({ action: 'remembered', count: 2, removed: 1 })).toBe(
      'Remembered 1 note · removed 1',
    );
  });
});

describe('a recall, in the transcript and in the Memory panel alike', () => {
  // One recall in shadow mode: the index found 2 similar notes, none was shown to the agent.
  const shadow = { action: 'recalled' as const, count: 0, removed: 0, mode: 'shadow' as const, found: 2 };
  const live = { action: 'recalled' as const, count: 3, removed: 0, mode: 'live' as const, found: 3 };

  it('says what recall found, not the rows the agent was shown (0 in shadow mode)', () => {
    expect(memoryCardHeadline(shadow)).toBe('Found 2 similar notes — not shown to the agent');
    expect(memoryCardHeadline({ ...shadow, found: 1 })).toBe('Found 1 similar note — not shown to the agent');
    expect(memoryCardHeadline({ ...shadow, found: 0 })).toBe(
      'Found no similar notes — not shown to the agent',
    );
    expect(memoryCardHeadline(live)).toBe('Recalled 3 notes');
  });

  it("gives the panel's entry the same count as the transcript's card", () => {
    // The panel lists the names recall found for that same recall: 2 of them.
    expect(recallEntryWords({ mode: 'shadow', found: 2 }, ['shadow'])).toBe('found 2 similar notes');
    expect(recallEntryWords({ mode: 'live', found: 3 }, ['live'])).toBe('recalled 3 notes');
    // Beside recalls of the other mode, each says whether the agent saw it.
    expect(recallEntryWords({ mode: 'shadow', found: 2 }, ['shadow', 'live'])).toBe(
      'found 2 similar notes · not shown to the agent',
    );
    expect(recallEntryWords({ mode: 'live', found: 1 }, ['shadow', 'live'])).toBe(
      'recalled 1 note · shown to the agent',
    );
  });

  it('heads the panel\'s list in words: never "Recent recalls (shadow) — shadow: not shown to the agent"', () => {
    expect(recallsHeading(['shadow', 'shadow'])).toBe('Similar notes found (not shown to the agent)');
    expect(recallsHeading(['live'])).toBe('Notes recalled (shown to the agent)');
    expect(recallsHeading(['live', 'shadow'])).toBe('Similar notes found');
  });
});
