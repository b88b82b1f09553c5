import { describe, expect, it } from 'vitest';
import { QUOTE_MAX, quoteTooShort } from '@sponge/contract';
import { bestQuote, contentTerms, sentenceSpans } from './matching.ts';

const sentences = (text: string) => sentenceSpans(text).map((s) => text.slice(s.start, s.end));

describe('what the scripted agent matches a passage by', () => {
  it('takes a question’s content words, stemmed, without the words a question is framed with', () => {
    expect(contentTerms('What happened to urchin density?')).toEqual(
      new Map([
        ['urchin', 'urchin'],
        ['densiti', 'density'],
      ]),
    );
    // Plural and tense meet at the stem; the first spelling is the one the reply names.
    expect([...contentTerms('Urchins grazed; the urchin grazes.').entries()]).toEqual([
      ['urchin', 'urchins'],
      ['graze', 'grazed'],
    ]);
    // "much" says nothing about kelp (issue 40: it matched a style guide on changelogs).
    expect([...contentTerms('How much did the kelp canopy shrink?').keys()]).toEqual([
      'kelp',
      'canopi',
      'shrink',
    ]);
    expect(contentTerms('Is there much to say about it?').size).toBe(0);
    // Accents folded, digits kept, and words of a script written without spaces found.
    expect([...contentTerms('Évolution des récifs après 8 °C').keys()]).toEqual([
      'evolut',
      'de',
      'recif',
      'apr',
      '8',
    ]);
    expect(contentTerms('珊瑚の白化').has('白化')).toBe(true);
  });

  it('reads a sentence across line breaks, as a scan’s lines break it, and ends one at a blank line', () => {
    const page =
      'In the autumn survey, urchin density dropped below four animals\nper square metre at the sheltered stations.\n' +
      'Young kelp recruited (within weeks!) on the cleared rock\n\nA heading without a stop\nNew figures: 0.2 percent, e.g. here. 珊瑚が白化した。回復は遅い。';
    expect(sentences(page)).toEqual([
      'In the autumn survey, urchin density dropped below four animals\nper square metre at the sheltered stations.',
      'Young kelp recruited (within weeks!) on the cleared rock',
      'A heading without a stop\nNew figures: 0.2 percent, e.g. here.',
      '珊瑚が白化した。',
      '回復は遅い。',
    ]);
  });

  it('quotes the sentence sharing the most terms, whitespace folded, a stretch of the text as it stands', () => {
    const text =
      'Herbivores grazed algae.\nHeat exposure drove\nbleaching at exposed sites! Bleaching and heat again.';
    expect(bestQuote(text, contentTerms('How did heat exposure drive bleaching?'))).toEqual({
      quote: 'Heat exposure drove bleaching at exposed sites!',
      shared: ['heat', 'exposur', 'bleach'],
      sentences: 1,
    });
    // Two sentences in a row when together they share more: what a term is, then its figure.
    const defined =
      'Degree heating weeks accumulate temperature anomalies over twelve weeks. Values above 8 predict ' +
      'widespread bleaching. The loggers have gaps.';
    expect(
      bestQuote(defined, contentTerms('What share of sites bleached above 8 degree heating weeks?')),
    ).toEqual({
      quote:
        'Degree heating weeks accumulate temperature anomalies over twelve weeks. Values above 8 predict widespread bleaching.',
      shared: ['bleach', '8', 'degre', 'heat', 'week'],
      sentences: 2,
    });
    // A passage that shares nothing is not quoted at all, not even its first sentence.
    expect(bestQuote(text, contentTerms('zebra stripes'))).toBeNull();
  });

  it('makes a quote long enough to be checked, and cuts a long one around what it shares', () => {
    // "Urchins returned." alone could never be verified (fewer than 20 characters and 4 words).
    const short = 'Urchins returned. Kelp followed them within a season. Nothing else changed.';
    const { quote } = bestQuote(short, contentTerms('Did urchins return?'))!;
    expect(quote).toBe('Urchins returned. Kelp followed them within a season.');
    expect(quoteTooShort(quote)).toBe(false);
    const last = bestQuote('Nothing else changed at all. Urchins returned.', contentTerms('urchins'))!;
    expect(last.quote).toBe('Nothing else changed at all. Urchins returned.');

    const long = `${'Divers counted fish along the tape. '.repeat(5).replace(/\. /g, ', ')}${'filler words '.repeat(40)}and the urchin barrens spread east${' again and again'.repeat(20)}.`;
    const cut = bestQuote(long, contentTerms('Where did the urchin barrens spread?'))!.quote;
    expect(cut.length).toBeLessThanOrEqual(QUOTE_MAX);
    expect(cut).toContain('urchin barrens spread east');
    expect(long.includes(cut)).toBe(true);
  });
});
