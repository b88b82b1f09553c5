/**
 * A reference as the library takes it from a reference manager (SPEC §6d) and gives it back: the
 * document's own metadata, in and out of CSL-JSON, the form citation-js reads every format into
 * and formats every style from.
 */
import type { CslItem, CslName } from '@citation-js/core';
import { parse as parseName } from '@citation-js/name';
import { METADATA_LIMITS, SPONGE_LIMITS, cleanLine, normaliseDoi, normaliseTags } from '@sponge/contract';

/** One entry of an exported bibliography, checked and cleaned as a document's metadata. */
export interface ReferenceEntry {
  /** The exporter's citation key (`hughes_global_2017`), '' when it wrote none. */
  key: string;
  title: string;
  authors: string[];
  year: number | null;
  doi: string | null;
  venue: string;
  abstract: string;
  /** Keywords, and the groups or collections the entry was filed in. */
  tags: string[];
  /** The names of the files the entry links to (a path's last part), in its order. */
  files: string[];
  /** The paths as written, folded for matching (zip folders: `files/12/hughes.pdf`). */
  paths: string[];
}

/** What a document gives a citation: its metadata and its stable key. */
export interface CitableDocument {
  citationKey: string;
  title: string;
  authors: readonly string[];
  year: number | null;
  doi: string | null;
  venue: string;
  abstract: string;
  tags: readonly string[];
}

/** An entry from a CSL item, with what the format's own fields add (files, groups). */
export function entryFromCsl(
  item: CslItem,
  extra: { key?: string; tags?: readonly string[]; paths?: readonly string[] } = {},
): ReferenceEntry {
  const keywords = typeof item.keyword === 'string' ? item.keyword.split(',') : [];
  const tags = normaliseTags([...keywords, ...(extra.tags ?? [])].map((t) => cleanLine(t)))
    .filter((t) => t.length <= METADATA_LIMITS.tagChars)
    .slice(0, METADATA_LIMITS.tags);
  const paths = [...new Set((extra.paths ?? []).map((p) => cleanLine(p).trim()).filter(Boolean))];
  return {
    key: line(extra.key ?? item['citation-key'] ?? (typeof item.id === 'string' ? item.id : ''), 200),
    title: line(item.title, SPONGE_LIMITS.titleChars),
    authors: (item.author ?? [])
      .map(nameText)
      .map((a) => line(a, SPONGE_LIMITS.authorChars))
      .filter(Boolean)
      .slice(0, SPONGE_LIMITS.authors),
    year: yearOf(item.issued),
    doi: typeof item.DOI === 'string' ? normaliseDoi(item.DOI) : null,
    // A journal named only by its abbreviation (RIS J2/JA) is named so rather than not at all.
    venue: line(
      item['container-title'] ?? item['container-title-short'] ?? item['event-title'] ?? item.publisher,
      METADATA_LIMITS.venueChars,
    ),
    abstract: text(item.abstract, METADATA_LIMITS.abstractChars),
    tags,
    files: paths.map(baseName),
    paths,
  };
}

/**
 * The document as a CSL item: the citation key as its id, authors parsed from the names as the
 * library keeps them ("Terry P. Hughes", or "Hughes, Terry P."). Without a venue the item is a
 * plain document, not a journal article.
 */
export function cslFromDocument(doc: CitableDocument): CslItem {
  return {
    id: doc.citationKey,
    'citation-key': doc.citationKey,
    type: doc.venue ? 'article-journal' : 'article',
    title: doc.title,
    ...(doc.authors.length > 0 ? { author: doc.authors.map(parseName) } : {}),
    ...(doc.year !== null ? { issued: { 'date-parts': [[doc.year]] } } : {}),
    ...(doc.doi ? { DOI: doc.doi } : {}),
    ...(doc.venue ? { 'container-title': doc.venue } : {}),
    ...(doc.abstract ? { abstract: doc.abstract } : {}),
    ...(doc.tags.length > 0 ? { keyword: doc.tags.join(',') } : {}),
  };
}

/** A name as a person writes it: "Terry P. Hughes", "Ludwig van Beethoven", or a literal one. */
function nameText(name: CslName): string {
  if (name.literal) return name.literal;
  const parts = [name.given, name['dropping-particle'], name['non-dropping-particle'], name.family];
  const whole = parts.filter((p) => p && p.trim()).join(' ');
  return name.suffix ? `${whole}, ${name.suffix}` : whole;
}

/** The year of a CSL date: its first date part, or the first four digits of a raw one. */
function yearOf(issued: CslItem['issued']): number | null {
  const first = issued?.['date-parts']?.[0]?.[0];
  const raw = first ?? /\b(\d{4})\b/.exec(issued?.raw ?? issued?.literal ?? '')?.[1];
  const year = Number(raw);
  return Number.isInteger(year) && year >= METADATA_LIMITS.yearMin && year <= METADATA_LIMITS.yearMax
    ? year
    : null;
}

/** One line of text, cleaned as a typed title is, within `max` characters. */
function line(value: unknown, max: number): string {
  return typeof value === 'string' ? cleanLine(value).replace(/\s+/g, ' ').trim().slice(0, max) : '';
}

/** Running text (an abstract): lines kept, control characters out, within `max` characters. */
function text(value: unknown, max: number): string {
  if (typeof value !== 'string') return '';
  return value
    .split(/\r?\n/)
    .map((l) => cleanLine(l).trimEnd())
    .join('\n')
    .trim()
    .slice(0, max);
}

/**
 * A path's last part, whichever separator the exporter's system used; a backslash after a brace
 * is a LaTeX accent Mendeley wrote (`{\"{u}}`), not a separator.
 */
export function baseName(path: string): string {
  return path.split(/\/|(?<!\{)\\/).pop() ?? path;
}

/**
 * A file name or path as files are matched by: without case, accents or punctuation, so a name
 * Mendeley wrote in LaTeX (`M{\"{u}}ller.pdf`) finds the file `Müller.pdf`.
 */
export function foldName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\\[a-zA-Z]+\s*|\\./g, '')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}.]/gu, '');
}
