/**
 * How the scripted agent tells whether a passage matches a question (SPEC §7b "Without a model"):
 * the question's content words — the locale's word segments, accents and case folded, common
 * words left aside — stemmed as Porter does (the `stemmer` package, the algorithm SQLite's FTS5
 * `porter` tokenizer applies to the keyword index), so "urchins" matches "urchin" here as it does
 * in the library's search. A passage matches when one of its sentences shares at least one of
 * them, and the sentence sharing the most is what is quoted.
 *
 * Everything here is a pure function of its input: the agent's replies are deterministic.
 */
import { stemmer } from 'stemmer';
import { QUOTE_MAX, quoteTooShort } from '@sponge/contract';

/**
 * Words that say nothing about which passage a question is about: function words, and the words
 * a question is framed with ("what happened", "tell me", "explain", "in the document"). A passage
 * that shares only these with a question does not answer it (issue 40: the GNU coding standards
 * quoted for a kelp question because both said "much").
 */
const STOPWORDS = new Set(
  (
    'a about above across after again against all almost along also although always am among an and ' +
    'another any anyone anything are around as at be became because been before being below between ' +
    'both but by can cannot could did didn do does doesn doing don done down during each either else ' +
    'enough etc even ever every few for from further get gets got had has have having he her here hers ' +
    'him his how however i if in into is isn it its itself just least less like many may me might more ' +
    'most much must my near neither no nor not now of off often on once one only onto or other others ' +
    'our ours out over own per perhaps quite rather really same shall she should since so some ' +
    'something such than that the their theirs them then there therefore these they this those though ' +
    'through thus to too toward towards under until up upon us very via was wasn we well were weren ' +
    'what whatever when where whereas whether which while who whom whose why will with within without ' +
    'would yes yet you your yours ' +
    // How questions are framed.
    'answer article describe described document explain explains find found give happen happened ' +
    'happening happens kind kinds know mean means meant page pages paper passage please say said says ' +
    'section show shown shows tell text thing things way'
  ).split(' '),
);

const wordSegments = new Intl.Segmenter(undefined, { granularity: 'word' });

/** Case, accents and compatibility forms folded, as both sides of a comparison are. */
function fold(word: string): string {
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().normalize('NFC');
}

/**
 * The words of `text` with where each lies in it: the locale's word segments (so a language
 * written without spaces is cut into words too), each cut again at anything but letters and
 * digits ("don't" → don, t), folded.
 */
function wordsAt(text: string): Array<{ word: string; at: number }> {
  const out: Array<{ word: string; at: number }> = [];
  for (const segment of wordSegments.segment(text)) {
    if (!segment.isWordLike) continue;
    for (const m of segment.segment.matchAll(/[\p{L}\p{N}]+/gu)) {
      out.push({ word: fold(m[0]), at: segment.index + m.index });
    }
  }
  return out;
}

/** Folded words of `text`, in order. */
export function words(text: string): string[] {
  return wordsAt(text).map((w) => w.word);
}

/** Not a common word, and not a lone Latin letter (a digit or a CJK character says something). */
function isContent(word: string): boolean {
  return !STOPWORDS.has(word) && !/^[a-z]$/.test(word);
}

/** A word's stem: Porter's for Latin letters, the word itself for any other script or a number. */
function stem(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

/** The content words of `text`, each once, in the order they first appear. */
export function contentWords(text: string): string[] {
  return [...new Set(words(text).filter(isContent))];
}

/**
 * The content terms of a question: each stem once, with the word the question spelt it as first
 * (what the reply names as shared), in order.
 */
export function contentTerms(text: string): Map<string, string> {
  const terms = new Map<string, string>();
  for (const word of contentWords(text)) {
    const s = stem(word);
    if (!terms.has(s)) terms.set(s, word);
  }
  return terms;
}

/** The stems of `text`'s words (common words included: a question's terms are never common). */
function stemsOf(text: string): Set<string> {
  return new Set(words(text).map(stem));
}

/**
 * The sentences of `text` as spans: a sentence ends at ., !, ? or … (and any closing quote or
 * bracket) before whitespace that a lower-case letter does not follow ("e.g. here" goes on), at
 * 。！？, or at a blank line. A single line break is not an end: a scan's OCR and a PDF's text
 * layer break lines mid-sentence.
 */
export function sentenceSpans(text: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  const push = (from: number, to: number) => {
    let start = from;
    let end = to;
    while (start < end && /\s/u.test(text[start]!)) start++;
    while (end > start && /\s/u.test(text[end - 1]!)) end--;
    if (end > start) spans.push({ start, end });
  };
  let from = 0;
  for (const m of text.matchAll(/[.!?…]+["'”’)\]]*(?=\s+(?![\s\p{Ll}])|$)|[。！？]+|\n[^\S\n]*\n\s*/gu)) {
    push(from, m[0].startsWith('\n') ? m.index : m.index + m[0].length);
    from = m.index + m[0].length;
  }
  push(from, text.length);
  return spans;
}

/** A quote taken from a passage for a question. */
export interface Quote {
  /** A stretch of the passage, whitespace runs as one space (how citations are compared). */
  quote: string;
  /** The question's terms (stems) the quoted sentence shares, in the question's order. */
  shared: string[];
  /** Sentences quoted: two when together they share more than any one. */
  sentences: number;
}

/**
 * The sentence of `text` sharing the most of `terms` (the first of equals), or two sentences in a
 * row when together they share more (a definition, then the figure it defines), as a quote:
 * joined with the sentences after it (then before it) while it is too short for a citation to be
 * checked (QUOTE_MIN_CHARACTERS, QUOTE_MIN_WORDS), and cut to QUOTE_MAX characters around its
 * first shared word. Null when no sentence shares a term: such a passage is never quoted.
 *
 * @example
 * bestQuote('Otters returned.\nUrchin density\ndropped below four.', contentTerms('What happened to urchin density?'))
 * // { quote: 'Urchin density dropped below four.', shared: ['urchin', 'densiti'], sentences: 1 }
 */
export function bestQuote(text: string, terms: ReadonlyMap<string, string>): Quote | null {
  const spans = sentenceSpans(text);
  const present = spans.map((span) => stemsOf(text.slice(span.start, span.end)));
  const sharedBy = (from: number, to: number) =>
    [...terms.keys()].filter((t) => present.slice(from, to + 1).some((p) => p.has(t)));
  let first = -1;
  let last = -1;
  let shared: string[] = [];
  // One sentence first, so a pair is taken only when it shares strictly more.
  for (const size of [1, 2]) {
    for (let i = 0; i + size <= spans.length; i++) {
      const j = i + size - 1;
      if (size === 2 && spans[j]!.end - spans[i]!.start > QUOTE_MAX) continue;
      const here = sharedBy(i, j);
      if (here.length > shared.length) [first, last, shared] = [i, j, here];
    }
  }
  if (first < 0) return null;
  const stretch = () => text.slice(spans[first]!.start, spans[last]!.end).replace(/\s+/gu, ' ');
  while (quoteTooShort(stretch()) && last + 1 < spans.length) last++;
  while (quoteTooShort(stretch()) && first > 0) first--;
  return { quote: within(stretch(), new Set(shared)), shared, sentences: last - first + 1 };
}

/** `quote` cut at words to QUOTE_MAX characters, from a little before its first shared word. */
function within(quote: string, shared: ReadonlySet<string>): string {
  if (quote.length <= QUOTE_MAX) return quote;
  const at = wordsAt(quote).find((w) => shared.has(stem(w.word)))?.at ?? 0;
  // Some context before the shared word, from the start of a word.
  let start = Math.max(0, at - 120);
  if (start > 0) {
    const space = quote.indexOf(' ', start);
    start = space >= 0 && space < at ? space + 1 : at;
  }
  const cut = quote.slice(start, start + QUOTE_MAX);
  const end = start + QUOTE_MAX < quote.length ? cut.lastIndexOf(' ') : cut.length;
  return cut.slice(0, end > 0 ? end : cut.length).trim();
}
