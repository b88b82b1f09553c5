/**
 * What a PDF says the paper is (SPEC §6d): its title, authors, year, DOI, venue and abstract, from
 * what the file holds, in order of trust:
 *
 * 1. the Info dictionary (Title, Author, a custom `doi` key as some publishers write) and XMP
 *    (dc:title, dc:creator, prism:doi, dc:identifier, prism:publicationName, prism:publicationDate,
 *    dc:date), each value passed over when it is what a producer writes in place of one
 *    ("Microsoft Word - draft3.docx", a login name);
 * 2. a DOI printed on pages 1–2, before any list of references;
 * 3. the title as typeset: the largest lines near the top of page 1 that are not a stamp, a banner
 *    or the journal's name;
 * 4. the abstract: the text after an "Abstract" heading on page 1, up to the next heading;
 * 5. the year: XMP's publication date, else one printed on page 1 beside "Published", "©" or
 *    "Copyright". Never the file's creation date: it is when the PDF was made, which for a printed
 *    web page, a scan or a draft is not when the paper was, and a wrong year is worse than none in
 *    a citation.
 *
 * Pure functions over what pdf.js gives, run on the PDF thread by read-pdf.ts. Loaded there with
 * Node's type stripping: erasable TypeScript only.
 */
import type { LayoutItem } from './layout.ts';

export interface PaperMetadata {
  title?: string;
  authors?: string[];
  /** Whole year, 1000..2100. */
  year?: number;
  /** Lower case, without a resolver or `doi:` prefix: `10.1038/nature21707`. */
  doi?: string;
  venue?: string;
  abstract?: string;
}

/** A horizontal line of page 1, from the top down; `size` is the font size most of its characters have. */
export interface TypesetLine {
  text: string;
  size: number;
  y: number;
}

export interface MetadataSources {
  /** pdf.js's Info dictionary: Title, Author, CreationDate…, and `Custom` for keys of the producer's own. */
  info: Record<string, unknown>;
  /** pdf.js's XMP properties, keyed `prefix:name` in lower case (`prism:publicationname`). */
  xmp: Record<string, unknown>;
  firstPageLines: readonly TypesetLine[];
  /** The text of the first pages as read (only pages 1 and 2 are looked at). */
  pages: readonly string[];
}

// The contract's limits (SPONGE_LIMITS: authors, authorChars; metadata.test.ts holds them equal):
// this file runs on the PDF thread, which imports no package at run time.
export const MAX_AUTHORS = 50;
export const MAX_AUTHOR_CHARS = 200;
const MAX_ABSTRACT_CHARS = 5_000;
const MAX_VENUE_CHARS = 300;

export function paperMetadata(sources: MetadataSources): PaperMetadata {
  const { info, xmp } = sources;
  const custom = isRecord(info.Custom) ? info.Custom : {};
  const venue = clean(first(xmp['prism:publicationname']))?.slice(0, MAX_VENUE_CHARS);
  // Some publishers put the journal's name in Title.
  const given = (raw: unknown) => {
    const title = plausibleTitle(raw);
    return title && title.toLowerCase() !== venue?.toLowerCase() ? title : undefined;
  };
  const title =
    given(info.Title) ?? given(first(xmp['dc:title'])) ?? typesetTitle(sources.firstPageLines, venue);
  const fromInfo = splitAuthors(info.Author);
  const authors = fromInfo.length > 0 ? fromInfo : splitAuthors(xmp['dc:creator']);
  const year =
    [xmp['prism:publicationdate'], xmp['prism:coverdate'], xmp['dc:date']].map(yearOf).find(Boolean) ??
    printedYear(sources.pages[0] ?? '');
  const doi =
    [xmp['prism:doi'], xmp['pdfx:doi'], xmp['dc:identifier'], custom.doi, custom.DOI]
      .flatMap((value: unknown) => (Array.isArray(value) ? (value as unknown[]) : [value]))
      .map((value) => (typeof value === 'string' ? findDoi(value) : undefined))
      .find(Boolean) ?? findDoi(sources.pages.slice(0, 2).join('\n\n'));
  const abstract = findAbstract(sources.pages[0] ?? '');
  return {
    ...(title ? { title } : {}),
    ...(authors.length > 0 ? { authors } : {}),
    ...(year ? { year } : {}),
    ...(doi ? { doi } : {}),
    ...(venue ? { venue } : {}),
    ...(abstract ? { abstract } : {}),
  };
}

// ——— DOI ———

const DOI = /10\.\d{4,9}\/[^\s"<>]+/;
// A list of references starts here; the DOIs below it are other papers'.
const REFERENCES =
  /^[ \t]*(?:\d{1,2}\.?[ \t]*|[IVX]{1,4}\.[ \t]*)?(?:references|bibliography|literature cited|works cited|references and notes)[ \t]*:?[ \t]*$/im;

/** The first DOI in the text before any references heading, normalised; undefined when none. */
export function findDoi(text: string): string | undefined {
  const references = REFERENCES.exec(text);
  const before = references ? text.slice(0, references.index) : text;
  const found = DOI.exec(before);
  if (!found) return undefined;
  let doi = found[0];
  // Typesetters break a long DOI after a dot, slash or dash; its rest starts the next line in lower
  // case or a digit (a capital there starts a sentence).
  for (let end = found.index + doi.length; /[./\-_]$/.test(doi) && before[end] === '\n';) {
    const rest = /^[a-z0-9][^\s"<>]*/.exec(before.slice(end + 1));
    if (!rest) break;
    doi += rest[0];
    end += 1 + rest[0].length;
  }
  // Punctuation after a DOI is the sentence's, and so is a closing bracket the DOI did not open.
  for (let previous = ''; previous !== doi;) {
    previous = doi;
    doi = doi.replace(/[.,;:'’”»]+$/u, '');
    for (const [open, close] of ['()', '[]', '{}'])
      if (doi.endsWith(close!) && doi.split(close!).length > doi.split(open!).length) doi = doi.slice(0, -1);
  }
  return doi.length <= 300 ? doi.toLowerCase() : undefined;
}

// ——— Title and authors ———

const FILE_NAME = /\.(?:docx?|rtf|odt|pages|tex|dvi|pdf|e?ps|indd|qxd|qxp|txt|html?|xml|wpd)$/i;
// What producers put in Title when the author did not: placeholders, a layout's or a slide's
// name, a publisher's item identifier ("PII: S0022-1694(14)00123-4").
const PLACEHOLDER =
  /^(?:untitled\b.*|title|document|paper|manuscript|article|no title|(?:slide|layout|page) \d+|pii:.*)$/i;

/**
 * A title as a person would give it, whitespace made single; undefined for what producers write
 * in its place: an application's name before the file's ("Microsoft Word - draft3.docx"), a file
 * name, an identifier without spaces ("jes_2024_0012"), a placeholder ("Untitled"), a DOI or a link.
 */
export function plausibleTitle(raw: unknown): string | undefined {
  const title = clean(raw);
  if (!title || !/\p{L}/u.test(title)) return undefined;
  if (/^microsoft\s+\S+\s+-\s/i.test(title) || FILE_NAME.test(title) || PLACEHOLDER.test(title))
    return undefined;
  if (!/\s/.test(title) && /[\d_]/.test(title)) return undefined;
  if (DOI.test(title) || /^(?:doi:|https?:|www\.)/i.test(title)) return undefined;
  return title;
}

const NOT_A_PERSON = /^(?:administrator|admin|owner|user|unknown|author|microsoft|default)$/i;

/**
 * The people of an Info Author or XMP dc:creator: split at semicolons, "and" and "&", and at
 * commas unless they sit inside a "Family, Given" name. A value of one word is a login name
 * ("jsmith", "Administrator"), not an author.
 */
export function splitAuthors(raw: unknown): string[] {
  const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
  const names = values.flatMap((value) =>
    value
      .replace(/^\s*by\s+/i, '')
      .split(/;|\s+and\s+|\s*&\s*/)
      .flatMap((piece) => {
        const parts = piece.split(/\s*,\s*/);
        return parts.length > 1 && parts.every((p) => /\S\s+\S/.test(p.trim())) ? parts : [piece];
      }),
  );
  const seen = new Set<string>();
  const authors: string[] = [];
  for (const raw of names) {
    const name = clean(raw);
    if (!name || !/\p{L}/u.test(name) || !/[\s,]/.test(name) || NOT_A_PERSON.test(name)) continue;
    if (name.length > MAX_AUTHOR_CHARS || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    authors.push(name);
  }
  return authors.slice(0, MAX_AUTHORS);
}

/**
 * Page 1's horizontal lines, from the top down, each with the font size most of its characters
 * have: a drop capital or a superscript does not make a body line large (layout.ts's lines take
 * the largest size, which keeps a superscript on its baseline). Vertical and rotated text (an
 * arXiv stamp in the margin) is left out.
 */
export function typesetLines(items: readonly LayoutItem[]): TypesetLine[] {
  const boxes = items.flatMap((item) => {
    const [a = 1, b = 0, c = 0, d = 1, e = 0, f = 0] = item.transform;
    if (item.str.trim() === '' || item.dir === 'ttb' || Math.abs(b) > 0.01 * Math.abs(a) || a <= 0) return [];
    return [{ str: item.str, x0: e, x1: e + item.width, y: f, size: Math.hypot(c, d) || item.height || 1 }];
  });
  boxes.sort((p, q) => q.y - p.y || p.x0 - q.x0);
  const lines: Array<{ y: number; size: number; boxes: typeof boxes }> = [];
  for (const box of boxes) {
    const line = lines.at(-1);
    if (line && Math.abs(line.y - box.y) < 0.5 * Math.min(line.size, box.size)) line.boxes.push(box);
    else lines.push({ y: box.y, size: box.size, boxes: [box] });
  }
  return lines.map((line) => {
    const size = commonest(line.boxes.map((b) => [b.size, b.str.trim().length]));
    let text = '';
    let end = -Infinity;
    for (const box of line.boxes.sort((p, q) => p.x0 - q.x0)) {
      if (text !== '' && box.x0 - end > 0.15 * size) text += ' ';
      text += box.str;
      end = box.x1;
    }
    return { text: text.replace(/\s+/g, ' ').trim(), size, y: line.y };
  });
}

// Fewer characters than this on page 1 make it a cover page. Not measured: a page of an article
// holds thousands; a cover, a title, names and a date.
const COVER_CHARS = 400;
const MAX_TITLE_LINES = 4;

/** What is never a paper's title, however large it is set. */
function notTitle(text: string, venue: string | undefined): boolean {
  const plain = text.toLowerCase().replace(/\s+/g, ' ');
  return (
    /\b(?:arxiv|biorxiv|medrxiv|ssrn)\b/i.test(text) ||
    DOI.test(text) ||
    /https?:\/\/|www\.|@/.test(text) ||
    /^(?:the\s+)?(?:journal|proceedings|transactions|annals|bulletin|archives?|letters)\s+(?:of|in|on|for)\b/i.test(
      text,
    ) ||
    /\b(?:vol\.?|volume|issn|issue|no\.)\s*\d/i.test(text) ||
    /\b\d+\s*\(\s*(?:1[89]|20)\d\d\s*\)/.test(text) ||
    /©|\bcopyright\b/i.test(text) ||
    /^(?:received|accepted|published|available online|preprint|submitted|under review|draft|to appear|citation|correspondence)\b/i.test(
      text,
    ) ||
    /^(?:research|original|review|short|brief|regular|full|technical|invited)?\s*(?:article|paper|letter|review|communication|report|note|research)s?$/i.test(
      text,
    ) ||
    (venue !== undefined && venue.length >= 4 && plain.includes(venue.toLowerCase().replace(/\s+/g, ' ')))
  );
}

/**
 * The title as set on page 1: the topmost line of the largest size among the lines in the top half
 * of the text that are set at least 15% larger than the body and are not a stamp, banner or the
 * venue, joined with the lines of that size right below it. Undefined when no line stands out.
 * A cover page (little text) has no body to speak of: its title is most of its text, and needs only
 * to be larger than the smallest line.
 */
export function typesetTitle(lines: readonly TypesetLine[], venue?: string): string | undefined {
  if (lines.length < 2) return undefined;
  const chars = lines.reduce((sum, line) => sum + line.text.length, 0);
  const body =
    chars < COVER_CHARS
      ? Math.min(...lines.map((line) => line.size))
      : commonest(lines.map((line) => [line.size, line.text.length]));
  const ys = lines.map((line) => line.y);
  const middle = (Math.max(...ys) + Math.min(...ys)) / 2;
  const usable = (line: TypesetLine) =>
    line.size >= 1.15 * body && line.y >= middle && !notTitle(line.text, venue);
  const largest = Math.max(0, ...lines.filter(usable).map((line) => line.size));
  const start = lines.findIndex((line) => usable(line) && line.size > largest - 0.5);
  if (start < 0) return undefined;
  let title = lines[start]!.text;
  let end = start + 1;
  for (; end < lines.length; end++) {
    const line = lines[end]!;
    if (
      Math.abs(line.size - largest) >= 0.5 ||
      lines[end - 1]!.y - line.y > 2 * largest ||
      notTitle(line.text, venue)
    )
      break;
    title =
      /\p{L}-$/u.test(title) && /^\p{Ll}/u.test(line.text)
        ? title.slice(0, -1) + line.text
        : `${title} ${line.text}`;
  }
  // A title takes a few lines; a longer run of them is the text itself.
  if (end - start > MAX_TITLE_LINES) return undefined;
  const cleaned = clean(title);
  return cleaned && /\p{L}/u.test(cleaned) ? cleaned : undefined;
}

// ——— Abstract ———

// Not "Abstract" and a capital, which starts titles as often ("Abstract Syntax Notation One").
const ABSTRACT = /^[ \t]*(?:Abstract|ABSTRACT)(?:[ \t]*[.:—–-][ \t]*|[ \t]*$)(.*)$/u;
const ENDS_ABSTRACT = [
  /^(?:keywords?|key\s*words|index\s+terms|ccs\s+concepts|subjects?|jel|msc|pacs|highlights|graphical\s+abstract|received|accepted|published|copyright|correspondence|\*?\s*corresponding)\b/i,
  /^©/,
  // A numbered heading: "1. Introduction", "2 METHODS", "IV. Results".
  /^(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.)[ \t]+\p{Lu}[^.]{0,80}$/u,
  /^(?:introduction|background|main|methods|materials and methods|results|discussion|conclusions?|references|acknowledge?ments?|contents)[ \t]*:?$/i,
];

/**
 * The abstract on page 1: the text after a heading "Abstract" (alone on its line, or followed by
 * ".", ":" or a dash), up to the next heading, keywords or the end of the page.
 * Lines are joined with spaces and paragraphs kept; at most 5,000 characters, cut at a sentence.
 */
export function findAbstract(page: string): string | undefined {
  const lines = page.split('\n');
  const at = lines.findIndex((line) => ABSTRACT.test(line));
  if (at < 0) return undefined;
  const paragraphs: string[][] = [[]];
  const first = ABSTRACT.exec(lines[at]!)![1]!.trim();
  if (first) paragraphs[0]!.push(first);
  for (const raw of lines.slice(at + 1)) {
    const line = raw.trim();
    if (line === '') {
      if (paragraphs.at(-1)!.length > 0) paragraphs.push([]);
      continue;
    }
    if (ENDS_ABSTRACT.some((pattern) => pattern.test(line))) break;
    paragraphs.at(-1)!.push(line);
  }
  const text = paragraphs
    .filter((p) => p.length > 0)
    .map((p) => p.join(' ').replace(/\s+/g, ' '))
    .join('\n\n');
  if (!/\p{L}/u.test(text)) return undefined;
  if (text.length <= MAX_ABSTRACT_CHARS) return text;
  const cut = text.slice(0, MAX_ABSTRACT_CHARS);
  const sentence = Math.max(
    ...[...cut.matchAll(/[.!?]["')\]]*(?=\s)/g)].map((m) => m.index + m[0].length),
    0,
  );
  if (sentence > MAX_ABSTRACT_CHARS / 2) return cut.slice(0, sentence);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : MAX_ABSTRACT_CHARS - 1)}…`;
}

// ——— Values ———

/** A string with control characters and runs of whitespace made single spaces; undefined when empty. */
function clean(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const text = raw.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return text === '' ? undefined : text;
}

/** A property's value, or the first of a list's (XMP's rdf:Seq and rdf:Bag). */
function first(value: unknown): unknown {
  return Array.isArray(value) ? (value as unknown[])[0] : value;
}

/** The year a PDF or XMP date starts with ("D:20240315…", "2023-06-01"), when within 1000..2100. */
function yearOf(value: unknown): number | undefined {
  const date = first(value);
  const match = typeof date === 'string' ? /^\s*(?:D:)?(\d{4})/.exec(date) : null;
  const year = match ? Number(match[1]) : NaN;
  return year >= 1000 && year <= 2100 ? year : undefined;
}

// "© 2017", "Copyright (c) 2017", "Published: 3 March 2017", "Published online 2017-03-08".
const PRINTED_YEAR =
  /(?:©|\(c\)|\bcopyright\b|\bpublished\b(?:\s+online)?\s*:?)[^\n\d]{0,24}(?:\d{1,2}[^\n\d]{1,12})?\b(1[5-9]\d\d|20\d\d)\b/i;

/** A year printed on page 1 as the paper's own (publication or copyright), within 1500..2100. */
function printedYear(page: string): number | undefined {
  const match = PRINTED_YEAR.exec(page);
  const year = match ? Number(match[1]) : NaN;
  return year >= 1500 && year <= 2100 ? year : undefined;
}

/** The value with the most weight, of [value, weight] pairs; the smaller of equal ones. */
function commonest(pairs: ReadonlyArray<readonly [number, number]>): number {
  const weights = new Map<number, number>();
  for (const [value, weight] of pairs) {
    const key = Math.round(value * 10) / 10;
    weights.set(key, (weights.get(key) ?? 0) + weight);
  }
  let best = 0;
  let most = -1;
  for (const [value, weight] of weights)
    if (weight > most || (weight === most && value < best)) [best, most] = [value, weight];
  return best;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
