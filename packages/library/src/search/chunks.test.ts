/**
 * Chunk spans (SPEC §6b): every chunk of the text says where it lies in the document's stored text
 * (pages joined by a blank line), so a hit opens the document at its passage.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinPages } from '../documents/documents.ts';
import { CHUNK_CHARS, chunkDocument } from './chunks.ts';

const flatten = (t: string) => t.replace(/\s+/g, ' ').trim();

describe('chunkDocument spans', () => {
  it('maps each passage back to its characters in the joined text, page by page', () => {
    const pages = ['First  para\ngraph.\n\n  Second one.', '', 'Third page,\r\n\r\nlast words.'];
    const { text } = joinPages(pages);
    const chunks = chunkDocument({ title: 'T', abstract: 'An abstract.', pages });
    expect(chunks.map((c) => [c.page, c.text, text.slice(c.start, c.end)])).toEqual([
      [1, 'An abstract.', ''],
      [1, 'First para graph.', 'First  para\ngraph.'],
      [1, 'Second one.', 'Second one.'],
      [3, 'Third page,', 'Third page,'],
      [3, 'last words.', 'last words.'],
    ]);
  });

  it('holds for any pages, overlong paragraphs and sentences included', () => {
    const word = fc.stringMatching(/^[a-zé0-9]{1,12}[.!?,]?$/);
    const space = fc.constantFrom(' ', '  ', '\n', '\t', '\n\n', ' \n \n ');
    const page = fc
      .array(fc.tuple(word, space), { maxLength: 400 })
      .map((parts) => parts.map(([w, s]) => w + s).join(''));
    const long = fc.constant('x'.repeat(CHUNK_CHARS * 2 + 5) + '. ' + 'y'.repeat(30));
    fc.assert(
      fc.property(fc.array(fc.oneof(page, long), { minLength: 1, maxLength: 4 }), (pages) => {
        const { text, pageStarts } = joinPages(pages);
        for (const c of chunkDocument({ title: 'T', abstract: '', pages })) {
          if (c.text === '') continue;
          expect(flatten(text.slice(c.start, c.end))).toBe(c.text);
          expect(c.start).toBeGreaterThanOrEqual(pageStarts[c.page - 1]!);
          expect(c.end).toBeLessThanOrEqual(pageStarts[c.page - 1]! + pages[c.page - 1]!.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});
