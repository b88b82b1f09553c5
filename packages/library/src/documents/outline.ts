/**
 * A document's outline for the agent (SPEC §7b, `agent.document`): a short list of headings with
 * their page, so a model that never receives the whole document knows where to read.
 *
 * - Markdown: its ATX headings (`#` … `######`), outside fenced code blocks.
 * - PDF and plain text: short lines that look like headings — a numbered section ("2.1 Methods",
 *   "IV. RESULTS") or one of the usual section names ("Abstract", "Introduction", "Conclusions")
 *   alone on its line. Nothing is found in a text without such lines, and that is fine: the outline
 *   is a hint, the passages are read through `library.read`.
 *
 * At most `OUTLINE_MAX` entries: when a Markdown outline is longer, the deeper levels are left out
 * first; otherwise the first ones are kept. A heading repeated (a running head on every page) is
 * listed once, where it first appears.
 */
import type { DocumentSource } from '@sponge/contract';

export const OUTLINE_MAX = 40;
/** A heading longer than this is clipped; a heading-like line longer than it is not a heading. */
const TITLE_CHARS = 120;

export interface OutlineEntry {
  title: string;
  /** 1-based page the heading is on. */
  page: number;
}

interface Heading extends OutlineEntry {
  level: number;
}

const SECTION_NAMES = new Set([
  'abstract',
  'summary',
  'introduction',
  'background',
  'related work',
  'methods',
  'method',
  'methodology',
  'materials and methods',
  'study area',
  'data',
  'results',
  'discussion',
  'results and discussion',
  'conclusion',
  'conclusions',
  'limitations',
  'acknowledgements',
  'acknowledgments',
  'references',
  'bibliography',
  'appendix',
  'supplementary material',
]);

// "2", "2.1", "2.1.3" (each part one or two digits, so a year is not a section number), or a
// Roman numeral with a dot ("IV."), then a title starting with a capital letter.
const NUMBERED = /^(?:(\d{1,2}(?:\.\d{1,2}){0,3})\.?|([IVX]{1,5})\.)\s+(\p{Lu}[^\n]*)$/u;
const MARKDOWN_HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The page (1-based) of the character at `offset`, given where each page starts. */
function pageAt(pageStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = pageStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pageStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Each line of `text` with the offset it starts at. */
function* lines(text: string): Generator<{ line: string; at: number }> {
  let at = 0;
  while (at <= text.length) {
    const end = text.indexOf('\n', at);
    const stop = end === -1 ? text.length : end;
    yield { line: text.slice(at, stop), at };
    if (end === -1) return;
    at = end + 1;
  }
}

function clip(title: string): string {
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1).trimEnd()}…`;
}

function markdownHeadings(text: string, pageStarts: readonly number[]): Heading[] {
  const found: Heading[] = [];
  let fence: string | null = null;
  for (const { line, at } of lines(text)) {
    const opening = FENCE.exec(line)?.[1];
    if (opening) {
      if (fence === null) fence = opening;
      else if (opening[0] === fence[0] && opening.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const match = MARKDOWN_HEADING.exec(line);
    if (!match) continue;
    const title = match[2]!.replace(/\s+/g, ' ').trim();
    if (title !== '')
      found.push({ title: clip(title), page: pageAt(pageStarts, at), level: match[1]!.length });
  }
  return found;
}

/** A line that reads as a section heading in extracted text, with its depth; null for prose. */
function headingOf(raw: string): { title: string; level: number } | null {
  const line = raw.replace(/\s+/g, ' ').trim();
  if (line.length < 3 || line.length > TITLE_CHARS) return null;
  const bare = line.replace(/[:.]$/, '');
  if (SECTION_NAMES.has(bare.toLowerCase())) return { title: bare, level: 1 };
  const numbered = NUMBERED.exec(line);
  if (!numbered) return null;
  const rest = numbered[3]!;
  // A heading is a few words, not a sentence: no full stop inside or at the end, no comma at the end.
  if (rest.split(' ').length > 12 || /[.;,]$/.test(rest) || /\.\s/.test(rest)) return null;
  // Mostly letters: a table row ("3 Sites 112 45 0.3") is not a heading.
  const letters = rest.match(/\p{L}/gu)?.length ?? 0;
  if (letters < rest.replace(/\s/g, '').length * 0.7) return null;
  const level = numbered[1] ? numbered[1].split('.').length : 1;
  return { title: line, level };
}

function lineHeadings(text: string, pageStarts: readonly number[]): Heading[] {
  const found: Heading[] = [];
  for (const { line, at } of lines(text)) {
    const heading = headingOf(line);
    if (heading) found.push({ ...heading, page: pageAt(pageStarts, at) });
  }
  return found;
}

/** Keeps the shallowest levels that fit in `OUTLINE_MAX`, then at most that many, in document order. */
function fit(headings: Heading[]): OutlineEntry[] {
  const seen = new Set<string>();
  const unique = headings.filter((h) => {
    const key = h.title.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const levels = [...new Set(unique.map((h) => h.level))].sort((a, b) => a - b);
  let deepest = levels[0] ?? 1;
  for (const level of levels) {
    if (unique.filter((h) => h.level <= level).length > OUTLINE_MAX) break;
    deepest = level;
  }
  return unique
    .filter((h) => h.level <= deepest)
    .slice(0, OUTLINE_MAX)
    .map(({ title, page }) => ({ title, page }));
}

/**
 * The outline of a document's stored text.
 *
 * @example
 * documentOutline('# Reefs\n\n## Methods\n…', [0], 'markdown'); // [{ title: 'Reefs', page: 1 }, { title: 'Methods', page: 1 }]
 */
export function documentOutline(
  text: string,
  pageStarts: readonly number[],
  source: DocumentSource,
): OutlineEntry[] {
  const starts = pageStarts.length > 0 ? pageStarts : [0];
  return fit(source === 'markdown' ? markdownHeadings(text, starts) : lineHeadings(text, starts));
}
