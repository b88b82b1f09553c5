/**
 * The relevance set itself: its size and halves as issue 27 asks, every judgment pointing at a
 * passage its document really holds, and the measures computed by hand on made-up rankings.
 */
import { describe, expect, it } from 'vitest';
import {
  documentRanking,
  loadRelevanceSet,
  ndcgAt,
  reciprocalRankAt,
  score,
  successAt,
} from '../testing/relevance-set.ts';
import type { JudgedQuery } from '../testing/relevance-set.ts';

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('the relevance set', () => {
  const set = loadRelevanceSet();

  it('holds at least 15 documents and 40 queries, half exact-term and half descriptive', () => {
    expect(set.documents.length).toBeGreaterThanOrEqual(15);
    expect(set.queries.length).toBeGreaterThanOrEqual(40);
    const exact = set.queries.filter((q) => q.kind === 'exact').length;
    expect(exact * 2).toBe(set.queries.length);
    expect(new Set(set.queries.map((q) => q.id)).size).toBe(set.queries.length);
    expect(new Set(set.documents.map((d) => d.id)).size).toBe(set.documents.length);
    expect(set.heldout.filter((q) => q.kind === 'exact').length * 2).toBe(set.heldout.length);
    const ids = [...set.queries, ...set.heldout].map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('judges every query relevant to documents of the set, each for a passage the document holds', () => {
    const text = new Map(set.documents.map((d) => [d.id, flat(d.text)]));
    const missing: string[] = [];
    for (const q of [...set.queries, ...set.heldout]) {
      expect(q.relevant.length, q.id).toBeGreaterThan(0);
      for (const { document, reason } of q.relevant) {
        const body = text.get(document);
        if (body === undefined) {
          missing.push(`${q.id}: no document ${document}`);
          continue;
        }
        // The quoted passage, its omissions marked " ... ", must be in the document word for word.
        const quotes = [...reason.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
        if (quotes.length === 0) missing.push(`${q.id} → ${document}: the reason quotes no passage`);
        for (const quote of quotes)
          for (const part of quote.split(' ... '))
            if (!body.includes(flat(part))) missing.push(`${q.id} → ${document}: "${part}"`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the measures', () => {
  const ranking = ['a', 'b', 'c', 'd'];

  it('success@k: a relevant document among the first k', () => {
    expect(successAt(ranking, new Set(['c']), 3)).toBe(1);
    expect(successAt(ranking, new Set(['c']), 2)).toBe(0);
    expect(successAt(ranking, new Set(['z']), 10)).toBe(0);
  });

  it('reciprocal rank@k: 1 / the first relevant rank, 0 past k', () => {
    expect(reciprocalRankAt(ranking, new Set(['c']), 10)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRankAt(ranking, new Set(['d', 'b']), 10)).toBeCloseTo(1 / 2, 12);
    expect(reciprocalRankAt(ranking, new Set(['d']), 3)).toBe(0);
  });

  it('nDCG@k with binary gains', () => {
    expect(ndcgAt(ranking, new Set(['a']), 10)).toBe(1);
    // One relevant document at rank 3: (1 / log2 4) / 1.
    expect(ndcgAt(ranking, new Set(['c']), 10)).toBeCloseTo(0.5, 12);
    // Two at ranks 2 and 4: (1/log2 3 + 1/log2 5) / (1 + 1/log2 3) = 1.061606 / 1.630930.
    expect(ndcgAt(ranking, new Set(['b', 'd']), 10)).toBeCloseTo(0.650921, 6);
    expect(ndcgAt(ranking, new Set(['d']), 3)).toBe(0);
    expect(ndcgAt(ranking, new Set(['z']), 10)).toBe(0);
    // More relevant documents than k: the ideal fills only k ranks.
    expect(ndcgAt(ranking, new Set(['a', 'b', 'c']), 2)).toBe(1);
  });

  it('averages over queries, and ranks each document once at its best hit', () => {
    const q = (id: string, relevant: string): JudgedQuery => ({
      id,
      kind: 'exact',
      query: id,
      relevant: [{ document: relevant, reason: '' }],
    });
    const rankings = new Map([
      ['q1', documentRanking([{ id: 'a' }, { id: 'a' }, { id: 'b' }])],
      ['q2', ['c', 'd', 'e', 'b']],
    ]);
    expect(rankings.get('q1')).toEqual(['a', 'b']);
    const s = score([q('q1', 'b'), q('q2', 'b')], rankings);
    expect(s.queries).toBe(2);
    expect(s.success3).toBe(0.5);
    expect(s.mrr10).toBeCloseTo((1 / 2 + 1 / 4) / 2, 12);
    expect(s.ndcg10).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / 2, 12);
    expect(() => score([q('q3', 'a')], rankings)).toThrow(/q3/);
  });
});
