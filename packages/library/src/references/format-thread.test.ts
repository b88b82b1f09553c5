import { describe, expect, it } from 'vitest';
import { isLibraryError } from '../errors.ts';
import type { CitableDocument } from './entries.ts';
import { formatReferences } from './format.ts';
import { formatTextOnThread } from './format-thread.ts';

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
