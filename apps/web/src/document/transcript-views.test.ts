import { describe, expect, it } from 'vitest';
import { citationView, citedDocumentIds, libraryCardView } from './transcript-views.ts';

const at = '2026-09-01T10:00:00.000Z';
const REEF = 'Reef recovery after the 2016 bleaching';

describe('libraryCardView', () => {
  it('says what a search looked for and how many hits it found', () => {
    expect(
      libraryCardView({ type: 'library', action: 'searched', query: 'photo quadrats', count: 5, at }),
    ).toEqual({
      text: 'Searched the library for “photo quadrats” — 5 hits',
      href: null,
    });
    expect(libraryCardView({ type: 'library', action: 'searched', query: 'cover', count: 1, at }).text).toBe(
      'Searched the library for “cover” — 1 hit',
    );
    expect(
      libraryCardView({
        type: 'library',
        action: 'searched',
        query: 'cover',
        count: 0,
        documentId: 'doc_1',
        title: REEF,
        at,
      }).text,
    ).toBe(`Searched “${REEF}” for “cover” — 0 hits`);
  });

  it('links a read to the page it read', () => {
    expect(
      libraryCardView({ type: 'library', action: 'read', documentId: 'doc_1', title: REEF, page: 4, at }),
    ).toEqual({ text: `Read p. 4 of “${REEF}”`, href: '/documents/doc_1?page=4#page-4' });
  });

  it('links nowhere when the document is no longer there to read', () => {
    expect(libraryCardView({ type: 'library', action: 'read', documentId: 'doc_1', page: 2, at })).toEqual({
      text: 'Read p. 2 of a document no longer in your library',
      href: null,
    });
  });
});

describe('citationView', () => {
  const memory = '/documents/doc_1/memory?session=ses_1';

  it('makes a verified quote a chip that opens the passage', () => {
    const view = citationView(
      {
        documentId: 'doc_1',
        title: REEF,
        page: 4,
        quote: 'Divers counted 42 photo quadrats',
        status: 'verified',
      },
      memory,
    );
    // Verified says only that the quote is on the page; support is a second, separate claim.
    expect(view).toEqual({
      kind: 'verified',
      label: REEF,
      found: 'quote found on p. 4',
      support: { kind: 'unchecked', words: 'support not checked' },
      quote: 'Divers counted 42 photo quadrats',
      href: '/documents/doc_1?page=4&quote=Divers+counted+42+photo+quadrats',
    });
  });

  it('says whether the passage supports its sentence, in words', () => {
    const cited = {
      documentId: 'doc_1',
      title: REEF,
      page: 4,
      quote: 'Divers counted 42 photo quadrats',
      status: 'verified' as const,
    };
    const words = (support?: 'supported' | 'unsupported' | 'unchecked') => {
      const view = citationView({ ...cited, ...(support ? { support } : {}) }, memory);
      return view.kind === 'verified' ? view.support : null;
    };
    expect(words('supported')).toEqual({ kind: 'supported', words: 'supports this sentence' });
    expect(words('unsupported')).toEqual({ kind: 'unsupported', words: 'does not support this sentence' });
    expect(words('unchecked')).toEqual({ kind: 'unchecked', words: 'support not checked' });
    // From a server before support was kept.
    expect(words()).toEqual({ kind: 'unchecked', words: 'support not checked' });
  });

  it('never links an unverified quote, and says it was not found', () => {
    const view = citationView(
      {
        documentId: 'doc_2',
        title: 'Kelp canopy loss',
        page: 7,
        quote: 'kelp recovered fully within a decade',
        status: 'unverified',
      },
      memory,
    );
    expect(view).toEqual({
      kind: 'unverified',
      label: 'p. 7 · Kelp canopy loss',
      quote: 'kelp recovered fully within a decade',
      why: 'unverified — the quote was not found on that page',
    });
    expect(view).not.toHaveProperty('href');
    // Another owner's document: no title is given, and none is made up.
    expect(citationView({ page: 2, quote: 'x', status: 'unverified' }, memory).label).toBe(
      'p. 2 · a document not in your library',
    );
  });

  it('says why a short quote is unverified: too short to check (SPEC §7b)', () => {
    for (const quote of ['S', 'near healthy reefs', 'Settlement tiles recorded']) {
      expect(
        citationView({ documentId: 'doc_2', title: 'Kelp', page: 7, quote, status: 'unverified' }, memory),
      ).toEqual({
        kind: 'unverified',
        label: 'p. 7 · Kelp',
        quote,
        why: 'unverified — quote too short to check',
      });
    }
  });

  it('shows a note as a working note, not evidence, linking to the Memory panel', () => {
    expect(citationView({ note: 'lead:quadrat-count', status: 'note' }, memory)).toEqual({
      kind: 'note',
      label: 'lead:quadrat-count',
      why: 'working note — not evidence',
      href: memory,
    });
    expect(citationView({ note: 'lead:quadrat-count', status: 'note' }, null)).toMatchObject({ href: null });
    // Forgotten since: the name is gone, and so is the link.
    expect(citationView({ status: 'note' }, memory)).toEqual({
      kind: 'note',
      label: null,
      why: 'a forgotten note — not evidence',
      href: null,
    });
  });

  it('says a cited note the run never held is unverified', () => {
    expect(citationView({ note: 'lead:made-up', status: 'unverified' }, memory)).toMatchObject({
      kind: 'unverified',
      label: 'lead:made-up',
      why: 'unverified — no such note in this run’s memory',
    });
    expect(citationView({ status: 'unverified' }, memory)).toMatchObject({ label: 'a working note' });
  });

  it('links no longer to a verified quote of a document removed since', () => {
    expect(citationView({ documentId: 'doc_1', page: 4, status: 'verified' }, memory)).toEqual({
      kind: 'gone',
      label: 'p. 4 · a document not in your library',
      why: 'the cited document is no longer in your library',
    });
  });
});

describe('citedDocumentIds', () => {
  it('lists the documents a reply cites, once each, that the reader may still see', () => {
    expect(
      citedDocumentIds([
        { documentId: 'doc_2', title: 'Kelp', page: 1, quote: 'q', status: 'verified' },
        { note: 'claim:heat', status: 'note' },
        { documentId: 'doc_1', title: REEF, page: 4, quote: 'q', status: 'unverified' },
        { documentId: 'doc_2', title: 'Kelp', page: 3, quote: 'q', status: 'verified' },
        { documentId: 'doc_gone', page: 2, quote: 'q', status: 'unverified' },
      ]),
    ).toEqual(['doc_2', 'doc_1']);
  });
});
