import { describe, expect, it } from 'vitest';
import { pageCuts, paragraphSpans, paragraphsOf } from './pages.ts';
import { joined } from './testing/joined-pages.ts';

/** The pages as cut, each as its paragraphs: what the document page draws of each. */
const pagesOf = (text: string, pageStarts: readonly number[] | null) =>
  pageCuts(text.length, pageStarts).map((cut) => ({
    number: cut.number,
    paragraphs: paragraphSpans(text.slice(cut.start, cut.end), cut.start),
  }));

describe('paragraphsOf', () => {
  it('splits on blank lines and keeps lines of one paragraph together', () => {
    expect(paragraphsOf('One\nline two\n\n  \nTwo.\n \nThree.')).toEqual(['One\nline two', 'Two.', 'Three.']);
    expect(paragraphsOf('  \n\n ')).toEqual([]);
  });
});

describe('pageCuts', () => {
  it('cuts at the offsets the API reports', () => {
    const { text, pageStarts } = joined(['Page one.\n\nStill one.', 'Two.', 'Three.']);
    expect(pagesOf(text, pageStarts).map((p) => [p.number, p.paragraphs.map((x) => x.text)])).toEqual([
      [1, ['Page one.', 'Still one.']],
      [2, ['Two.']],
      [3, ['Three.']],
    ]);
  });
  it('keeps a blank page and the numbers after it', () => {
    const { text, pageStarts } = joined(['One.', '', 'Three.']);
    expect(pagesOf(text, pageStarts).map((p) => [p.number, p.paragraphs.map((x) => x.text)])).toEqual([
      [1, ['One.']],
      [2, []],
      [3, ['Three.']],
    ]);
  });
  it('is one page without offsets', () => {
    const one = [
      {
        number: 1,
        paragraphs: [
          { text: 'A.', start: 0 },
          { text: 'B.', start: 4 },
        ],
      },
    ];
    expect(pagesOf('A.\n\nB.', null)).toEqual(one);
    expect(pagesOf('A.\n\nB.', [0])).toEqual(one);
  });
  it('never loses text to offsets out of order or out of range', () => {
    const text = 'Alpha.\n\nBeta.\n\nGamma.';
    const pages = pagesOf(text, [0, 15, 8, 999]);
    expect(pages.map((p) => p.number)).toEqual([1, 2]);
    expect(pages.flatMap((p) => p.paragraphs.map((x) => x.text))).toEqual(['Alpha.', 'Beta.', 'Gamma.']);
  });
  it('says where each paragraph starts in the whole text, so a span of it can be marked', () => {
    const { text, pageStarts } = joined(['  Indented first.\n\nSecond.', '\n Third,\nwith two lines.  ']);
    for (const page of pagesOf(text, pageStarts)) {
      for (const p of page.paragraphs) expect(text.slice(p.start, p.start + p.text.length)).toBe(p.text);
    }
    expect(pagesOf(text, pageStarts).flatMap((p) => p.paragraphs.map((x) => x.start))).toEqual([
      2,
      text.indexOf('Second.'),
      text.indexOf('Third,'),
    ]);
  });
});
