/**
 * How large OCR draws a page (SPEC §6b, issue 37 point 3). A PDF declares its page size itself,
 * and drawing it is what costs: a 300-byte file with one blank 8,000 × 8,000 pt page drew a
 * 16,000 × 16,000 canvas at scale 2, which took 2 GB of memory and 20–40 s. So a page is drawn at
 * scale 2 only while that stays within a fixed number of pixels, smaller beyond it, and a page
 * whose size no PDF page may have is not drawn at all.
 *
 * Loaded by the OCR thread with Node's type stripping: erasable TypeScript only.
 */

/** pdf.js's render scale for OCR: about 144 dpi for a page of points (SPEC §6b). */
export const OCR_SCALE = 2;

/**
 * Pixels per drawn page. 2.5 million keeps every usual paper size at the full scale 2, where
 * Tesseract reads print at 95% confidence: A4 is 1,191 × 1,684 (2.0 M), US Letter 1,224 × 1,584
 * (1.9 M), US Legal 1,224 × 2,016 (2.5 M). Larger pages (A3, posters, a declared 8,000 pt square)
 * are drawn at the scale that fills this budget, so every page costs about what a Legal page
 * does: a 10 MB canvas, and 1–2 s of Tesseract. Their small print may then read less well.
 */
export const OCR_PAGE_PIXELS = 2_500_000;

/**
 * The page sizes a PDF may declare: 3 to 14,400 units a side (ISO 32000-1, annex C, the
 * implementation limits), 14,400 pt being 200 inches. Measured after PDF 1.6's UserUnit, which
 * may make one unit larger than a point: a page of more than 200 inches is no document page.
 */
const MIN_PAGE_SIDE_PT = 3;
export const MAX_PAGE_SIDE_PT = 14_400;

/**
 * pdf.js's limit on an image's pixels: a larger image is left out of the drawing. A scanned page
 * is one image, which pdf.js decodes whole and copies into a canvas of its own size before scaling
 * it onto the page, whatever the page's size: 4 bytes a pixel, and a 20 MB file can declare an
 * image of billions of pixels that inflates from a few kilobytes. 40 million pixels is a page
 * scanned at 600 dpi (A4 is 4,961 × 7,016, 34.8 M; US Legal 5,100 × 8,400, 42.8 M, is just over).
 */
export const OCR_MAX_IMAGE_PIXELS = 40_000_000;

export type PageFit =
  | { ok: true; scale: number; width: number; height: number }
  /** The page's size, in points after UserUnit, is outside what a PDF page may be. */
  | { ok: false; width: number; height: number };

/**
 * The scale to draw a page of `width` × `height` points at (pdf.js's viewport at scale 1), and
 * the canvas that gives: OCR_SCALE, or less so the canvas holds at most `maxPixels`.
 */
export function fitPage(width: number, height: number, maxPixels = OCR_PAGE_PIXELS): PageFit {
  const fits = (side: number) => side >= MIN_PAGE_SIDE_PT && side <= MAX_PAGE_SIDE_PT;
  // NaN fails both comparisons, so it is refused too.
  if (!fits(width) || !fits(height)) return { ok: false, width, height };
  const scale = Math.min(OCR_SCALE, Math.sqrt(maxPixels / (width * height)));
  return { ok: true, scale, width: Math.floor(width * scale), height: Math.floor(height * scale) };
}
