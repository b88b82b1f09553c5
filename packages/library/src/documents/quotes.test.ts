/** The text check behind a verified citation (SPEC §7b): the cited page and its neighbours. */
import { describe, expect, it } from 'vitest';
import { joinPages } from './documents.ts';
import { quoteForm, quoteOnPage } from './quotes.ts';

describe('quoteOnPage', () => {
  const { text, pageStarts: starts } = joinPages(['one alpha', 'two beta', 'three gamma', 'four delta']);

  it('looks on the page and its neighbours only', () => {
    expect(quoteOnPage(text, starts, 1, 'two beta')).toBe(true);
    expect(quoteOnPage(text, starts, 1, 'three')).toBe(false);
    expect(quoteOnPage(text, starts, 4, 'three gamma four')).toBe(true);
    expect(quoteOnPage(text, starts, 4, 'two beta')).toBe(false);
    expect(quoteOnPage(text, starts, 2, 'ONE   alpha two')).toBe(true);
    expect(quoteOnPage(text, starts, 5, 'four delta')).toBe(false);
    expect(quoteOnPage(text, starts, 0, 'one')).toBe(false);
    expect(quoteOnPage(text, starts, 2, '  \n ')).toBe(false);
  });

  it('folds ligatures and case, and treats any run of whitespace as one space', () => {
    expect(quoteForm('The ﬁrst\u00a0 FIELD\n\tseason ')).toBe('the first field season');
  });
});
