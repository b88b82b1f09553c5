// The library keeps the owner's own documents apart from what others share or publish (issue 41,
// point 7): a new account sees "Your library is empty", not a stranger's public demo document.
import { describe, expect, it } from 'vitest';
import { addedSummary, librarySections, ownTags, withTag } from './sections.ts';

const doc = (id: string, access: 'owner' | 'shared' | 'public') => ({ id, access });

describe('librarySections', () => {
  it('puts the own documents first and the others under their own headings, order kept', () => {
    const s = librarySections([
      doc('p1', 'public'),
      doc('o1', 'owner'),
      doc('s1', 'shared'),
      doc('o2', 'owner'),
      doc('p2', 'public'),
    ]);
    expect(s.own.map((d) => d.id)).toEqual(['o1', 'o2']);
    expect(s.others).toEqual([
      { heading: 'Shared with you', docs: [doc('s1', 'shared')] },
      { heading: 'Published by others', docs: [doc('p1', 'public'), doc('p2', 'public')] },
    ]);
  });

  it("leaves a new account's own library empty when only a public demo document is listed", () => {
    const s = librarySections([doc('demo', 'public')]);
    expect(s.own).toEqual([]);
    expect(s.others).toEqual([{ heading: 'Published by others', docs: [doc('demo', 'public')] }]);
  });
});

describe('addedSummary', () => {
  const added = { id: 'd1', title: 'kelp-scan', pages: 2, characters: 2 };
  it('says the counts the upload answered while the list has not the document yet', () => {
    expect(addedSummary(added, undefined)).toEqual({
      title: 'kelp-scan',
      state: 'indexing…',
      failed: false,
      facts: '2 pages, 2 characters',
    });
  });

  it('follows OCR: the final counts once the list has them, not the upload answer', () => {
    const listed = {
      title: 'Kelp canopy',
      pages: 2,
      characters: 1217,
      index: { state: 'ready' as const, done: 3, total: 3, note: null, reason: null },
    };
    expect(addedSummary(added, listed)).toEqual({
      title: 'Kelp canopy',
      state: 'ready',
      failed: false,
      facts: '2 pages, 1,217 characters',
    });
  });

  it('says recognising while OCR reads, with the counts known so far', () => {
    const listed = {
      title: 'kelp-scan',
      pages: 2,
      characters: 2,
      index: { state: 'recognizing' as const, done: 1, total: 2, note: null, reason: null },
    };
    expect(addedSummary(added, listed).state).toBe('recognizing text, page 2 of 2');
    // The characters are not counted until OCR has read every page: "2 characters" would mislead.
    expect(addedSummary(added, listed).facts).toBe('2 pages');
  });

  it('says a failure as such', () => {
    const listed = {
      title: 'kelp-scan',
      pages: 1,
      characters: 40,
      index: {
        state: 'failed' as const,
        done: 0,
        total: 1,
        note: null,
        reason: 'the index could not be written',
      },
    };
    expect(addedSummary({ ...added, pages: 1, characters: 40 }, listed)).toEqual({
      title: 'kelp-scan',
      state: 'indexing failed: the index could not be written',
      failed: true,
      facts: '1 page, 40 characters',
    });
  });
});

describe('the tag filter', () => {
  const tagged = (id: string, access: 'owner' | 'shared' | 'public', tags: string[]) => ({
    id,
    access,
    tags,
  });
  const docs = [
    tagged('a', 'owner', ['bleaching', 'Reefs']),
    tagged('b', 'owner', ['kelp', 'reefs']),
    tagged('c', 'shared', ['Sharks']),
    tagged('d', 'owner', []),
  ];

  it("offers the owner's own tags, once each whatever their case, in alphabetical order", () => {
    expect(ownTags(docs)).toEqual(['bleaching', 'kelp', 'Reefs']);
  });

  it('keeps the documents with the tag, case aside; no tag keeps them all', () => {
    expect(withTag(docs, 'reefs').map((d) => d.id)).toEqual(['a', 'b']);
    expect(withTag(docs, null)).toBe(docs);
  });
});
