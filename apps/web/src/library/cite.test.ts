import { describe, expect, it } from 'vitest';
import { CITE_CHOICES, citeInput, copiedWords, selectionWords } from './cite.ts';

const choice = (label: string) => CITE_CHOICES.find((c) => c.label === label)!;

describe('Cite', () => {
  it('offers the formats and styles of SPEC §6d, by the names researchers use', () => {
    expect(CITE_CHOICES.map((c) => c.label)).toEqual([
      'BibTeX',
      'RIS',
      'CSL-JSON',
      'APA',
      'Vancouver',
      'Harvard',
    ]);
  });

  it('asks documents.cite for a text in its style, a format without one', () => {
    expect(citeInput(['d1', 'd2'], choice('Harvard'))).toEqual({
      documentIds: ['d1', 'd2'],
      format: 'text',
      style: 'harvard1',
    });
    expect(citeInput(['d1'], choice('CSL-JSON'))).toEqual({ documentIds: ['d1'], format: 'csl-json' });
  });

  it('says what was copied, for one document or many', () => {
    expect(copiedWords(choice('APA'), 1)).toBe('APA reference copied.');
    expect(copiedWords(choice('Vancouver'), 2)).toBe('Vancouver references of 2 documents copied.');
    expect(copiedWords(choice('BibTeX'), 1)).toBe('BibTeX entry copied.');
    expect(copiedWords(choice('RIS'), 1200)).toBe('RIS entries of 1,200 documents copied.');
  });

  it('says what a selection is, and that one over what a citation takes cannot be cited', () => {
    expect(selectionWords(0)).toEqual({ words: 'Select documents to cite them together.', citable: false });
    expect(selectionWords(3)).toEqual({ words: '3 selected', citable: true });
    expect(selectionWords(200)).toEqual({ words: '200 selected', citable: true });
    expect(selectionWords(1_250)).toEqual({
      words: '1,250 selected: cite at most 200 at once.',
      citable: false,
    });
  });
});
