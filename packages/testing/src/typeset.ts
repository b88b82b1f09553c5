/**
 * PDFs made by real typesetters, committed with their sources and the script that makes them
 * (src/typeset/make.sh: groff and ghostscript on Debian), for the reading-order and CJK tests.
 *
 * - article.pdf: a two-column article (groff -ms, .2C) over two pages, with a title and an
 *   abstract across the page, running heads and footers, page numbers and hyphenated line ends;
 *   article-gropdf.pdf and article-narrow.pdf are the same from groff's own PDF writer and with a
 *   10-point gutter; article-by-row.pdf and article-narrow-by-row.pdf are article.pdf and
 *   article-narrow.pdf with their text drawn row by row across the columns (left line 1, right
 *   line 1, left line 2, …), as some PDF printers draw, by rows.py.
 * - columns.pdf: a short page (groff -ms, .2C) with a title and an abstract across it and two
 *   columns of prose, hyphenation off; columns-by-row.pdf is the same page drawn row by row.
 * - ja-horizontal.pdf, ja-vertical.pdf: three lines of Japanese in a CID-keyed TrueType font
 *   whose text is read through the UniJIS-UTF16-H and -V CMaps (no ToUnicode map).
 * - zh-hans-horizontal.pdf, zh-hans-vertical.pdf, zh-hant-horizontal.pdf, ko-horizontal.pdf: the
 *   same for simplified Chinese (UniGB-UTF16-H and -V), traditional Chinese (UniCNS-UTF16-H) and
 *   Korean (UniKS-UTF16-H).
 */
import { readFile } from 'node:fs/promises';

/** The CJK PDFs, each made from the .ps of the same name. */
export const CJK = [
  'ja-horizontal',
  'ja-vertical',
  'zh-hans-horizontal',
  'zh-hans-vertical',
  'zh-hant-horizontal',
  'ko-horizontal',
] as const;
export type CjkPdf = (typeof CJK)[number];

/**
 * The article as groff -Tps and ps2pdf, groff's own -Tpdf, and -Tps with a 10-point gutter make it,
 * and the first and the third drawn row by row.
 */
export const ARTICLES = [
  'article',
  'article-gropdf',
  'article-narrow',
  'article-by-row',
  'article-narrow-by-row',
] as const;

export type TypesetPdf = (typeof ARTICLES)[number] | 'columns' | 'columns-by-row' | CjkPdf;

const folder = new URL('./typeset/', import.meta.url);

export async function typesetPdf(name: TypesetPdf): Promise<Uint8Array> {
  return new Uint8Array(await readFile(new URL(`${name}.pdf`, folder)));
}

/**
 * The text lines of article.ms, in order: the title, authors and institute, then every sentence
 * of the abstract and the body, and the section headings (the source has one sentence a line).
 */
export async function articleSentences(): Promise<string[]> {
  const source = await readFile(new URL('article.ms', folder), 'utf8');
  return source.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('.'));
}

/** The text a CJK PDF's .ps sets, a line (or a column) each, from the comment above each line. */
export async function cjkLines(name: CjkPdf): Promise<string[]> {
  const source = await readFile(new URL(`${name}.ps`, folder), 'utf8');
  return source
    .split('\n')
    .filter((line, i, all) => line.startsWith('% ') && all[i + 1]?.includes('moveto'))
    .map((line) => line.slice(2));
}
