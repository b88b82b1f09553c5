/**
 * PDFs for tests: real files made on the spot, so a test shows what it feeds the extractor.
 *
 * - makePdf: a text PDF, one string per page (pdf-lib, Helvetica 12 pt).
 * - makeImageOnlyPdf: one page with a drawn shape and no text, like a scan without OCR.
 * - makeZeroPagePdf: a well-formed PDF whose page tree is empty.
 * - makeEncryptedPdf: a PDF that needs a password to open.
 * - makeDeflateBombPdf: a small PDF whose page inflates to a huge content stream.
 * - makeSlowPdf: thousands of pages sharing one content stream of a great many operators.
 *
 * The last four are written by hand (pdf-lib will not write them). Outputs are byte-for-byte the
 * same on every call, so a fuzz seed reproduces its case.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createDeflate } from 'node:zlib';
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

const PAGE = { width: 612, height: 792 }; // US Letter, in points
const MARGIN = 72;
const FONT_SIZE = 12;
const LINE_HEIGHT = 15;
/** pdf-lib stamps the current time otherwise; a fixed date keeps the bytes stable. */
const FIXED_DATE = new Date('2024-01-01T00:00:00Z');

/**
 * A PDF with one page per string, each drawn in Helvetica with long lines wrapped at the margins,
 * "\n" starting a new line and runs of spaces drawn as one. The text must be in Windows-1252
 * (Helvetica's encoding here; pdf-lib throws on anything else) and fit on the page: about 43 lines
 * of about 80 characters. Extracted, a page reads back as its lines joined by "\n".
 * `title` becomes the document's Info Title; without it the PDF has none.
 */
export async function makePdf(pages: string[], options: { title?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  stableMetadata(doc);
  if (options.title !== undefined) doc.setTitle(options.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const width = PAGE.width - 2 * MARGIN;
  for (const text of pages) {
    const page = doc.addPage([PAGE.width, PAGE.height]);
    let y = PAGE.height - MARGIN;
    for (const line of wrap(text, (s) => font.widthOfTextAtSize(s, FONT_SIZE), width)) {
      page.drawText(line, { x: MARGIN, y, size: FONT_SIZE, font });
      y -= LINE_HEIGHT;
    }
  }
  return doc.save();
}

/** One page with a filled rectangle and a circle and no text: a scan, as a text extractor sees it. */
export async function makeImageOnlyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  stableMetadata(doc);
  const page = doc.addPage([PAGE.width, PAGE.height]);
  page.drawRectangle({ x: 100, y: 400, width: 300, height: 200, color: rgb(0.2, 0.4, 0.8) });
  page.drawCircle({ x: 300, y: 250, size: 80, borderColor: rgb(0, 0, 0), borderWidth: 4 });
  return doc.save();
}

/** A valid PDF whose page tree has no pages (/Count 0). */
export function makeZeroPagePdf(): Uint8Array {
  return handWrittenPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']);
}

/**
 * A one-page PDF under the Standard security handler (RC4 40-bit: /V 1 /R 2) whose /U entry does
 * not match the empty user password, so a reader must ask for one (pdf.js: PasswordException,
 * NEED_PASSWORD). /O and /U are arbitrary 32-byte strings; /ID is required by the key derivation.
 */
export function makeEncryptedPdf(): Uint8Array {
  const hex = (byte: string, count: number) => `<${byte.repeat(count)}>`;
  return handWrittenPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
      `<< /Filter /Standard /V 1 /R 2 /O ${hex('ab', 32)} /U ${hex('cd', 32)} /P -4 >>`,
    ],
    `/Encrypt 4 0 R /ID [${hex('01', 16)} ${hex('01', 16)}]`,
  );
}

/**
 * A one-page PDF whose content stream says "Hello" and is then padded with spaces to `inflatedMiB`
 * MiB, FlateDecode-compressed about 1,000 to 1: 1 KiB per MiB inflated. A reader that holds
 * decoded streams in memory needs all of it.
 */
export async function makeDeflateBombPdf(inflatedMiB: number): Promise<Uint8Array> {
  const mib = new Uint8Array(2 ** 20).fill(0x20);
  const chunks = (function* () {
    yield new TextEncoder().encode('BT /F1 12 Tf 72 712 Td (Hello) Tj ET\n');
    for (let i = 0; i < inflatedMiB; i++) yield mib;
  })();
  const stream = await buffer(Readable.from(chunks).pipe(createDeflate({ level: 9 })));
  return handWrittenPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    { dict: `<< /Length ${stream.length} /Filter /FlateDecode >>`, stream },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * A PDF that is slow to read but small and valid: `pages` pages (default 2,000) that all share one
 * content stream of `operators` `q Q` pairs (default 250,000) around a line of text. A reader parses
 * the stream again for every page: the defaults make a 1.3 MB file that keeps pdf.js busy well past
 * the 30 s extraction limit (issue 24, point 8); fewer operators make it finish.
 */
export function makeSlowPdf(options: { pages?: number; operators?: number; text?: string } = {}): Uint8Array {
  const pages = options.pages ?? 2_000;
  const operators = options.operators ?? 250_000;
  // `text`, the line drawn, makes files of the same shape different files: an owner's library
  // refuses the same bytes twice (SPEC §6d). Letters, digits, spaces and . , - only (unescaped).
  const line = (options.text ?? 'A slow page.').replace(/[^\w .,-]/g, '');
  const stream = new TextEncoder().encode(
    `${'q Q\n'.repeat(operators)}BT /F1 12 Tf 72 712 Td (${line}) Tj ET\n`,
  );
  // Objects: 1 catalog, 2 page tree, 3 the shared stream, 4 the font, then one per page.
  const kids = Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ');
  const page =
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>';
  return handWrittenPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    { dict: `<< /Length ${stream.length} >>`, stream },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from({ length: pages }, () => page),
  ]);
}

function stableMetadata(doc: PDFDocument): void {
  doc.setCreationDate(FIXED_DATE);
  doc.setModificationDate(FIXED_DATE);
}

/** Greedy word wrap; a word wider than the line is split by characters. */
function wrap(text: string, widthOf: (s: string) => number, max: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (widthOf(candidate) <= max) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = '';
      for (const char of word) {
        if (line && widthOf(line + char) > max) {
          lines.push(line);
          line = '';
        }
        line += char;
      }
    }
    lines.push(line);
  }
  return lines;
}

/**
 * A classic PDF 1.4 file: numbered objects (a dictionary, or a stream with its bytes), a
 * cross-reference table with each object's byte offset, and a trailer (plus `trailerExtra`).
 */
function handWrittenPdf(
  objects: Array<string | { dict: string; stream: Uint8Array }>,
  trailerExtra = '',
): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let length = 0;
  const write = (part: string | Uint8Array) => {
    const bytes = typeof part === 'string' ? encoder.encode(part) : part;
    parts.push(bytes);
    length += bytes.length;
  };
  write('%PDF-1.4\n');
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    if (typeof object === 'string') {
      write(`${i + 1} 0 obj\n${object}\nendobj\n`);
    } else {
      write(`${i + 1} 0 obj\n${object.dict}\nstream\n`);
      write(object.stream);
      write('\nendstream\nendobj\n');
    }
  });
  const xref = length;
  write(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) write(`${String(offset).padStart(10, '0')} 00000 n \n`);
  write(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra} >>\n`);
  write(`startxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Scanned pages (packages/testing/fixtures/scans, made with ImageMagick 6.9; the README there has
 * the commands): `page-1.jpg` and `page-2.jpg` hold four printed sentences each, `blank.jpg` only
 * paper noise. Debian's ImageMagick may not write PDF (its security policy), so the pages are
 * wrapped here, each JPEG filling an A4 page with no text layer, as a scanner's PDF has them.
 */
export type ScanPage = 'page-1' | 'page-2' | 'blank';

export async function makeScannedPdf(pages: readonly ScanPage[]): Promise<Uint8Array> {
  const { readFile } = await import('node:fs/promises');
  const doc = await PDFDocument.create();
  stableMetadata(doc);
  for (const name of pages) {
    const jpeg = await readFile(new URL(`../fixtures/scans/${name}.jpg`, import.meta.url));
    const image = await doc.embedJpg(new Uint8Array(jpeg));
    const page = doc.addPage([595.28, 841.89]);
    page.drawImage(image, { x: 0, y: 0, width: 595.28, height: 841.89 });
  }
  return doc.save();
}

/** The sentences printed on the scans, line by line as ImageMagick drew them. */
export const SCAN_TEXT: Record<Exclude<ScanPage, 'blank'>, string[]> = {
  'page-1': [
    'Kelp forests along the northern coast were surveyed',
    'in the spring of 2019 by divers from three stations.',
    'Canopy cover fell by half after the marine heatwave,',
    'and purple urchins grazed the remaining stipes.',
  ],
  'page-2': [
    'Sea otters returned to the sheltered bay in late summer.',
    'Where otters fed, urchin density dropped within months',
    'and young kelp recruited on the cleared rock.',
    'The recovery was slowest on the exposed outer reef.',
  ],
};
