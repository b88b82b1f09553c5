import { describe, expect, it } from 'vitest';
import { normalisePassage, passageOccursIn } from './index.ts';

describe('the passage rule', () => {
  const source = 'Recovery was uneven.\n\nSites with high densities of grazing fish regained a third.';

  it('checks a passage on whitespace-normalised text, exactly otherwise', () => {
    expect(passageOccursIn('uneven. Sites   with high', source)).toBe(true);
    expect(passageOccursIn('uneven.\nSites with high', source)).toBe(true);
    expect(passageOccursIn('Uneven. sites with high', source)).toBe(false);
    expect(passageOccursIn('grazing fish regained all', source)).toBe(false);
  });

  it('never finds an empty or blank passage', () => {
    expect(passageOccursIn('', source)).toBe(false);
    expect(passageOccursIn('   ', source)).toBe(false);
    expect(passageOccursIn(' \n\t\u00a0', source)).toBe(false);
  });

  it('folds no-break spaces and line breaks, and compares in NFC', () => {
    expect(normalisePassage('  a\u00a0b\r\n\tc  ')).toBe('a b c');
    // "é" as one code point in the source, as e + combining acute in the passage.
    expect(passageOccursIn('caf\u0065\u0301 au lait', 'Un café au lait.')).toBe(true);
  });

  it('gives the same answer for a passage normalised first (the API checks it so)', () => {
    for (const passage of ['uneven.\n\nSites', '  with high  ', 'Uneven.', '\u00a0third.']) {
      expect(passageOccursIn(normalisePassage(passage), source)).toBe(passageOccursIn(passage, source));
    }
  });
});
