// The citations under an agent's reply, the library cards and the memory cards, rendered to
// markup: which are links (and to where), and what each says to a reader and a screen reader.
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { Citations, LibraryCardView, MemoryCardView } from './transcript-items.tsx';

const render = (node: React.ReactNode): string => renderToStaticMarkup(<MemoryRouter>{node}</MemoryRouter>);

/** Each `<a>` with its href and text (tags inside dropped). */
const links = (html: string): Array<{ href: string; text: string }> =>
  [...html.matchAll(/<a\b[^>]*href="([^"]*)"[^>]*>(.*?)<\/a>/g)].map((m) => ({
    href: m[1]!.replaceAll('&amp;', '&'),
    text: m[2]!.replace(/<[^>]+>/g, ''),
  }));

const REEF = 'Reef recovery after the 2016 bleaching';

describe('Citations', () => {
  const html = render(
    <Citations
      citations={[
        {
          documentId: 'doc_1',
          title: REEF,
          page: 4,
          quote: 'Divers counted 42 quadrats',
          status: 'verified',
        },
        {
          documentId: 'doc_2',
          title: 'Kelp canopy loss',
          page: 7,
          quote: 'kelp recovered fully within a decade',
          status: 'unverified',
        },
        { note: 'lead:quadrats', status: 'note' },
      ]}
      memoryHref="/documents/doc_1/memory?session=ses_1"
    />,
  );

  it('links a verified quote to its passage: its title, that the quote was found on that page, and that support was not checked', () => {
    expect(links(html)[0]).toEqual({
      href: '/documents/doc_1?page=4&quote=Divers+counted+42+quadrats',
      text: `[1] ${REEF} · ✓ quote found on p. 4 · support not checked`,
    });
    expect(html).not.toContain('quote verified');
  });

  it('says on the chip whether the passage supports its sentence', () => {
    const cited = { documentId: 'doc_1', title: REEF, page: 4, quote: 'Divers counted 42 quadrats' };
    const chips = render(
      <Citations
        citations={[
          { ...cited, status: 'verified', support: 'supported' },
          { ...cited, page: 5, status: 'verified', support: 'unsupported' },
          { ...cited, page: 6, status: 'verified', support: 'unchecked' },
          // A quote not found: nothing was checked against it, and the chip says why it is not evidence.
          { ...cited, page: 7, status: 'unverified', support: 'unchecked' },
        ]}
        memoryHref={null}
      />,
    );
    expect(links(chips).map((l) => l.text)).toEqual([
      `[1] ${REEF} · ✓ quote found on p. 4 · supports this sentence`,
      `[2] ${REEF} · ✓ quote found on p. 5 · ⚠ does not support this sentence`,
      `[3] ${REEF} · ✓ quote found on p. 6 · support not checked`,
    ]);
    // The warning is marked as one, for the eye and for the style sheet; the glyphs are not read out.
    expect(chips).toContain('class="cite-chip verified unsupported"');
    expect(chips).toMatch(
      /<span class="cite-support unsupported"><span aria-hidden="true">⚠ <\/span>does not support this sentence<\/span>/,
    );
    expect(chips).toContain('<span aria-hidden="true">✓</span>');
    const unverified = chips.replace(/<[^>]+>/g, '').split('[4]')[1];
    expect(unverified).toContain('unverified — the quote was not found on that page');
    expect(unverified).not.toMatch(/support/);
  });

  it('says an unverified quote was not found, and links it nowhere', () => {
    expect(html).toContain('p. 7 · Kelp canopy loss');
    expect(html).toContain('unverified — the quote was not found on that page');
    expect(links(html).some((l) => l.href.includes('doc_2'))).toBe(false);
  });

  it('shows a note as a working note, not evidence, linked to the Memory panel', () => {
    expect(links(html)[1]).toEqual({ href: '/documents/doc_1/memory?session=ses_1', text: 'lead:quadrats' });
    expect(html).toContain('working note — not evidence');
    expect(links(html)).toHaveLength(2);
  });

  it('says once what a note of a forgotten session is, naming nothing', () => {
    const forgotten = render(<Citations citations={[{ status: 'note' }]} memoryHref={null} />);
    const text = forgotten.replace(/<[^>]+>/g, '');
    expect(text).toBe('[1] a forgotten note — not evidence');
    expect(links(forgotten)).toEqual([]);
  });

  it('is a list named Citations', () => {
    expect(html).toMatch(/^<ol class="citations" aria-label="Citations">(<li>.*?<\/li>){3}<\/ol>$/);
  });
});

describe('LibraryCardView', () => {
  it('says what a search found, and links a read to its page', () => {
    const searched = render(
      <LibraryCardView card={{ type: 'library', action: 'searched', query: 'quadrats', count: 5, at: '' }} />,
    );
    expect(searched).toContain('Searched the library for “quadrats” — 5 hits');
    expect(links(searched)).toEqual([]);
    const read = render(
      <LibraryCardView
        card={{ type: 'library', action: 'read', documentId: 'doc_1', title: REEF, page: 4, at: '' }}
      />,
    );
    expect(links(read)).toEqual([{ href: '/documents/doc_1?page=4#page-4', text: `Read p. 4 of “${REEF}”` }]);
  });
});

describe('MemoryCardView', () => {
  const card = {
    type: 'memory' as const,
    action: 'remembered' as const,
    count: 2,
    removed: 0,
    names: ['lead:reef-survey-2016', 'todo:check-figure-3'],
    sessionId: 'ses 1',
    at: '2030-01-01T12:00:00Z',
    forgotten: false,
  };

  it('names the notes and links to the panel at the session', () => {
    const html = render(<MemoryCardView card={card} documentId="doc_1" />);
    expect(html).toContain('Remembered 2 notes');
    expect(html).toContain('lead:reef-survey-2016, todo:check-figure-3');
    expect(links(html)).toEqual([
      { href: '/documents/doc_1/memory?session=ses%201', text: 'View in Memory →' },
    ]);
  });

  it('names nothing once the session is forgotten', () => {
    const html = render(<MemoryCardView card={{ ...card, names: [], forgotten: true }} documentId="doc_1" />);
    expect(html).toContain('Memory forgotten');
    expect(html).not.toContain('Remembered');
    expect(links(html)).toEqual([
      { href: '/documents/doc_1/memory?session=ses%201', text: 'View in Memory' },
    ]);
  });

  it('says purged, as the library and the panel do, when the worker cleared it after it expired', () => {
    const closed = { ...card, names: [], forgotten: true };
    const purged = render(<MemoryCardView card={closed} documentId="doc_1" closedAs="purged" />).replace(
      /<[^>]+>/g,
      ' ',
    );
    expect(purged).toContain('Memory purged');
    expect(purged).not.toContain('forgotten');
    expect(render(<MemoryCardView card={closed} documentId="doc_1" closedAs="forgotten" />)).toContain(
      'Memory forgotten',
    );
  });
});
