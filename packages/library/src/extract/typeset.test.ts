/**
 * PDFs from real typesetters (@sponge/testing/typeset: groff and ghostscript, committed with their
 * sources), read by extractDocument on its threads: reading order on a two-column article (also
 * drawn row by row across its columns), and Japanese, Chinese and Korean whose fonts need pdf.js's
 * CMaps.
 */
import { createRequire } from 'node:module';
import { version as bundledPdfjs } from 'unpdf/pdfjs';
import { describe, expect, it } from 'vitest';
import { ARTICLES, CJK, articleSentences, cjkLines, typesetPdf } from '@sponge/testing/typeset';
import { extractDocument } from './index.ts';

const pdfInput = (bytes: Uint8Array) => ({ bytes, filename: 'paper.pdf', mediaType: 'application/pdf' });

describe('a two-column article set by groff', () => {
  for (const name of ARTICLES) {
    it(`${name}: has every sentence of its source whole, in order, and inside one paragraph of one page`, async () => {
      const doc = await extractDocument(pdfInput(await typesetPdf(name)));
      expect(doc.pages).toHaveLength(2);
      // Paragraphs (and pages) flattened to one line each and set apart by ¶, which no sentence holds.
      const text = doc.pages
        .flatMap((page) => page.split(/\n\s*\n/))
        .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
        .join(' ¶ ');
      let cursor = 0;
      const missing: string[] = [];
      for (const sentence of await articleSentences()) {
        const at = text.indexOf(sentence, cursor);
        if (at < 0) missing.push(sentence);
        else cursor = at + sentence.length;
      }
      expect(missing).toEqual([]);
    });

    it(`${name}: leaves out the running heads, footers and page numbers`, async () => {
      const doc = await extractDocument(pdfInput(await typesetPdf(name)));
      const text = doc.pages.join('\n\n');
      for (const line of ['Page 2', 'Journal of Example Studies', 'Draft for review'])
        expect(text).not.toContain(line);
      // The title is the page's first line, not a running head.
      expect(doc.pages[0]!.split('\n')[0]).toBe('Recovery of Reef Corals after Repeated Bleaching');
    });
  }

  it('joins words cut at line ends and keeps the hyphens of words that have them', async () => {
    const text = (await extractDocument(pdfInput(await typesetPdf('article')))).pages.join('\n');
    // Cut by groff at line ends in this PDF (see pdftotext -layout): the words come out whole …
    for (const word of ['recovery', 'considerably', 'photographed', 'classification', 'thirty'])
      expect(text).toMatch(new RegExp(`\\b${word}\\b`));
    expect(text).not.toMatch(/\p{L}-\n\p{Ll}/u);
    // … and compounds broken at their own hyphen keep it.
    for (const word of ['Year-to-year', 'deep-water', 'well-known', 'sea-surface'])
      expect(text).toContain(word);
  });
});

describe('two-column pages drawn row by row across their columns (redrawn by rows.py)', () => {
  // What poppler's pdftotext 22.12.0 reads from columns-by-row.pdf, as from columns.pdf: column by
  // column, a blank line between the title, the abstract and the two paragraphs. (Of the article
  // with a 10-point gutter it reads a right-column line before the left column, in either order.)
  const POPPLER = `Tide Pools of a Rocky Shore

A title and an abstract across the page, then two columns of
plain prose.

The first paragraph tells of the
rocks at low tide, where small pools
are left behind by the sea. Each pool
holds its own water until the tide
returns, warming in the sun through
the long afternoon. Snails graze the
thin film of algae on the stones, and
crabs hide in the cracks below the
weed.

The second paragraph is about
the animals that stay fixed to the
rock. Anemones close when the
water drains away and open again
when it comes back. Barnacles feed
only when the water covers them,
sweeping the sea with their legs. The
last sentence of the page ends here.
`;
  const paragraphs = (text: string) =>
    text
      .trim()
      .split(/\n\s*\n/)
      .map((p) => p.replace(/\s+/g, ' '));

  it('reads the article and its narrow-gutter setting the same, whichever order they are drawn in', async () => {
    const pages = async (name: (typeof ARTICLES)[number]) =>
      (await extractDocument(pdfInput(await typesetPdf(name)))).pages;
    expect(await pages('article-by-row')).toEqual(await pages('article'));
    expect(await pages('article-narrow-by-row')).toEqual(await pages('article-narrow'));
  });

  for (const name of ['columns-by-row', 'columns'] as const) {
    it(`${name}: reads column by column, paragraph by paragraph, as pdftotext does`, async () => {
      const doc = await extractDocument(pdfInput(await typesetPdf(name)));
      expect(doc.pages).toHaveLength(1);
      expect(paragraphs(doc.pages[0]!)).toEqual(paragraphs(POPPLER));
    });
  }
});

describe('Japanese, Chinese and Korean in CID-keyed fonts (ghostscript; IPA Mincho, AR PL UMing, Nanum Myeongjo)', () => {
  it('takes its CMaps from a pdfjs-dist of the very version of pdf.js that unpdf bundles', () => {
    // Moving unpdf means moving pdfjs-dist with it (apps/api/package.json, docs/dependencies.md).
    const installed = (createRequire(import.meta.url)('pdfjs-dist/package.json') as { version: string })
      .version;
    expect(installed).toBe(bundledPdfjs);
  });

  // Each PDF's font is CID-keyed TrueType with a predefined CMap and no ToUnicode map (pdffonts:
  // "CID TrueType", uni "no"): without the CMap, pdf.js reads no text or the wrong text. Vertical
  // writing reads column by column, right to left.
  for (const name of CJK) {
    it(`${name}: reads every line exactly through its CMap`, async () => {
      const doc = await extractDocument(pdfInput(await typesetPdf(name)));
      expect(doc.pages).toEqual([(await cjkLines(name)).join('\n')]);
    });
  }
});
