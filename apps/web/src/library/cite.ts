// *Cite* (SPEC §6d): the formats `documents.cite` answers in, as a researcher names them, and
// what the page says once the references are on the clipboard.
import { SPONGE_LIMITS } from '@sponge/contract';

/** One way to cite, as the menu lists it and as `documents.cite` is asked for it. */
export interface CiteChoice {
  label: string;
  format: 'bibtex' | 'ris' | 'csl-json' | 'text';
  style?: 'apa' | 'vancouver' | 'harvard1';
}

/** The reference managers' formats first, then the styles a text is formatted in. */
export const CITE_CHOICES: readonly CiteChoice[] = [
  { label: 'BibTeX', format: 'bibtex' },
  { label: 'RIS', format: 'ris' },
  { label: 'CSL-JSON', format: 'csl-json' },
  { label: 'APA', format: 'text', style: 'apa' },
  { label: 'Vancouver', format: 'text', style: 'vancouver' },
  { label: 'Harvard', format: 'text', style: 'harvard1' },
];

/** `documents.cite`'s input for a choice. */
export const citeInput = (documentIds: readonly string[], choice: CiteChoice) => ({
  documentIds: [...documentIds],
  format: choice.format,
  ...(choice.style ? { style: choice.style } : {}),
});

/** "APA reference copied.", "BibTeX entries of 3 documents copied." */
export function copiedWords(choice: CiteChoice, count: number): string {
  const text = choice.format === 'text';
  if (count === 1) return `${choice.label} ${text ? 'reference' : 'entry'} copied.`;
  return `${choice.label} ${text ? 'references' : 'entries'} of ${count.toLocaleString('en')} documents copied.`;
}

/**
 * The library's selection bar: how many are selected, and whether they can be cited at once (a
 * citation names at most `SPONGE_LIMITS.citeDocuments`; more is said before it is asked for).
 */
export function selectionWords(count: number): { words: string; citable: boolean } {
  if (count === 0) return { words: 'Select documents to cite them together.', citable: false };
  const selected = `${count.toLocaleString('en')} selected`;
  if (count > SPONGE_LIMITS.citeDocuments)
    return { words: `${selected}: cite at most ${SPONGE_LIMITS.citeDocuments} at once.`, citable: false };
  return { words: selected, citable: true };
}
