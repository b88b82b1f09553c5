import { describe, expect, it } from 'vitest';
import { draftOf, fieldOf, readDraft } from './details-form.ts';
import type { Details } from './details-form.ts';

const hughes: Details = {
  title: 'Global warming and recurrent mass bleaching of corals',
  authors: ['Hughes, T. P.', 'Kerry, J. T.'],
  year: 2017,
  doi: '10.1038/nature21707',
  venue: 'Nature',
  abstract: '',
  tags: ['bleaching'],
};

describe('Edit details', () => {
  it('fills the form from the document: authors a line each, tags by commas', () => {
    expect(draftOf(hughes)).toEqual({
      title: hughes.title,
      authors: 'Hughes, T. P.\nKerry, J. T.',
      year: '2017',
      doi: '10.1038/nature21707',
      venue: 'Nature',
      abstract: '',
      tags: 'bleaching',
    });
  });

  it('sends only what changed, as the API keeps it', () => {
    const draft = {
      ...draftOf(hughes),
      doi: ' https://doi.org/10.1038/NATURE21707 ',
      tags: '#bleaching, Reefs,  reefs , ',
      authors: 'Hughes, T. P.\n\n Kerry, J. T. \nBaird, A. H.',
    };
    expect(readDraft(draft, hughes)).toEqual({
      change: { authors: ['Hughes, T. P.', 'Kerry, J. T.', 'Baird, A. H.'], tags: ['bleaching', 'Reefs'] },
      problems: {},
    });
  });

  it('clears an emptied year and DOI', () => {
    expect(readDraft({ ...draftOf(hughes), year: ' ', doi: '' }, hughes).change).toEqual({
      year: null,
      doi: null,
    });
  });

  it('says each problem in words under its field, and sends nothing of those', () => {
    const { change, problems } = readDraft(
      { ...draftOf(hughes), title: '  ', year: '17', doi: 'nature21707', tags: `${'k'.repeat(65)}, kelp` },
      hughes,
    );
    expect(change).toEqual({});
    expect(problems).toEqual({
      title: 'Give the document a title.',
      year: 'The year is a year like 2017, from 1000 to 2100; leave it empty when unknown.',
      doi: 'This is not a DOI. A DOI looks like 10.1038/nature21707 (its https://doi.org/ link works too).',
      tags: `A tag can be at most 64 characters (“${'k'.repeat(30)}…”).`,
    });
    expect(readDraft({ ...draftOf(hughes), year: '2017.5' }, hughes).problems.year).toMatch(
      /a year like 2017/,
    );
  });

  it('knows which field an API problem is about', () => {
    expect(fieldOf('doi')).toBe('doi');
    expect(fieldOf('tags.3')).toBe('tags');
    expect(fieldOf('documentId')).toBeNull();
  });
});
