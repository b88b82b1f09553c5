/**
 * What a document is (SPEC §6d): its year, DOI, venue, abstract and tags, with the rules every
 * party applies to them — the API's `documents.update`, an import's entries, the web's *Edit
 * details* form — so a DOI or a tag is the same thing wherever it came from.
 */
import { z } from 'zod';
import { textSchema } from '@oh/schema';

/** Bounds of a document's metadata. */
export const METADATA_LIMITS = {
  yearMin: 1000,
  yearMax: 2100,
  venueChars: 300,
  abstractChars: 20_000,
  doiChars: 256,
  tags: 50,
  tagChars: 64,
} as const;

/**
 * A DOI as the library stores it: without a resolver's address or a `doi:` prefix, lowercase
 * (DOIs are case-insensitive, so one paper has one key); null when what is left is no DOI.
 *
 * @example normaliseDoi('https://doi.org/10.1038/NATURE21707') // '10.1038/nature21707'
 */
export function normaliseDoi(value: string): string | null {
  const doi = value
    .trim()
    .replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '')
    .trim()
    .toLowerCase();
  return /^10\.\d{4,9}\/\S+$/.test(doi) && doi.length <= METADATA_LIMITS.doiChars ? doi : null;
}

/**
 * Tags as the library keeps them: cut at commas and semicolons (what BibTeX's and CSL-JSON's
 * keywords and reference managers put between tags, so a kept tag goes out and comes back whole),
 * trimmed, a leading `#` dropped, empty ones left out, the second of two that differ only in case
 * left out, in the order given. Bounds are the schema's.
 *
 * @example normaliseTags([' #Kelp ', 'kelp', 'reefs; heat']) // ['Kelp', 'reefs', 'heat']
 */
export function normaliseTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags.flatMap((t) => t.split(/[,;]/u))) {
    const tag = raw.trim().replace(/^#+/, '').trim();
    const key = tag.toLowerCase();
    if (tag === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
  }
  return out;
}

export const documentYearSchema = z
  .number({ error: 'year is a number, like 2017' })
  .int('year is a whole number')
  .min(METADATA_LIMITS.yearMin, `year is ${METADATA_LIMITS.yearMin} or later`)
  .max(METADATA_LIMITS.yearMax, `year is ${METADATA_LIMITS.yearMax} or earlier`);

export const doiSchema = textSchema('doi', 'line')
  .max(METADATA_LIMITS.doiChars, `doi is at most ${METADATA_LIMITS.doiChars} characters`)
  .transform((value, ctx) => {
    // An emptied field clears the DOI, as null does.
    if (value.trim() === '') return null;
    const doi = normaliseDoi(value);
    if (doi === null) {
      ctx.issues.push({
        code: 'custom',
        message: 'doi: expected a DOI like 10.1038/nature21707 (or its https://doi.org/ link)',
        input: value,
      });
      return z.NEVER;
    }
    return doi;
  });

export const venueSchema = textSchema('venue', 'line')
  .trim()
  .max(METADATA_LIMITS.venueChars, `venue is at most ${METADATA_LIMITS.venueChars} characters`);

export const abstractSchema = textSchema('abstract', 'body')
  .trim()
  .max(
    METADATA_LIMITS.abstractChars,
    `abstract is at most ${METADATA_LIMITS.abstractChars.toLocaleString('en')} characters`,
  );

export const tagsSchema = z
  .array(
    textSchema('a tag', 'line')
      .trim()
      .max(4 * METADATA_LIMITS.tagChars, `a tag is at most ${METADATA_LIMITS.tagChars} characters`),
  )
  .max(METADATA_LIMITS.tags * 4, `at most ${METADATA_LIMITS.tags} tags`)
  .transform((tags, ctx) => {
    const kept = normaliseTags(tags);
    if (kept.length > METADATA_LIMITS.tags)
      ctx.issues.push({ code: 'custom', message: `at most ${METADATA_LIMITS.tags} tags`, input: tags });
    const long = kept.find((t) => t.length > METADATA_LIMITS.tagChars);
    if (long !== undefined)
      ctx.issues.push({
        code: 'custom',
        message: `a tag is at most ${METADATA_LIMITS.tagChars} characters ("${long.slice(0, 20)}…")`,
        input: tags,
      });
    return kept;
  });

/** One tag to narrow a search or a list to (`#` and case as tags ignore them). */
export const tagSchema = textSchema('tag', 'line')
  // normaliseTags cuts at these, so "a, b" would narrow to "a" without a word.
  .refine((t) => !/[,;]/u.test(t), 'tag is one tag: no comma or semicolon')
  .transform((t) => normaliseTags([t])[0] ?? '')
  .pipe(
    z
      .string()
      .min(1, 'tag must not be empty')
      .max(METADATA_LIMITS.tagChars, `tag is at most ${METADATA_LIMITS.tagChars} characters`),
  );
