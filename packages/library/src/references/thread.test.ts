import { describe, expect, it } from 'vitest';
import { isLibraryError } from '../errors.ts';
import type { CitableDocument } from './entries.ts';
import { formatReferences } from './format.ts';
import { parseBibliography } from './parse.ts';
import { formatTextOnThread, parseOnThread } from './thread.ts';

/** One author's papers of one year: what makes citeproc-js's disambiguation slow. */
const sameAuthorYear = (n: number): CitableDocument[] =>
  Array.from({ length: n }, (_, i) => ({
    citationKey: `hughes2017${i}`,
    title: `Reef survey number ${i}`,
    authors: ['Terry P. Hughes', 'James T. Kerry'],
    year: 2017,
    doi: null,
    venue: 'Coral Reefs',
    abstract: '',
    tags: [],
  }));

describe('parseOnThread', () => {
  it('reads a bibliography on the thread as parseBibliography does, and refuses as it does', async () => {
    const bib =
      '@article{a, title = {Kelp}, author = {M{\\"u}ller, Anna}, year = {2019}, file = {:a.pdf:PDF}}';
    expect(await parseOnThread(bib, 'a.bib')).toEqual(parseBibliography(bib, 'a.bib'));
    const refused = await parseOnThread('just notes', 'notes.txt').catch((err: unknown) => err);
    expect(isLibraryError(refused) && refused.reason).toBe('invalid_input');
    expect((refused as Error).message).toMatch(/^notes\.txt is not a bibliography/);
  });

  it('refuses in words a bibliography that takes past its time to read', async () => {
    const slow = await parseOnThread(`@misc{a, title = {${'\\"{u}'.repeat(200_000)}}}`, 'big.bib', 1).catch(
      (err: unknown) => err,
    );
    expect(isLibraryError(slow) && `${slow.reason}: ${slow.message}`).toBe(
      'invalid_input: Reading big.bib took longer than 0.001 s; export it in parts.',
    );
  });
});

describe('formatTextOnThread', () => {
  it('formats a bibliography on its thread as the style does in the process', async () => {
    const docs = sameAuthorYear(3);
    for (const style of ['apa', 'vancouver', 'harvard1'] as const)
      expect(await formatTextOnThread(docs, style)).toBe(formatReferences(docs, 'text', style));
  });

  it('refuses in words a bibliography that runs past its time, and formats the next one on a new thread', async () => {
    const slow = await formatTextOnThread(sameAuthorYear(200), 'apa', 1).catch((err: unknown) => err);
    expect(isLibraryError(slow) && `${slow.reason}: ${slow.message}`).toBe(
      'invalid_input: Formatting these 200 references took longer than 0.001 s; cite fewer at a time.',
    );
    expect(await formatTextOnThread(sameAuthorYear(1), 'apa')).toBe(
      'Hughes, T. P., & Kerry, J. T. (2017). Reef survey number 0. Coral Reefs.\n',
    );
  });
});
