import { describe, expect, it } from 'vitest';
import { normaliseDoi, normaliseTags } from './metadata.ts';
import { ownerInputs } from './owner-inputs.ts';

const update = ownerInputs['documents.update'];
const messages = (input: unknown) =>
  update.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe("a document's metadata (SPEC §6d)", () => {
  it('keeps a DOI without its resolver or prefix, lowercase, and knows a non-DOI', () => {
    expect(normaliseDoi('https://doi.org/10.1038/NATURE21707')).toBe('10.1038/nature21707');
    expect(normaliseDoi('doi: 10.1126/science.aan8048 ')).toBe('10.1126/science.aan8048');
    expect(normaliseDoi('http://dx.doi.org/10.1000/xyz')).toBe('10.1000/xyz');
    expect(normaliseDoi('nature21707')).toBeNull();
    expect(normaliseDoi('10.1038/')).toBeNull();
  });

  it('keeps tags trimmed, without a leading #, once whatever their case, in order', () => {
    expect(normaliseTags([' #Kelp ', 'kelp', 'reefs', '', '#', 'KELP', 'Reefs '])).toEqual(['Kelp', 'reefs']);
    // A comma or semicolon separates tags, as BibTeX, CSL-JSON and reference managers write them,
    // so what the library keeps goes out and comes back the same.
    expect(normaliseTags(['Pacific, heat; #kelp', 'heat'])).toEqual(['Pacific', 'heat', 'kelp']);
  });

  it('documents.update takes each field, normalised, and null clears year and DOI', () => {
    expect(
      update.parse({
        documentId: 'doc_1',
        title: ' Global warming ',
        year: 2017,
        doi: 'https://doi.org/10.1038/Nature21707',
        venue: ' Nature ',
        tags: ['#corals', 'Corals', 'bleaching'],
      }),
    ).toEqual({
      documentId: 'doc_1',
      title: 'Global warming',
      year: 2017,
      doi: '10.1038/nature21707',
      venue: 'Nature',
      tags: ['corals', 'bleaching'],
    });
    expect(update.parse({ documentId: 'doc_1', year: null, doi: null })).toEqual({
      documentId: 'doc_1',
      year: null,
      doi: null,
    });
    expect(update.parse({ documentId: 'doc_1', doi: ' ' })).toEqual({ documentId: 'doc_1', doi: null });
  });

  it('documents.update refuses bad fields in words', () => {
    expect(messages({ documentId: 'doc_1' })).toEqual([
      ': give at least one of title, authors, year, doi, venue, abstract or tags to change',
    ]);
    expect(messages({ documentId: 'doc_1', year: 20177 })).toEqual(['year: year is 2100 or earlier']);
    expect(messages({ documentId: 'doc_1', year: 2017.5 })).toEqual(['year: year is a whole number']);
    expect(messages({ documentId: 'doc_1', doi: 'nature21707' })).toEqual([
      'doi: doi: expected a DOI like 10.1038/nature21707 (or its https://doi.org/ link)',
    ]);
    expect(messages({ documentId: 'doc_1', tags: ['x'.repeat(65)] })[0]).toMatch(
      /a tag is at most 64 characters/,
    );
    expect(messages({ documentId: 'doc_1', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) })).toEqual([
      'tags: at most 50 tags',
    ]);
    expect(messages({ documentId: 'doc_1', title: '' })).toEqual(['title: title must not be empty']);
    expect(messages({ documentId: 'doc_1', ownerId: 'someone' })[0]).toMatch(/ownerId/);
    expect(messages({ documentId: 'doc_1', venue: 'a\u0000b' })[0]).toMatch(/^venue: /);
  });

  it('documents.search narrows by one tag, as tags are kept', () => {
    expect(ownerInputs['documents.search'].parse({ query: 'kelp', tag: ' #Corals' })).toEqual({
      query: 'kelp',
      tag: 'Corals',
    });
    expect(ownerInputs['documents.search'].safeParse({ query: 'kelp', tag: '#' }).success).toBe(false);
    // A comma or semicolon separates tags: one tag to narrow to cannot hold one.
    expect(
      ownerInputs['documents.search'].safeParse({ query: 'kelp', tag: 'corals, kelp' }).error?.issues[0]
        ?.message,
    ).toBe('tag is one tag: no comma or semicolon');
  });
});
