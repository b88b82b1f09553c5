// A transect log: the large document of the flows that time it (large-document.spec.ts,
// review-open-time.spec.ts), every page opening with a line of its own that a citation can quote.
import { makePdf } from '@sponge/testing/pdf-fixtures';

/** Page n of a transect log opens with a line of its own, short enough that no wrap splits it. */
export const transectLine = (n: number): string => `Transect ${n} was surveyed at ${(n % 90) + 5} metres.`;
const TRANSECT_FILLER = 'Divers counted the photo quadrats at each transect and noted the canopy cover. ';

/** Page n of a transect log, `chars` characters long: its line, then filler. */
export function transectPage(n: number, chars: number): string {
  let text = `${transectLine(n)}\n`;
  while (text.length < chars) text += TRANSECT_FILLER;
  return text.slice(0, chars).trimEnd();
}

/** A transect log of `pages` pages as a PDF, page n `chars(n)` characters long: a large document. */
export function transectLogPdf(pages: number, chars: (n: number) => number): Promise<Uint8Array> {
  return makePdf(Array.from({ length: pages }, (_, i) => transectPage(i + 1, chars(i + 1))));
}
