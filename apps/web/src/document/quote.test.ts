import { describe, expect, it } from 'vitest';
import { findQuote, quoteForm, quoteWindow } from './quote.ts';
import { joined } from './testing/joined-pages.ts';

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

describe('quoteWindow', () => {
  it('is the cited page with the pages before and after it, as the server verified it', () => {
    expect(quoteWindow(30, [0, 10, 20], 1)).toEqual({ start: 0, end: 20, cited: { start: 0, end: 10 } });
    expect(quoteWindow(30, [0, 10, 20], 2)).toEqual({ start: 0, end: 30, cited: { start: 10, end: 20 } });
    expect(quoteWindow(50, [0, 10, 20, 30, 40], 4)).toEqual({
      start: 20,
      end: 50,
      cited: { start: 30, end: 40 },
    });
  });
  it('is the whole text without a page, and nothing for a page not the document’s', () => {
    expect(quoteWindow(30, [0, 10, 20], null)).toEqual({ start: 0, end: 30, cited: { start: 0, end: 30 } });
    expect(quoteWindow(30, [0, 10, 20], 4)).toBeNull();
    expect(quoteWindow(30, null, 2)).toBeNull();
  });
});

describe('findQuote in a long text', () => {
  // One page of 2,000,000 characters, as a pasted text is: the page is the whole text. Folding it
  // once took minutes (the folded text was re-read for every character); it is one pass now.
  const paragraphs = Array.from(
    { length: 2_000 },
    (_, i) => `Transect ${i + 1} was surveyed.\n${'Divers counted the photo quadrats. '.repeat(28)}`,
  );
  const text = paragraphs.join('\n\n');

  it('finds a quote at the end of a 2,000,000-character page, where it is', () => {
    expect(text.length).toBeGreaterThan(1_990_000);
    const span = findQuote(text, [0], 1, 'transect 1999 was surveyed. DIVERS counted');
    expect(at(text, span)).toBe('Transect 1999 was surveyed.\nDivers counted');
  });

  it('maps every match of plain text back to where it is, overlapping ones too', () => {
    // Matches overlap ("ab  ab" at 0, "ab\tab" at 4, …); the third is the first on page 2.
    const doc = 'ab  ab\tab\r\n\r\nAB ab.';
    const starts = [0, 13];
    expect(at(doc, findQuote(doc, starts, 1, 'ab ab'))).toBe('ab  ab');
    expect(at(doc, findQuote(doc, starts, 2, 'ab ab'))).toBe('ab\r\n\r\nAB');
    expect(at(doc, findQuote(doc, starts, 2, 'ab ab.'))).toBe('AB ab.');
    // Overlapping matches over runs of spaces: the third is the first that reaches page 2.
    const spaced = 'a  a  a  a  a';
    expect(findQuote(spaced, [0, 10], 2, 'a a a')).toEqual({ start: 6, end: 13 });
    // The same text with a ligature after it is folded character by character: the same places.
    const slow = `${doc} ﬁn`;
    expect(findQuote(`${spaced} ﬁ`, [0, 10], 2, 'a a a')).toEqual({ start: 6, end: 13 });
    for (const [page, quote] of [
      [1, 'ab ab'],
      [2, 'ab ab'],
      [2, 'ab ab.'],
      [1, 'b ab a'],
    ] as const) {
      expect(findQuote(slow, starts, page, quote)).toEqual(findQuote(doc, starts, page, quote));
    }
  });

  it('folds as the server does, whatever mix of plain and other characters', () => {
    const mixed = 'Ａ ﬁne\u00a0ﬂow — e\u0301te\u0301 😀 Straße\tÉTÉ  \n ΣΊΣΥΦΟΙ ǅ x\u0301';
    // The server's form: the whole text through NFKC, lower case, whitespace runs as one space.
    const server = mixed.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
    expect(quoteForm(mixed)).toBe(server);
    const doc = `Before. ${mixed} After.`;
    expect(at(doc, findQuote(doc, [0], 1, server))).toBe(mixed);
  });
});
