import { describe, expect, it } from 'vitest';
import {
  documentPagePath,
  documentPath,
  documentQuotePath,
  memoryPanelPath,
  profilesPath,
  reviewHistoryPath,
} from './paths.ts';

describe('paths', () => {
  it('encodes the ids', () => {
    expect(documentPath('doc 1/2')).toBe('/documents/doc%201%2F2');
    expect(memoryPanelPath('doc 1', 'ses/1')).toBe('/documents/doc%201/memory?session=ses%2F1');
    expect(memoryPanelPath('doc_1')).toBe('/documents/doc_1/memory');
    expect(reviewHistoryPath('doc 1')).toBe('/documents/doc%201/reviews');
    expect(profilesPath('doc 1')).toBe('/documents/doc%201/profiles');
  });

  it('opens a document at a page, or at a quote on a page', () => {
    expect(documentPagePath('doc_1', 4)).toBe('/documents/doc_1?page=4#page-4');
    expect(documentQuotePath('doc 1', 4, 'a & b = “c”')).toBe(
      `/documents/doc%201?page=4&quote=${new URLSearchParams({ q: 'a & b = “c”' }).toString().slice(2)}`,
    );
    expect(new URLSearchParams(documentQuotePath('d', 4, 'a & b = c').split('?')[1]).get('quote')).toBe(
      'a & b = c',
    );
  });
});
