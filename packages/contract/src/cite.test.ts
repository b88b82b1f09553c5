import { describe, expect, it } from 'vitest';
import { ownerInputs } from './index.ts';

const cite = ownerInputs['documents.cite'];
const problem = (input: unknown) => {
  const parsed = cite.safeParse(input);
  return parsed.success ? null : parsed.error.issues.map((i) => i.message).join('; ');
};

describe('documents.cite', () => {
  it('takes documents, a format and, for text, a CSL style', () => {
    expect(cite.parse({ documentIds: ['doc-1', 'doc-2'], format: 'text', style: 'vancouver' })).toEqual({
      documentIds: ['doc-1', 'doc-2'],
      format: 'text',
      style: 'vancouver',
    });
    expect(cite.parse({ documentIds: ['doc-1'], format: 'bibtex' })).toEqual({
      documentIds: ['doc-1'],
      format: 'bibtex',
    });
  });

  it('refuses in words no document, more than 200 (what a query’s URL carries), a format or style it does not know, other fields', () => {
    expect(problem({ documentIds: [], format: 'ris' })).toBe('name at least one document');
    expect(problem({ documentIds: Array.from({ length: 201 }, (_, i) => `d${i}`), format: 'ris' })).toBe(
      'at most 200 documents at once',
    );
    expect(problem({ documentIds: ['d'], format: 'endnote' })).toBe(
      'format is bibtex, ris, csl-json or text',
    );
    expect(problem({ documentIds: ['d'], format: 'text', style: 'chicago' })).toBe(
      'style is apa, vancouver or harvard1',
    );
    expect(problem({ documentIds: ['d'], format: 'ris', ownerId: 'someone' })).toMatch(/ownerId/);
  });
});
