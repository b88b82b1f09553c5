import { describe, expect, it } from 'vitest';
import { SPONGE_LIMITS } from './limits.ts';
import {
  fetchedPassage,
  parsePassageId,
  passageId,
  passageIdProblem,
  searchResults,
} from './mcp-passages.ts';
import { READ_PASSAGE_MAX } from './research.ts';

const doc = { id: 'doc-1', title: 'Reef survey', authors: ['Ada Lovelace'], abstract: 'We count wrasse.' };

describe('passage ids', () => {
  it('name the document, the page and the span, and parse back', () => {
    const at = { documentId: 'doc-1', span: { page: 2, start: 120, end: 980 } };
    expect(passageId(at)).toBe('doc-1#p2:120-980');
    expect(parsePassageId('doc-1#p2:120-980')).toEqual(at);
    expect(parsePassageId('doc-1#abstract')).toEqual({ documentId: 'doc-1', span: null });
    // A document id holding '#' and what looks like a suffix still parses: the suffix is the last.
    expect(parsePassageId('a#p1:0-1#p3:4-5')).toEqual({
      documentId: 'a#p1:0-1',
      span: { page: 3, start: 4, end: 5 },
    });
  });

  it('refuse anything else: no document, page 0, an empty or backward span, too long a document id', () => {
    for (const id of [
      '',
      'doc-1',
      '#p1:0-5',
      'doc-1#p0:0-5',
      'doc-1#p1:5-5',
      'doc-1#p1:9-5',
      'doc-1#p1:-1-5',
      'doc-1#p1:0-5 ',
      'doc-1#abstract\n',
      `${'d'.repeat(SPONGE_LIMITS.idChars + 1)}#abstract`,
    ])
      expect(parsePassageId(id), JSON.stringify(id)).toBeNull();
    expect(passageIdProblem('nonsense')).toContain('id: “nonsense” is not an id that search gives');
    expect(passageIdProblem('x'.repeat(500)).length).toBeLessThan(300);
  });
});

describe('search results and fetched passages', () => {
  it('link a passage to its page with the quote, and a passage of the abstract to the document', () => {
    const { results } = searchResults(
      'https://sponge.example',
      [
        { documentId: 'doc-1', page: 2, start: 10, end: 30, passage: 'Wrasse & co. 50% up' },
        { documentId: 'doc-1', page: 1, start: 0, end: 0, passage: 'We count wrasse.' },
        { documentId: 'doc-gone', page: 1, start: 0, end: 9, passage: 'removed since' },
      ],
      [doc],
    );
    expect(results).toEqual([
      {
        id: 'doc-1#p2:10-30',
        title: 'Reef survey',
        text: 'Wrasse & co. 50% up',
        url: 'https://sponge.example/documents/doc-1?page=2&quote=Wrasse%20%26%20co.%2050%25%20up',
        metadata: { documentId: 'doc-1', page: 2, authors: ['Ada Lovelace'] },
      },
      {
        id: 'doc-1#abstract',
        title: 'Reef survey',
        text: 'We count wrasse.',
        url: 'https://sponge.example/documents/doc-1',
        metadata: { documentId: 'doc-1', authors: ['Ada Lovelace'] },
      },
    ]);
    expect(new URL(results[0]!.url).searchParams.get('quote')).toBe('Wrasse & co. 50% up');
  });

  it("carry the view's year, DOI, venue, tags and citation key when it has them", () => {
    const view = {
      ...doc,
      year: 2017,
      doi: '10.1038/nature21707',
      venue: 'Nature',
      tags: ['reef'],
      citationKey: 'hughes2017',
    };
    const [result] = searchResults(
      'https://s',
      [{ documentId: 'doc-1', page: 1, start: 0, end: 5, passage: 'We co' }],
      [view],
    ).results;
    expect(result!.metadata).toEqual({
      documentId: 'doc-1',
      page: 1,
      authors: ['Ada Lovelace'],
      year: 2017,
      doi: '10.1038/nature21707',
      venue: 'Nature',
      tags: ['reef'],
      citationKey: 'hughes2017',
    });
  });

  it("fetch the passage read, its url the search result's, and the abstract cut at 4,000 characters", () => {
    const fetched = fetchedPassage('https://s', 'doc-1#p2:10-30', doc, { page: 2, text: 'Wrasse\n\n& co.' });
    expect(fetched).toEqual({
      id: 'doc-1#p2:10-30',
      title: 'Reef survey',
      text: 'Wrasse\n\n& co.',
      url: 'https://s/documents/doc-1?page=2&quote=Wrasse%20%26%20co.',
      metadata: { documentId: 'doc-1', page: 2, authors: ['Ada Lovelace'] },
    });
    const long = { ...doc, abstract: `${'a'.repeat(READ_PASSAGE_MAX - 1)}😀 and more` };
    const cut = fetchedPassage('https://s', 'doc-1#abstract', long, null);
    // Never half a surrogate pair.
    expect(cut.text).toBe('a'.repeat(READ_PASSAGE_MAX - 1));
    expect(cut.url).toBe('https://s/documents/doc-1');
  });
});
