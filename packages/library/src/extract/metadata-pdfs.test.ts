/**
 * What extractDocument says a PDF is, on PDFs made by real tools (fixtures/make.sh: groff -ms,
 * ghostscript's pdfwrite with a pdfmark for the Info dictionary, exiftool for XMP), read by pdf.js
 * on its thread.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { makePdf } from '@sponge/testing/pdf-fixtures';
import { extractDocument } from './index.ts';

const fixture = async (name: string) => ({
  bytes: new Uint8Array(await readFile(new URL(`./fixtures/${name}.pdf`, import.meta.url))),
  filename: `${name}.pdf`,
  mediaType: 'application/pdf',
});

describe('metadata of PDFs made by real tools', () => {
  it('info-doi: the Info title and authors, the DOI under the banner, the abstract after its heading', async () => {
    const doc = await extractDocument(await fixture('info-doi'));
    expect(doc.metadata).toEqual({
      title: 'Recovery of Reef Corals after Repeated Bleaching Events',
      authors: ['Ana Example', 'Ben Sample'],
      doi: '10.5555/jes.2024.0012',
      abstract:
        'We describe how the coral cover of twelve fringing reefs changed over nine years of repeated bleaching. ' +
        'Cover fell sharply after each event and recovered slowly in the years between them.',
    });
    expect(doc.title).toBe('Recovery of Reef Corals after Repeated Bleaching Events');
  });

  it('xmp: title, authors, date, DOI and journal from XMP alone', async () => {
    const doc = await extractDocument(await fixture('xmp'));
    expect(doc.metadata).toEqual({
      title: 'Kelp Forests Return after Urchin Removal',
      authors: ['Chen Li', 'Dana Roe'],
      year: 2023,
      doi: '10.5555/exl.2023.7',
      venue: 'Example Letters in Ecology',
      abstract:
        'Removing sea urchins from barren reefs let kelp return within two growing seasons. ' +
        'The effect lasted as long as the removals continued. Where removals stopped, the urchins came back within a year.',
    });
  });

  it('word-draft: the typeset title over "Microsoft Word - draft3.docx", no DOI from its references', async () => {
    const doc = await extractDocument(await fixture('word-draft'));
    expect(doc.metadata).toEqual({
      title: 'Seagrass Meadows Store Carbon for Centuries in Anoxic Sediments',
      abstract:
        'Cores from six seagrass meadows hold carbon laid down over four hundred years. ' +
        'The sediments below ten centimetres held no oxygen, which slowed decay.',
    });
    expect(doc.title).toBe('Seagrass Meadows Store Carbon for Centuries in Anoxic Sediments');
  });

  it('a plain PDF (pdf-lib, one font size) has its Info title, no typeset title and no year (its creation date is not the paper’s)', async () => {
    const titled = await extractDocument({
      bytes: await makePdf(['Reef survey notes.\nSecond line.'], { title: 'Reef survey 2024' }),
      filename: 'notes.pdf',
      mediaType: 'application/pdf',
    });
    expect(titled.metadata).toEqual({ title: 'Reef survey 2024' });
    const untitled = await extractDocument({
      bytes: await makePdf(['Reef survey notes.', 'Page two.']),
      filename: 'notes.pdf',
      mediaType: 'application/pdf',
    });
    expect(untitled.title).toBeNull();
    expect(untitled.metadata ?? {}).toEqual({});
  });

  it('text and Markdown have no metadata', async () => {
    const doc = await extractDocument({
      bytes: new TextEncoder().encode('# Reef notes\n\nAbstract\nWe describe corals. doi:10.5555/x.1'),
      filename: 'notes.md',
      mediaType: 'text/markdown',
    });
    expect(doc.metadata).toBeUndefined();
  });
});
