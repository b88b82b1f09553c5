/**
 * extractDocument on real files: PDFs made by pdf-lib or by hand (@sponge/testing/pdf-fixtures),
 * read by pdf.js on real worker threads.
 */
import { describe, expect, it, vi } from 'vitest';
import { SPONGE_LIMITS } from '@sponge/contract';
import { makeEncryptedPdf, makeImageOnlyPdf, makePdf, makeZeroPagePdf } from '@sponge/testing/pdf-fixtures';
import { DocumentRejected, extractDocument } from './index.ts';
import type { ExtractOptions } from './index.ts';
import { usableTitle } from './extract.ts';
import { livePdfThreads } from './pdf-thread.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const pdfInput = (bytes: Uint8Array) => ({ bytes, filename: 'paper.pdf', mediaType: 'application/pdf' });

/** The rejection's reason and message; fails the test when the call does not reject with DocumentRejected. */
async function rejection(promise: Promise<unknown>): Promise<{ reason: string; message: string }> {
  const error: unknown = await promise.then(
    () => new Error('expected a DocumentRejected, the document was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DocumentRejected);
  const { reason, message } = error as DocumentRejected;
  return { reason, message };
}

describe('PDF', () => {
  it('gives each page its text, in order, with its line breaks, and the Title metadata', async () => {
    const bytes = await makePdf(['First page.\nSecond line of page one.', 'Page two.', 'Page three.'], {
      title: 'Reef survey 2024',
    });
    const doc = await extractDocument(pdfInput(bytes));
    expect(doc).toEqual({
      source: 'pdf',
      pages: ['First page.\nSecond line of page one.', 'Page two.', 'Page three.'],
      title: 'Reef survey 2024',
      scanned: [],
      metadata: { title: 'Reef survey 2024' },
    });
    expect(livePdfThreads()).toBe(0);
  });

  it('wraps a long page onto lines and keeps every word', async () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
    const doc = await extractDocument(pdfInput(await makePdf([words.join(' ')])));
    expect(doc.pages).toHaveLength(1);
    const lines = doc.pages[0]!.split('\n');
    expect(lines.length).toBeGreaterThan(10);
    expect(doc.pages[0]!.split(/\s+/)).toEqual(words);
  });

  it('has a null title without usable Title metadata', async () => {
    expect((await extractDocument(pdfInput(await makePdf(['text'])))).title).toBeNull();
    expect((await extractDocument(pdfInput(await makePdf(['text'], { title: '   ' })))).title).toBeNull();
    expect(
      (await extractDocument(pdfInput(await makePdf(['text'], { title: 'Untitled' })))).title,
    ).toBeNull();
  });

  it('is decided by content: a PDF named .txt is a PDF, a text named .pdf is text', async () => {
    const pdf = await makePdf(['Hello.']);
    const asText = await extractDocument({ bytes: pdf, filename: 'notes.txt', mediaType: 'text/plain' });
    expect(asText.source).toBe('pdf');
    expect(asText.pages).toEqual(['Hello.']);

    const text = await extractDocument({
      bytes: utf8('plain words'),
      filename: 'paper.pdf',
      mediaType: 'application/pdf',
    });
    expect(text).toEqual({ source: 'text', pages: ['plain words'], title: null, scanned: [] });
  });

  it('finds a PDF header after leading junk in a binary file, but not in a text that quotes one', async () => {
    const pdf = await makePdf(['Behind junk.']);
    const junk = new Uint8Array([0xff, 0xfe, 0x00, 0x01]);
    const withJunk = new Uint8Array([...junk, ...pdf]);
    expect((await extractDocument(pdfInput(withJunk))).pages).toEqual(['Behind junk.']);

    const note = utf8('# Notes\n\nEvery PDF starts with `%PDF-1.7`.\n');
    expect(await extractDocument({ bytes: note, filename: 'notes.md', mediaType: '' })).toMatchObject({
      source: 'markdown',
    });
  });

  it('refuses a password-protected PDF in plain words', async () => {
    expect(await rejection(extractDocument(pdfInput(makeEncryptedPdf())))).toEqual({
      reason: 'invalid_document',
      message: 'This PDF is password-protected; remove the password and upload it again.',
    });
  });

  it('refuses a truncated PDF as damaged', async () => {
    const pdf = await makePdf(['Some text.', 'More text.']);
    for (const length of [20, Math.floor(pdf.length / 2)]) {
      expect(await rejection(extractDocument(pdfInput(pdf.slice(0, length))))).toEqual({
        reason: 'invalid_document',
        message: 'This PDF is damaged or incomplete and cannot be read.',
      });
    }
  });

  it('refuses a PDF with no pages', async () => {
    expect(await rejection(extractDocument(pdfInput(makeZeroPagePdf())))).toEqual({
      reason: 'invalid_document',
      message: 'This PDF has no pages.',
    });
  });

  it('accepts a PDF without a text layer, listing its pages for OCR', async () => {
    expect(await extractDocument(pdfInput(await makeImageOnlyPdf()))).toMatchObject({
      pages: [''],
      scanned: [1],
    });
    expect((await extractDocument(pdfInput(await makePdf(['', ' '])))).scanned).toEqual([1, 2]);
  });

  it('accepts blank pages beside pages with text, listing only those for OCR', async () => {
    const doc = await extractDocument(pdfInput(await makePdf(['', 'Text on page two.', ''])));
    expect(doc.pages).toEqual(['', 'Text on page two.', '']);
    expect(doc.scanned).toEqual([1, 3]);
  });

  it(`refuses more than ${SPONGE_LIMITS.documentPages.toLocaleString('en')} pages, naming the count and the limit`, async () => {
    const pdf = await makePdf(Array.from({ length: 2_345 }, () => ''));
    const started = performance.now();
    expect(await rejection(extractDocument(pdfInput(pdf)))).toEqual({
      reason: 'too_large',
      message: 'This PDF has 2,345 pages; the limit is 2,000.',
    });
    // Refused from the page tree, without reading 2,345 pages.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('checks the page count before reading any page', async () => {
    const pdf = await makePdf(['a long page of text', 'another long page', 'a third']);
    // Both limits are exceeded; reading pages first would have hit the character limit.
    expect(await rejection(extractDocument(pdfInput(pdf), { maxPages: 2, maxChars: 5 }))).toEqual({
      reason: 'too_large',
      message: 'This PDF has 3 pages; the limit is 2.',
    });
    expect((await extractDocument(pdfInput(pdf), { maxPages: 3 })).pages).toHaveLength(3);
  });

  it('refuses more than maxChars of text, naming the limit', async () => {
    const pdf = await makePdf(['12345', '67890']);
    expect(await rejection(extractDocument(pdfInput(pdf), { maxChars: 9 }))).toEqual({
      reason: 'too_large',
      message: 'This PDF has more than 9 characters of text; the limit is 9.',
    });
    expect((await extractDocument(pdfInput(pdf), { maxChars: 10 })).pages).toEqual(['12345', '67890']);
  });

  it('refuses a PDF that takes longer than timeoutMs and stops its thread', async () => {
    const pdf = await makePdf(['Slow enough for a 1 ms deadline: starting the thread alone takes longer.']);
    const started = performance.now();
    expect(await rejection(extractDocument(pdfInput(pdf), { timeoutMs: 1 }))).toEqual({
      reason: 'invalid_document',
      message:
        'This PDF took too long to read (more than 0.001 seconds); it may be damaged or unusually complex.',
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(livePdfThreads()).toBe(0);
  });

  it('reads two PDFs at once, each on its own thread, without mixing them up', async () => {
    const a = await makePdf(['Alpha one.', 'Alpha two.'], { title: 'Alpha' });
    const b = await makePdf(['Beta one.'], { title: 'Beta' });
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, livePdfThreads())), 1);
    try {
      const [da, db] = await Promise.all([extractDocument(pdfInput(a)), extractDocument(pdfInput(b))]);
      expect(da).toEqual({
        source: 'pdf',
        pages: ['Alpha one.', 'Alpha two.'],
        title: 'Alpha',
        scanned: [],
        metadata: { title: 'Alpha' },
      });
      expect(db).toEqual({
        source: 'pdf',
        pages: ['Beta one.'],
        title: 'Beta',
        scanned: [],
        metadata: { title: 'Beta' },
      });
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBe(2);
    expect(livePdfThreads()).toBe(0);
  });

  it('runs at most two threads; the others wait their turn', async () => {
    const pdfs = await Promise.all(Array.from({ length: 5 }, (_, i) => makePdf([`Document ${i}.`])));
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, livePdfThreads())), 1);
    try {
      const docs = await Promise.all(pdfs.map((p) => extractDocument(pdfInput(p))));
      expect(docs.map((d) => d.pages[0])).toEqual(pdfs.map((_, i) => `Document ${i}.`));
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBe(2);
    expect(livePdfThreads()).toBe(0);
  });

  it('leaves the caller’s bytes as they were', async () => {
    const pdf = await makePdf(['Keep me.']);
    const copy = pdf.slice();
    await extractDocument(pdfInput(pdf));
    expect(pdf).toEqual(copy);
  });
});

describe('text and Markdown', () => {
  it('gives one page of text, with a null title', async () => {
    expect(
      await extractDocument({ bytes: utf8('Hello, wörld ✓'), filename: 'a.txt', mediaType: 'text/plain' }),
    ).toEqual({ source: 'text', pages: ['Hello, wörld ✓'], title: null, scanned: [] });
  });

  it('is Markdown by a .md or .markdown name or a text/markdown media type', async () => {
    const bytes = utf8('# Title\n\nBody');
    const source = async (filename: string, mediaType: string) =>
      (await extractDocument({ bytes, filename, mediaType })).source;
    expect(await source('notes.md', 'text/plain')).toBe('markdown');
    expect(await source('NOTES.MARKDOWN', '')).toBe('markdown');
    expect(await source('notes', 'text/markdown; charset=utf-8')).toBe('markdown');
    expect(await source('notes.txt', 'text/plain')).toBe('text');
    expect(await source('notes.md.txt', '')).toBe('text');
  });

  it('strips a byte order mark and turns CRLF and CR into LF', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('one\r\ntwo\rthree\n')]);
    const doc = await extractDocument({ bytes, filename: 'a.txt', mediaType: 'text/plain' });
    expect(doc.pages).toEqual(['one\ntwo\nthree\n']);
  });

  it('refuses text that is empty or only whitespace', async () => {
    for (const text of ['', ' \n\t\r\n', '\ufeff  ']) {
      expect(
        await rejection(extractDocument({ bytes: utf8(text), filename: 'a.txt', mediaType: '' })),
      ).toEqual({
        reason: 'no_text',
        message: 'This file has no text.',
      });
    }
  });

  it('refuses more than maxChars characters, counted after line endings are normalised', async () => {
    const input = { bytes: utf8('ab\r\ncd'), filename: 'a.txt', mediaType: '' };
    expect((await extractDocument(input, { maxChars: 5 })).pages).toEqual(['ab\ncd']);
    expect(await rejection(extractDocument(input, { maxChars: 4 }))).toEqual({
      reason: 'too_large',
      message: 'This document has 5 characters; the limit is 4.',
    });
    const big = {
      bytes: utf8('x'.repeat(SPONGE_LIMITS.documentChars + 1)),
      filename: 'a.txt',
      mediaType: '',
    };
    expect((await rejection(extractDocument(big))).message).toBe(
      'This document has 2,000,001 characters; the limit is 2,000,000.',
    );
  });
});

describe('anything else', () => {
  const notADocument = {
    reason: 'invalid_document',
    message: 'This file is not a PDF, plain text or Markdown document.',
  };
  const files: Record<string, Uint8Array> = {
    'a PNG image': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
    'a zip archive': new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 0x08, 0]),
    'invalid UTF-8': new Uint8Array([0x68, 0x69, 0xc3, 0x28]),
    'text with a NUL byte': utf8('almost\u0000text'),
    'UTF-16 text': new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0]),
  };
  for (const [name, bytes] of Object.entries(files)) {
    it(`refuses ${name}, whatever it is called`, async () => {
      for (const [filename, mediaType] of [
        ['file.txt', 'text/plain'],
        ['file.md', 'text/markdown'],
        ['file.pdf', 'application/pdf'],
      ] as const) {
        expect(await rejection(extractDocument({ bytes, filename, mediaType }))).toEqual(notADocument);
      }
    });
  }

  it('throws a RangeError, not a DocumentRejected, for options that make no sense', async () => {
    const input = { bytes: utf8('text'), filename: 'a.txt', mediaType: '' };
    for (const options of [{ timeoutMs: 0 }, { maxPages: -1 }, { maxChars: Number.NaN }] as ExtractOptions[])
      await expect(extractDocument(input, options)).rejects.toThrow(RangeError);
  });
});

describe('usableTitle', () => {
  it('tidies whitespace and control characters', () => {
    expect(usableTitle('  Reef\tsurvey\n\u0007 2024 ')).toBe('Reef survey 2024');
  });

  it('is null for titles that say nothing', () => {
    for (const raw of [null, '', '   ', '---', 'Untitled', 'untitled document'])
      expect(usableTitle(raw)).toBeNull();
  });

  it(`cuts a title longer than ${SPONGE_LIMITS.titleChars} characters at a word`, () => {
    const title = usableTitle('word '.repeat(100))!;
    expect(title.length).toBeLessThanOrEqual(SPONGE_LIMITS.titleChars);
    expect(title).toMatch(/word…$/);
    const unbroken = usableTitle('𝒜'.repeat(200))!;
    expect(unbroken.length).toBeLessThanOrEqual(SPONGE_LIMITS.titleChars);
    expect(unbroken.endsWith('𝒜…')).toBe(true);
  });
});

describe('pdf fixtures', () => {
  it('are byte-for-byte the same on every call, whatever the clock says', async () => {
    const makeAll = async () => [await makePdf(['Same.'], { title: 'T' }), await makeImageOnlyPdf()];
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2020-02-02T02:02:02Z'));
      const first = await makeAll();
      vi.setSystemTime(new Date('2031-03-03T03:03:03Z'));
      expect(await makeAll()).toEqual(first);
    } finally {
      vi.useRealTimers();
    }
    expect(makeEncryptedPdf()).toEqual(makeEncryptedPdf());
  });
});
