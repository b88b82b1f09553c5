// What a paper is, in the words a researcher uses for it (UI.md "Library, with what the papers
// are"): "Hughes et al. 2017" for its authors and year, the library row's "Hughes et al. 2017 ·
// Title · Nature", and what a duplicate upload says. Pure, so the rules are tested once.

interface Paper {
  title: string;
  authors: readonly string[];
  year: number | null;
}

/**
 * An author's family name as a citation uses it: "Hughes, Terry P." and "Terry P. Hughes" are
 * both "Hughes"; a name of one word is itself.
 */
export function familyName(author: string): string {
  const name = author.trim();
  const comma = name.indexOf(',');
  if (comma > 0) return name.slice(0, comma).trim();
  const words = name.split(/\s+/u);
  return words[words.length - 1] ?? name;
}

/**
 * "Hughes 2017", "Hughes and Kerry 2017", "Hughes et al. 2017" (no year: without it); "2017"
 * alone without authors; null when neither is known.
 */
export function authorYear(paper: Pick<Paper, 'authors' | 'year'>): string | null {
  const names = paper.authors.map(familyName).filter((n) => n !== '');
  const who =
    names.length === 0
      ? null
      : names.length === 1
        ? names[0]!
        : names.length === 2
          ? `${names[0]} and ${names[1]}`
          : `${names[0]} et al.`;
  const year = paper.year === null ? null : String(paper.year);
  return [who, year].filter((p) => p !== null).join(' ') || null;
}

/**
 * "Hughes et al. 2017", else the title in quotes: how a message names a document. A year alone
 * ("2024", often only when the PDF was made) names nothing a person recognises.
 */
export function paperName(paper: Paper): string {
  return paper.authors.length > 0 ? (authorYear(paper) ?? `“${paper.title}”`) : `“${paper.title}”`;
}

/** A tag as the library shows it: "#bleaching". */
export const tagLabel = (tag: string): string => `#${tag}`;

/**
 * What a duplicate upload says (SPEC §6d): the document the library already has, by its authors
 * and year, and the offer to open it. `existing` is that document when the list has it; without
 * it, the API's own sentence names it.
 */
export function duplicateWords(existing: Paper | undefined, apiMessage: string): string {
  const named = existing
    ? paperName(existing)
    : /^Already in your library: (.+?)(?: — .*)?$/u.exec(apiMessage.trim())?.[1];
  return named ? `Already in your library: ${named} — ${OPEN_IT}?` : `Already in your library — ${OPEN_IT}?`;
}

/** The words of `duplicateWords` that link to the document. */
export const OPEN_IT = 'open it';

/** The DOI's page at its resolver; each part encoded, so a `#` or `?` in a DOI stays the DOI's. */
export const doiUrl = (doi: string): string =>
  `https://doi.org/${doi.split('/').map(encodeURIComponent).join('/')}`;

/** "2017 · Nature": the year and the venue, what is known of them. */
export const yearVenue = (paper: { year: number | null; venue: string }): string =>
  [paper.year === null ? '' : String(paper.year), paper.venue.trim()].filter((p) => p !== '').join(' · ');
