import { describe, expect, it } from 'vitest';
import { findQuote, quoteForm } from './quote.ts';

/** Pages joined as the API joins them, with the offsets it reports. */
function joined(pages: string[]): { text: string; pageStarts: number[] } {
  const pageStarts: number[] = [];
  let text = '';
  pages.forEach((p, i) => {
    if (i > 0) text += '\n\n';
    pageStarts.push(text.length);
    text += p;
  });
  return { text, pageStarts };
}

const at = (text: string, span: { start: number; end: number } | null) =>
  span && text.slice(span.start, span.end);

describe('quoteForm', () => {
  it('folds case, ligatures and spacing as the server does', () => {
    expect(quoteForm('  The  ﬁrst\nSurvey ')).toBe('the first survey');
  });
});

describe('findQuote', () => {
  const { text, pageStarts } = joined([
    'Methods. Divers counted 42 photo quadrats per site.',
    'Results. Cover rose by a third\nwithin four years.',
    'Discussion. Grazing fish decided recovery.',
    'Appendix. Photo quadrats per site were counted twice.',
  ]);

  it('finds the quote on its page, whatever its case and spacing', () => {
    const span = findQuote(text, pageStarts, 2, 'cover ROSE by a third within   four years');
    expect(at(text, span)).toBe('Cover rose by a third\nwithin four years');
  });

  it('accepts the page before or after, as the server verifies', () => {
    expect(at(text, findQuote(text, pageStarts, 2, 'Grazing fish decided recovery.'))).toBe(
      'Grazing fish decided recovery.',
    );
    expect(at(text, findQuote(text, pageStarts, 2, '42 photo quadrats'))).toBe('42 photo quadrats');
    // Two pages off is not the cited passage: the server called it unverified.
    expect(findQuote(text, pageStarts, 1, 'Grazing fish decided recovery.')).toBeNull();
    expect(findQuote(text, pageStarts, 4, '42 photo quadrats')).toBeNull();
  });

  it('prefers the match on the cited page itself', () => {
    const twice = joined(['Grazing fish returned.', 'Later, grazing fish returned.', 'The end.']);
    const onTwo = findQuote(twice.text, twice.pageStarts, 2, 'grazing fish returned');
    expect(onTwo?.start).toBe(twice.text.lastIndexOf('grazing fish returned'));
    const onOne = findQuote(twice.text, twice.pageStarts, 1, 'grazing fish returned');
    expect(onOne?.start).toBe(0);
    // Neither on page 3: the first one in reach (page 2).
    const onThree = findQuote(twice.text, twice.pageStarts, 3, 'grazing fish returned');
    expect(onThree?.start).toBe(twice.text.lastIndexOf('grazing fish returned'));
  });

  it('finds a quote that runs over a page break', () => {
    const span = findQuote(text, pageStarts, 2, 'within four years. Discussion. Grazing');
    expect(at(text, span)).toBe('within four years.\n\nDiscussion. Grazing');
  });

  it('maps a folded ligature back to the stored text', () => {
    const doc = 'The ﬁrst survey ended.';
    expect(at(doc, findQuote(doc, [0], 1, 'the first survey'))).toBe('The ﬁrst survey');
    // Combining marks stay with their letter: a decomposed é matches a composed one.
    const accented = 'Un releve\u0301 complet.';
    expect(at(accented, findQuote(accented, [0], 1, 'RELEV\u00c9'))).toBe('releve\u0301');
  });

  it('is null when the quote is not there, the page is not the document’s, or the quote is blank', () => {
    expect(findQuote(text, pageStarts, 2, 'coral bleaching threshold')).toBeNull();
    expect(findQuote(text, pageStarts, 9, 'Cover rose')).toBeNull();
    expect(findQuote(text, pageStarts, 0, 'Cover rose')).toBeNull();
    expect(findQuote(text, pageStarts, 2, '   ')).toBeNull();
  });

  it('searches the whole text without a page, or without page offsets', () => {
    expect(at(text, findQuote(text, pageStarts, null, 'twice'))).toBe('twice');
    expect(at(text, findQuote(text, null, 1, 'twice'))).toBe('twice');
  });
});
