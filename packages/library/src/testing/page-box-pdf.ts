/**
 * A PDF of pages with the page boxes a test asks for, written out by hand: a few hundred bytes
 * that declare pages of any size (the OCR page-size limits, issue 37 point 3), which pdf-lib and
 * the like refuse or clamp; and small scans, a part of a scanned page cropped to its printed lines
 * (OCR's tests, which take the CPU that OCR of a whole page would).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';

export interface PageBox {
  /** The MediaBox, [x0 y0 x1 y1] in points, written as given (zero, negative and huge alike). */
  mediaBox: readonly number[];
  /** PDF 1.6's UserUnit: the size of one unit in points (a page of 14,400 units at 10 is 2,000 inches). */
  userUnit?: number;
  /** What of the page is shown (and drawn): pdf.js takes the MediaBox's overlap with it. */
  cropBox?: readonly number[];
  /**
   * An 8-bit grey image of this many pixels drawn over the whole MediaBox: a scan as pdf.js sees
   * it, decoded whole whatever the page's size. `jpeg`: a greyscale JPEG of those dimensions
   * (a scan's own bytes); without it the image is white, deflated to a few kilobytes a megapixel.
   */
  image?: { width: number; height: number; jpeg?: Uint8Array };
}

export function makePageBoxPdf(pages: readonly PageBox[]): Uint8Array {
  const chunks: Array<string | Uint8Array> = [];
  let length = 0;
  const put = (part: string | Uint8Array) => {
    chunks.push(part);
    length += typeof part === 'string' ? part.length : part.byteLength;
  };
  // Objects 1 and 2 are the catalogue and the page tree; each page takes three numbers: the page,
  // its content stream and its image (the last two unused without an image).
  const pageObject = (i: number) => 3 + i * 3;
  const objects: Array<{ n: number; dict: string; stream?: Uint8Array }> = [
    { n: 1, dict: '<</Type/Catalog/Pages 2 0 R>>' },
    {
      n: 2,
      dict: `<</Type/Pages/Kids[${pages.map((_, i) => `${pageObject(i)} 0 R`).join(' ')}]/Count ${pages.length}>>`,
    },
  ];
  pages.forEach((p, i) => {
    const n = pageObject(i);
    const unit =
      (p.userUnit === undefined ? '' : `/UserUnit ${p.userUnit}`) +
      (p.cropBox === undefined ? '' : `/CropBox[${p.cropBox.join(' ')}]`);
    if (!p.image) {
      objects.push({ n, dict: `<</Type/Page/Parent 2 0 R/MediaBox[${p.mediaBox.join(' ')}]${unit}>>` });
      return;
    }
    const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = p.mediaBox;
    const content = new TextEncoder().encode(`q ${x1 - x0} 0 0 ${y1 - y0} ${x0} ${y0} cm /Im0 Do Q`);
    const pixels =
      p.image.jpeg ?? deflateSync(new Uint8Array(p.image.width * p.image.height).fill(255), { level: 9 });
    const filter = p.image.jpeg ? 'DCTDecode' : 'FlateDecode';
    objects.push(
      {
        n,
        dict:
          `<</Type/Page/Parent 2 0 R/MediaBox[${p.mediaBox.join(' ')}]${unit}` +
          `/Resources<</XObject<</Im0 ${n + 2} 0 R>>>>/Contents ${n + 1} 0 R>>`,
      },
      { n: n + 1, dict: `<</Length ${content.byteLength}>>`, stream: content },
      {
        n: n + 2,
        dict:
          `<</Type/XObject/Subtype/Image/Width ${p.image.width}/Height ${p.image.height}` +
          `/ColorSpace/DeviceGray/BitsPerComponent 8/Filter/${filter}/Length ${pixels.byteLength}>>`,
        stream: pixels,
      },
    );
  });
  const size = Math.max(...objects.map((o) => o.n)) + 1;
  const offsets = new Map<number, number>();
  put('%PDF-1.6\n');
  for (const o of objects) {
    offsets.set(o.n, length);
    put(`${o.n} 0 obj${o.dict}`);
    if (o.stream) {
      put('stream\n');
      put(o.stream);
      put('\nendstream');
    }
    put('endobj\n');
  }
  const xref = length;
  put(`xref\n0 ${size}\n0000000000 65535 f \n`);
  for (let n = 1; n < size; n++) {
    const offset = offsets.get(n);
    put(offset === undefined ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`);
  }
  put(`trailer<</Size ${size}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`);
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of chunks) {
    const bytes = typeof part === 'string' ? new TextEncoder().encode(part) : part;
    out.set(bytes, at);
    at += bytes.byteLength;
  }
  return out;
}

/** The scans of @sponge/testing (packages/testing/fixtures/scans): A4 at 150 dpi, greyscale JPEG. */
const SCANS = new URL(
  '../fixtures/scans/',
  pathToFileURL(createRequire(import.meta.url).resolve('@sponge/testing/pdf-fixtures')),
);
const A4 = [0, 0, 595.28, 841.89];
/**
 * Where the four printed lines of page-1 and page-2 are, in points, with a margin (the README
 * there: at 140,220 px of 1,240 × 1,754, 30 px type, turned 0.6°). 520 × 140 pt: drawn at scale 2,
 * a seventh of the whole page's pixels.
 */
const PRINTED_LINES = [40, 630, 560, 770];

/** Pages of the fixture scans, cropped to their printed lines (or the same part of the blank one). */
export function makeSmallScanPdf(pages: ReadonlyArray<'page-1' | 'page-2' | 'blank'>): Uint8Array {
  return makePageBoxPdf(
    pages.map((name) => ({
      mediaBox: A4,
      cropBox: PRINTED_LINES,
      image: { width: 1240, height: 1754, jpeg: new Uint8Array(readFileSync(new URL(`${name}.jpg`, SCANS))) },
    })),
  );
}
