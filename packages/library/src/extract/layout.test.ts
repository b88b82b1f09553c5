/**
 * Reading order on pdf.js item lists written out by hand: where each piece of text sits on the
 * page, as getTextContent reports it. The typeset PDFs (typeset.test.ts) check the same on files.
 */
import { describe, expect, it } from 'vitest';
import { assemblePages, joinHyphens, layoutPage } from './layout.ts';
import type { LayoutItem } from './layout.ts';

/** A run of text at (x, y) in a font of `size`, about half an em per character. */
const at = (str: string, x: number, y: number, size = 10, dir = 'ltr'): LayoutItem => ({
  str,
  transform: [size, 0, 0, size, x, y],
  width: str.length * size * 0.5,
  height: size,
  dir,
});

/** Lines of a column from its top baseline down, 12 units apart. */
const column = (x: number, top: number, lines: string[]) => lines.map((s, i) => at(s, x, top - 12 * i));

const read = (pages: LayoutItem[][]) => assemblePages(pages.map((items) => layoutPage(items)));

describe('layoutPage', () => {
  it('reads a two-column page column by column, with the full-width title and abstract first', () => {
    const items = [
      at('A title across the page', 150, 760, 14),
      at('The abstract runs across both of the columns of the page below it', 72, 730),
      at('and ends here, before the columns.', 72, 718),
      // Drawn row by row, as some producers do: each row has a left and a right piece, and between
      // them the space pdf.js reports for the pen's jump across the gutter, from the left piece's
      // end to the right one's start.
      ...column(72, 690, ['Left one', 'left two', 'left three', 'left four']).flatMap((left, i) => [
        left,
        { ...at(' ', left.transform[4]! + left.width, 690 - 12 * i), width: 320 - 72 - left.width },
        at(['Right one', 'right two', 'right three', 'right four'][i]!, 320, 690 - 12 * i),
      ]),
    ];
    expect(read([items])).toEqual([
      'A title across the page\n\n' +
        'The abstract runs across both of the columns of the page below it\nand ends here, before the columns.\n\n' +
        'Left one\nleft two\nleft three\nleft four\nRight one\nright two\nright three\nright four',
    ]);
  });

  it("keeps a full-width paragraph's short last line in it, though the line fits in the left column", () => {
    const items = [
      // An abstract set narrower than the page (indented from the columns' edge at 72), as -ms does.
      at('The abstract, set narrower than the page, runs across both columns,', 105, 730),
      at('and its last line is short.', 90, 718),
      ...column(72, 690, ['Left one', 'left two', 'left three']),
      ...column(320, 690, ['Right one', 'right two', 'right three']),
    ];
    expect(read([items])).toEqual([
      'The abstract, set narrower than the page, runs across both columns,\nand its last line is short.\n\n' +
        'Left one\nleft two\nleft three\nRight one\nright two\nright three',
    ]);
  });

  it('keeps a single column of full lines as it is (no gutter in the middle of words)', () => {
    const lines = Array.from(
      { length: 8 },
      (_, i) => `Line ${i} of a page in one column, set as wide as the text block.`,
    );
    expect(read([column(72, 700, lines)])).toEqual([lines.join('\n')]);
  });

  it('starts a paragraph at an indented line and after a wide gap', () => {
    const items = [
      ...column(72, 700, ['First paragraph, line one,', 'line two.']),
      at('Indented second paragraph', 97, 676),
      at('goes on.', 72, 664),
      at('After a gap.', 72, 630),
    ];
    expect(read([items])).toEqual([
      'First paragraph, line one,\nline two.\n\nIndented second paragraph\ngoes on.\n\nAfter a gap.',
    ]);
  });

  it('puts a space between pieces of a line that a gap parts, and none inside CJK text', () => {
    expect(
      read([[at('word', 72, 700), at('next', 100, 700), at('日本', 72, 680), at('語', 82, 680)]]),
    ).toEqual(['word next\n日本語']);
  });

  it('reads vertical writing column by column, right to left', () => {
    const v = (str: string, x: number, y: number) => ({ ...at(str, x, y, 14, 'ttb'), width: 14 });
    const items = [
      v('吾輩は', 300, 700),
      v('猫である。', 300, 658),
      v('名前は', 280, 700),
      v('まだ無い。', 280, 658),
    ];
    expect(read([items])).toEqual(['吾輩は猫である。\n名前はまだ無い。']);
  });
});

describe('assemblePages', () => {
  const body = (top: number, lines: string[]) => column(72, top, lines);

  it('drops running heads and page numbers and finishes a sentence cut by the page break', () => {
    const page1 = [
      ...body(700, ['The survey ran for nine years and the', 'cover fell after each']),
      at('Journal of Examples 12', 72, 60),
      at('1', 300, 60),
    ];
    const page2 = [
      at('Recovery of Reefs', 72, 770),
      at('Page 2', 400, 770),
      ...body(700, ['event. Recovery was slow.', 'It never finished.']),
      at('Journal of Examples 12', 72, 60),
      at('2', 300, 60),
    ];
    expect(read([page1, page2])).toEqual([
      'The survey ran for nine years and the\ncover fell after each\nevent.',
      'Recovery was slow.\nIt never finished.',
    ]);
  });

  it('keeps a top line that is not a running head, as a paragraph of its own', () => {
    const page = [at('A Heading Set Apart', 72, 770), ...body(700, ['Text below it.', 'More text.'])];
    expect(read([page])).toEqual(['A Heading Set Apart\n\nText below it.\nMore text.']);
  });

  it('never empties a page to finish a sentence (an empty page reads as a scan)', () => {
    expect(read([body(700, ['The last page ends with the']), body(700, ['end.'])])).toEqual([
      'The last page ends with the',
      'end.',
    ]);
  });

  it('leaves pages alone where the next page does not continue a sentence', () => {
    expect(read([body(700, ['12345']), body(700, ['67890'])])).toEqual(['12345', '67890']);
    expect(read([body(700, ['Ends a sentence.']), body(700, ['starts lower.'])])).toEqual([
      'Ends a sentence.',
      'starts lower.',
    ]);
  });
});

describe('joinHyphens', () => {
  it('joins a word the typesetter cut, moving its rest up a line', () => {
    expect(joinHyphens(['the recov-\nery of reefs'])).toEqual(['the recovery\nof reefs']);
    expect(joinHyphens(['since the nineteen-eight-\nies.\nNext line'])).toEqual([
      'since the nineteen-eighties.\nNext line',
    ]);
  });

  it('keeps a hyphen the word has, known from the document itself', () => {
    // The hyphenated word elsewhere, on another page.
    expect(joinHyphens(['the sea-\nsurface warmed', 'sea-surface temperature'])[0]).toBe(
      'the sea-surface\nwarmed',
    );
    // Both halves are words of the document.
    expect(joinHyphens(['a well-\nknown reef', 'as well as the known'])[0]).toBe('a well-known\nreef');
    // The joined word elsewhere wins.
    expect(joinHyphens(['in-\nformation', 'in the information'])[0]).toBe('information');
  });

  it('has the limits it documents: a compound whose halves the document never uses loses its hyphen', () => {
    expect(joinHyphens(['the high-\nresolution record'])[0]).toBe('the highresolution\nrecord');
    expect(joinHyphens(['some-\nthing new', 'some thing'])[0]).toBe('some-thing\nnew');
  });

  it('always joins a soft hyphen and keeps one before a capital or a digit', () => {
    expect(joinHyphens(['co\u00ad\noperation', 'co operation'])[0]).toBe('cooperation');
    expect(joinHyphens(['COVID-\n19 cases'])[0]).toBe('COVID-\n19 cases');
  });
});
