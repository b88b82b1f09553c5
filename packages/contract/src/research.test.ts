import { describe, expect, it } from 'vitest';
import {
  QUOTE_MAX,
  READ_PASSAGE_MAX,
  libraryInputs,
  noteSourceOf,
  researchToolDescriptors,
  sayInputSchema,
} from './index.ts';

describe('the research contract', () => {
  it('takes a reply with passage and note citations, and refuses anything else in one', () => {
    const passage = { documentId: 'doc-1', page: 4, quote: 'Recovery was uneven.' };
    expect(sayInputSchema.safeParse({ text: 'ok', citations: [passage, { note: 'lead:a' }] }).success).toBe(
      true,
    );
    expect(sayInputSchema.safeParse({ text: 'ok' }).success).toBe(true);
    for (const bad of [
      { ...passage, status: 'verified' }, // the server judges a citation, never the caller
      { ...passage, quote: 'x'.repeat(QUOTE_MAX + 1) },
      { ...passage, quote: '  ' },
      { ...passage, page: 0 },
      { documentId: 'doc-1', quote: 'no page' },
      { note: 'not a name' },
      { ...passage, note: 'lead:a' },
    ])
      expect(sayInputSchema.safeParse({ text: 'ok', citations: [bad] }).success, JSON.stringify(bad)).toBe(
        false,
      );
  });

  it('bounds a read to 4,000 characters and a search to 20 hits', () => {
    expect(
      libraryInputs['library.read'].safeParse({ documentId: 'd', length: READ_PASSAGE_MAX }).success,
    ).toBe(true);
    expect(
      libraryInputs['library.read'].safeParse({ documentId: 'd', length: READ_PASSAGE_MAX + 1 }).success,
    ).toBe(false);
    expect(libraryInputs['library.read'].safeParse({ documentId: 'd', ownerId: 'u' }).success).toBe(false);
    expect(libraryInputs['library.search'].safeParse({ query: 'reef', limit: 21 }).success).toBe(false);
    expect(libraryInputs['library.search'].safeParse({ query: '   ' }).success).toBe(false);
  });

  it("reads a note's source only when it is well formed", () => {
    const source = { documentId: 'doc-1', page: 2, quote: 'Sites with herbivores recovered.' };
    expect(noteSourceOf({ source, other: 1 })).toEqual(source);
    expect(noteSourceOf({ source: { ...source, page: 'two' } })).toBeNull();
    expect(noteSourceOf('text')).toBeNull();
    expect(noteSourceOf(null)).toBeNull();
  });

  it('offers a model search_library, read_passage and answer, with strict argument schemas', () => {
    const tools = researchToolDescriptors();
    expect(tools.map((t) => t.name)).toEqual(['search_library', 'read_passage', 'answer']);
    for (const t of tools) expect(t.inputSchema.additionalProperties).toBe(false);
    const read = tools.find((t) => t.name === 'read_passage')!;
    expect(Object.keys(read.inputSchema.properties as object).sort()).toEqual([
      'documentId',
      'length',
      'page',
      'start',
    ]);
  });
});
