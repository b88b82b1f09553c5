import { SPONGE_LIMITS } from '@sponge/contract';
import { describe, expect, it } from 'vitest';
import { passageFromSelection, parseSelectedPassage } from './selected-passage.ts';

describe('passageFromSelection', () => {
  it('folds the selection as the passage check does', () => {
    expect(passageFromSelection('doc_1', '  Grazing fish\n\n regained  cover. ')).toEqual({
      documentId: 'doc_1',
      passage: 'Grazing fish regained cover.',
    });
  });
  it('keeps the page the selection starts on, so the review dialog opens that page', () => {
    expect(passageFromSelection('doc_1', 'Grazing fish', 1900)).toEqual({
      documentId: 'doc_1',
      passage: 'Grazing fish',
      page: 1900,
    });
  });
  it('refuses an empty selection and one over the passage limit', () => {
    expect(passageFromSelection('doc_1', ' \n ')).toEqual({
      error: 'Select some text of the document first.',
    });
    const long = passageFromSelection('doc_1', 'x'.repeat(SPONGE_LIMITS.passageChars + 1));
    expect(long).toEqual({
      error:
        'The selection has 20,001 characters; a cited passage is at most 20,000. Select a shorter passage.',
    });
  });
});

describe('parseSelectedPassage', () => {
  it('reads what was kept', () => {
    expect(parseSelectedPassage(JSON.stringify({ documentId: 'doc_1', passage: 'p' }))).toEqual({
      documentId: 'doc_1',
      passage: 'p',
    });
  });
  it('reads the page when it is a page number, and leaves out any other', () => {
    expect(parseSelectedPassage(JSON.stringify({ documentId: 'doc_1', passage: 'p', page: 3 }))).toEqual({
      documentId: 'doc_1',
      passage: 'p',
      page: 3,
    });
    expect(parseSelectedPassage(JSON.stringify({ documentId: 'doc_1', passage: 'p', page: 0 }))).toEqual({
      documentId: 'doc_1',
      passage: 'p',
    });
  });
  it('counts anything unreadable as nothing kept', () => {
    for (const raw of [
      null,
      '',
      '{',
      '[]',
      'null',
      '{"documentId":"doc_1"}',
      '{"documentId":"","passage":"p"}',
    ]) {
      expect(parseSelectedPassage(raw)).toBeNull();
    }
  });
});
