// A document's text as pages of paragraphs. The API joins a PDF's pages with "\n\n" and says
// where each one starts (`pageStarts`), so pages are cut by offset, never guessed from the text.

/** A paragraph's text, trimmed, and where that text starts in the whole document's text. */
export interface Paragraph {
  text: string;
  start: number;
}

const BLANK_LINE = /\n\s*\n/gu;

/** Paragraphs are separated by blank lines; lines inside one are kept together. */
export function paragraphsOf(text: string): string[] {
  return paragraphSpans(text, 0).map((p) => p.text);
}

/** The paragraphs of `text`, which starts at `offset` of the whole text. */
export function paragraphSpans(text: string, offset: number): Paragraph[] {
  const out: Paragraph[] = [];
  let from = 0;
  for (const cut of [...text.matchAll(BLANK_LINE), null]) {
    const to = cut ? cut.index : text.length;
    const raw = text.slice(from, to);
    const trimmed = raw.trim();
    if (trimmed) out.push({ text: trimmed, start: offset + from + raw.length - raw.trimStart().length });
    if (cut) from = cut.index + cut[0].length;
  }
  return out;
}

/** A page of the text: its number (1-based) and where it starts and ends in the whole text. */
interface PageCut {
  number: number;
  start: number;
  end: number;
}

/**
 * Where the pages of a text `length` long start and end, cut at `pageStarts` (ascending character
 * offsets; the first is 0). A page is numbered by its place in `pageStarts`, so a blank page keeps
 * its number. An offset out of order or out of range is skipped rather than trusted: a bad list can
 * at worst merge pages, never lose text. Without offsets the whole text is page 1.
 */
export function pageCuts(length: number, pageStarts: readonly number[] | null | undefined): PageCut[] {
  const cuts = [{ number: 1, start: 0, end: length }];
  (pageStarts ?? []).forEach((start, i) => {
    const last = cuts[cuts.length - 1]!;
    if (i > 0 && Number.isInteger(start) && start >= last.start && start <= length) {
      last.end = start;
      cuts.push({ number: i + 1, start, end: length });
    }
  });
  return cuts;
}
