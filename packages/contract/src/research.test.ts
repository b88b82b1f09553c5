import { describe, expect, it } from 'vitest';
import {
  QUOTE_MAX,
  READ_PASSAGE_MAX,
  agentSayInputSchema,
  keptSupport,
  libraryInputs,
  noteSourceOf,
  quoteTooShort,
  researchToolDescriptors,
  sayInputSchema,
} from './index.ts';
import { QUOTE_MIN_CHARACTERS, QUOTE_MIN_WORDS } from './research.ts';

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

  it('takes support from the runtime on a passage, one of three values, and never from the model', () => {
    const passage = { documentId: 'doc-1', page: 4, quote: 'Recovery was uneven across the sites.' };
    for (const support of ['supported', 'unsupported', 'unchecked'])
      expect(
        agentSayInputSchema.safeParse({ text: 'ok', citations: [{ ...passage, support }] }).success,
      ).toBe(true);
    expect(
      agentSayInputSchema.safeParse({ text: 'ok', citations: [passage, { note: 'lead:a' }] }).success,
    ).toBe(true);
    for (const bad of [
      { ...passage, support: 'verified' },
      { ...passage, support: 'yes' },
      { ...passage, support: null },
      { ...passage, status: 'verified' },
      { note: 'lead:a', support: 'supported' },
    ]) {
      const parsed = agentSayInputSchema.safeParse({ text: 'ok', citations: [bad] });
      expect(parsed.success, JSON.stringify(bad)).toBe(false);
    }
    expect(
      agentSayInputSchema.safeParse({ text: 'ok', citations: [{ ...passage, support: 'maybe' }] }).error
        ?.issues[0]?.message,
    ).toBe('support is supported, unsupported or unchecked');
    // The model's answer tool (and its JSON Schema) has no such field: a model cannot vouch for itself.
    expect(
      sayInputSchema.safeParse({ text: 'ok', citations: [{ ...passage, support: 'supported' }] }).success,
    ).toBe(false);
    const answer = researchToolDescriptors().find((t) => t.name === 'answer')!;
    expect(JSON.stringify(answer.inputSchema)).not.toMatch(/"support":/);
  });

  it('keeps a claim of support only on a verified quote', () => {
    expect(keptSupport('verified', 'supported')).toBe('supported');
    expect(keptSupport('verified', 'unsupported')).toBe('unsupported');
    expect(keptSupport('verified', undefined)).toBe('unchecked');
    expect(keptSupport('verified', 'maybe')).toBe('unchecked');
    expect(keptSupport('unverified', 'supported')).toBe('unchecked');
    expect(keptSupport('note', 'supported')).toBe('unchecked');
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

  it('calls a quote under 20 characters or 4 words too short to check (SPEC §7b)', () => {
    expect([QUOTE_MIN_CHARACTERS, QUOTE_MIN_WORDS]).toEqual([20, 4]);
    for (const short of [
      'S',
      'near healthy reefs', // 18 characters
      'Settlement tiles recorded', // 25 characters, 3 words
      'needs grazers and a', // 4 words, 19 characters
      'near      healthy\n\n  reefs    ', // spacing is not length
      '— — — — — — — — — — —', // 21 characters, no words
      '3.2 - 4.1 - 5.0 -----', // 21 characters, 3 words
    ])
      expect(quoteTooShort(short), JSON.stringify(short)).toBe(true);
    for (const enough of [
      'near healthy reefs and', // 22 characters, 4 words
      '3.2 recruits per tile',
      'Settlement tiles recorded 3.2 recruits per tile',
      'Die Erholung war am schnellsten',
      '珊瑚礁の回復は草食魚の密度が高い場所で最も速かった', // words without spaces
    ])
      expect(quoteTooShort(enough), JSON.stringify(enough)).toBe(false);
  });
});
