import { describe, expect, it } from 'vitest';
import { chatKeyAction } from './chat-keys.ts';

const press = (key: string, more: Partial<Parameters<typeof chatKeyAction>[0]> = {}) =>
  chatKeyAction({ key, shiftKey: false, isComposing: false, ...more });

describe('chatKeyAction', () => {
  it('sends on Enter, also with Ctrl or ⌘ as before', () => {
    expect(press('Enter')).toBe('send');
    expect(press('Enter', { ctrlKey: true })).toBe('send');
    expect(press('Enter', { metaKey: true })).toBe('send');
  });

  it('leaves Shift+Enter (and Alt+Enter) to make a new line', () => {
    expect(press('Enter', { shiftKey: true })).toBeNull();
    expect(press('Enter', { altKey: true })).toBeNull();
  });

  it('never sends while an input method is composing', () => {
    expect(press('Enter', { isComposing: true })).toBeNull();
    // Safari: the composition has ended, but its Enter keydown still carries keyCode 229.
    expect(press('Enter', { keyCode: 229 })).toBeNull();
    expect(press('Enter', { keyCode: 13 })).toBe('send');
  });

  it('ignores every other key', () => {
    expect(press('a')).toBeNull();
    expect(press(' ')).toBeNull();
  });
});
