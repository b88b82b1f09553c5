/**
 * The outline `agent.document` gives the agent (SPEC §7b): Markdown headings, heading-like lines of
 * a PDF's text with their page, nothing when there are none, never more than 40 entries.
 */
import { describe, expect, it } from 'vitest';
import { joinPages } from './documents.ts';
import { OUTLINE_MAX, documentOutline } from './outline.ts';

describe('documentOutline', () => {
  it('lists Markdown headings, not a # inside a code fence or a line that only starts with #', () => {
    const text = [
      '# Reef recovery',
      'Intro text with a #hashtag.',
      '## Methods ##',
      '```sh',
      '# not a heading',
      '```',
      '#also not a heading',
      '### Sites   and  transects',
    ].join('\n');
    expect(documentOutline(text, [0], 'markdown')).toEqual([
      { title: 'Reef recovery', page: 1 },
      { title: 'Methods', page: 1 },
      { title: 'Sites and transects', page: 1 },
    ]);
  });

  it('finds numbered sections and usual section names in a PDF, each on its page', () => {
    const { text, pageStarts } = joinPages([
      'Reef recovery after the 2016 bleaching\nM. Okafor\nAbstract\nRepeat surveys of 112 sites.',
      '1 Introduction\nThe 2016 marine heatwave produced bleaching. 2016 The year.\n2.1 Study sites and transects\n3 Sites 112 45 0.3',
      'IV. RESULTS\n12 of the sites recovered, as Table 2 shows.\nReferences',
    ]);
    expect(documentOutline(text, pageStarts, 'pdf')).toEqual([
      { title: 'Abstract', page: 1 },
      { title: '1 Introduction', page: 2 },
      { title: '2.1 Study sites and transects', page: 2 },
      { title: 'IV. RESULTS', page: 3 },
      { title: 'References', page: 3 },
    ]);
  });

  it('gives nothing for prose without headings, and lists a running head once', () => {
    const prose = 'The survey counted fish.\n\nIt found 12 species, 3 of them new.';
    expect(documentOutline(prose, [0], 'pdf')).toEqual([]);
    expect(documentOutline(prose, [0], 'text')).toEqual([]);
    const { text, pageStarts } = joinPages([
      'Introduction\nOne.',
      'Introduction\nTwo.',
      'Discussion\nThree.',
    ]);
    expect(documentOutline(text, pageStarts, 'pdf')).toEqual([
      { title: 'Introduction', page: 1 },
      { title: 'Discussion', page: 3 },
    ]);
  });

  it('keeps at most 40 entries, leaving out the deeper levels first', () => {
    const sections = Array.from({ length: 12 }, (_, i) =>
      [`## Part ${i + 1}`, ...Array.from({ length: 4 }, (_, j) => `### Detail ${i + 1}.${j + 1}`)].join('\n'),
    );
    const outline = documentOutline(['# Book', ...sections].join('\n'), [0], 'markdown');
    expect(outline).toHaveLength(13);
    expect(outline.every((e) => !e.title.startsWith('Detail'))).toBe(true);
    const flat = Array.from({ length: 100 }, (_, i) => `# Heading ${i}`).join('\n');
    const clipped = documentOutline(flat, [0], 'markdown');
    expect(clipped).toHaveLength(OUTLINE_MAX);
    expect(clipped.at(-1)).toEqual({ title: 'Heading 39', page: 1 });
  });
});
