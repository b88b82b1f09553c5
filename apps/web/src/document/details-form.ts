// *Edit details* (SPEC §6d, UI.md "Library, with what the papers are"): the form's fields as the
// owner types them, read into `documents.update`'s change, each problem said in words under its
// field before anything is sent. The rules of a DOI and of tags are the contract's, so the form
// accepts what the API accepts.
import { METADATA_LIMITS, normaliseDoi, normaliseTags, SPONGE_LIMITS } from '@sponge/contract';
import type { RouterInputs } from '@sponge/api';
import type { RouterOutputs } from '../trpc.ts';

/** What the document is now, as `documents.get` says it. */
export type Details = Pick<
  RouterOutputs['documents']['get'],
  'title' | 'authors' | 'year' | 'doi' | 'venue' | 'abstract' | 'tags'
>;

/** The form's text, one string a field: authors one a line, tags separated by commas. */
export type DetailsDraft = Record<keyof Details, string>;

export type DetailsField = keyof Details;

export function draftOf(details: Details): DetailsDraft {
  return {
    title: details.title,
    authors: details.authors.join('\n'),
    year: details.year === null ? '' : String(details.year),
    doi: details.doi ?? '',
    venue: details.venue,
    abstract: details.abstract,
    tags: details.tags.join(', '),
  };
}

/** What `documents.update` is sent: the fields that changed. */
export type DetailsChange = Omit<RouterInputs['documents']['update'], 'documentId'>;

const n = (count: number) => count.toLocaleString('en');

/**
 * The change to send — only the fields that differ from `now` — or what is wrong, by field. An
 * emptied year or DOI clears it.
 */
export function readDraft(
  draft: DetailsDraft,
  now: Details,
): { change: DetailsChange; problems: Partial<Record<DetailsField, string>> } {
  const problems: Partial<Record<DetailsField, string>> = {};
  const change: DetailsChange = {};

  const title = draft.title.trim();
  if (title === '') problems.title = 'Give the document a title.';
  else if (title.length > SPONGE_LIMITS.titleChars)
    problems.title = `The title is ${n(title.length)} characters; it can be at most ${n(SPONGE_LIMITS.titleChars)}.`;
  else if (title !== now.title) change.title = title;

  const authors = draft.authors
    .split('\n')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  const longAuthor = authors.find((a) => a.length > SPONGE_LIMITS.authorChars);
  if (authors.length > SPONGE_LIMITS.authors)
    problems.authors = `There are ${n(authors.length)} authors; a document can list at most ${n(SPONGE_LIMITS.authors)}.`;
  else if (longAuthor !== undefined)
    problems.authors = `An author’s name can be at most ${n(SPONGE_LIMITS.authorChars)} characters (“${longAuthor.slice(0, 30)}…”).`;
  else if (authors.join('\n') !== now.authors.join('\n')) change.authors = authors;

  const yearText = draft.year.trim();
  const year = yearText === '' ? null : /^\d{1,4}$/u.test(yearText) ? Number(yearText) : NaN;
  if (year !== null && !(year >= METADATA_LIMITS.yearMin && year <= METADATA_LIMITS.yearMax))
    problems.year = `The year is a year like 2017, from ${METADATA_LIMITS.yearMin} to ${METADATA_LIMITS.yearMax}; leave it empty when unknown.`;
  else if (year !== now.year) change.year = year;

  const doiText = draft.doi.trim();
  const doi = doiText === '' ? null : normaliseDoi(doiText);
  if (doiText !== '' && doi === null)
    problems.doi =
      'This is not a DOI. A DOI looks like 10.1038/nature21707 (its https://doi.org/ link works too).';
  else if (doi !== now.doi) change.doi = doi;

  const venue = draft.venue.trim();
  if (venue.length > METADATA_LIMITS.venueChars)
    problems.venue = `The venue is ${n(venue.length)} characters; it can be at most ${n(METADATA_LIMITS.venueChars)}.`;
  else if (venue !== now.venue) change.venue = venue;

  const abstract = draft.abstract.trim();
  if (abstract.length > METADATA_LIMITS.abstractChars)
    problems.abstract = `The abstract is ${n(abstract.length)} characters; it can be at most ${n(METADATA_LIMITS.abstractChars)}.`;
  else if (abstract !== now.abstract) change.abstract = abstract;

  const tags = normaliseTags(draft.tags.split(','));
  const longTag = tags.find((t) => t.length > METADATA_LIMITS.tagChars);
  if (tags.length > METADATA_LIMITS.tags)
    problems.tags = `There are ${n(tags.length)} tags; a document can have at most ${METADATA_LIMITS.tags}.`;
  else if (longTag !== undefined)
    problems.tags = `A tag can be at most ${METADATA_LIMITS.tagChars} characters (“${longTag.slice(0, 30)}…”).`;
  else if (tags.join('\n') !== now.tags.join('\n')) change.tags = tags;

  return { change, problems };
}

/** The field an API problem is about (`data.issues`' path, or its message's first word). */
export function fieldOf(path: string): DetailsField | null {
  const head = path.split('.')[0] ?? '';
  return (
    (['title', 'authors', 'year', 'doi', 'venue', 'abstract', 'tags'] as const).find((f) => f === head) ??
    null
  );
}
