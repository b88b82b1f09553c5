import { describe, expect, it } from 'vitest';
import { FORGOTTEN_NOTE, forgetMentions, mayNameNotes, noteMentions } from './index.ts';

const forget = (text: string, names: string[]) => forgetMentions(text, noteMentions(text, names));

describe('noteMentions and forgetMentions', () => {
  it('finds each whole mention of a name, in backticks or not', () => {
    const text = 'I remembered lead:much-kelp and `todo:check-table`, then lead:much-kelp again.';
    expect(noteMentions(text, ['lead:much-kelp', 'todo:check-table'])).toEqual([
      [13, 27],
      [32, 50],
      [57, 71],
    ]);
    expect(forget(text, ['lead:much-kelp', 'todo:check-table'])).toBe(
      `I remembered ${FORGOTTEN_NOTE} and ${FORGOTTEN_NOTE}, then ${FORGOTTEN_NOTE} again.`,
    );
  });

  it('leaves a longer name, a name inside a word and other records alone', () => {
    const names = ['lead:kelp', 'lead:kelp.v2'];
    expect(forget('lead:kelps and xlead:kelp and lead:kelp-2 and finding:kelp stay.', names)).toBe(
      'lead:kelps and xlead:kelp and lead:kelp-2 and finding:kelp stay.',
    );
    // The longest name that matches wins; a full stop after a name ends the sentence, not the name.
    expect(forget('See lead:kelp.v2. And lead:kelp.', names)).toBe(
      `See ${FORGOTTEN_NOTE}. And ${FORGOTTEN_NOTE}.`,
    );
  });

  it('counts in UTF-16 units, as JavaScript slices, past characters outside the BMP', () => {
    const text = '𝛼 🐟 lead:fish';
    const [span] = noteMentions(text, ['lead:fish']);
    expect(text.slice(...span!)).toBe('lead:fish');
  });

  it('says when a text cannot name a note at all, so nothing need be read to find out', () => {
    expect(mayNameNotes('One more. See https://example.org at 10:30.')).toBe(false);
    expect(mayNameNotes('See lead:kelp.')).toBe(true);
  });

  it('ignores spans that do not fit the text (a text changed since), and no names finds none', () => {
    expect(noteMentions('anything', [])).toEqual([]);
    expect(forgetMentions('short', [[2, 40]])).toBe('short');
    expect(forgetMentions('short', [])).toBe('short');
  });
});
