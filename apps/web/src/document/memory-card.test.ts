import { describe, expect, it } from 'vitest';
import { memoryCardHeadline } from './memory-card.ts';

describe('memoryCardHeadline', () => {
  it('says Remembered for writes and Recalled for recalls, one note or many', () => {
    expect(memoryCardHeadline({ action: 'remembered', count: 1, removed: 0 })).toBe('Remembered 1 note');
    expect(memoryCardHeadline({ action: 'remembered', count: 3, removed: 0 })).toBe('Remembered 3 notes');
    expect(memoryCardHeadline({ action: 'recalled', count: 2, removed: 0 })).toBe('Recalled 2 notes');
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
