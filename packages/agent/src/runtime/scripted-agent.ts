/**
 * The scripted research agent: what answers a turn when no model is configured, offline and
 * deterministically, through the same runtime path and the same tools as a model would (SPEC §7b
 * "Without a model"). It is extractive and honest: its reply is the passages that best match the
 * question — the run's document first, any page of it, then the rest of the library — each quoted
 * and cited. A passage is used only when one of its sentences shares the question's content words
 * (matching.ts: stemmed, common words aside); another document only when it also ranks among the
 * library search's first hits and shares at least half of them (or three). It never pads: when nothing
 * matches it says so and cites nothing. What it quotes it keeps as working notes with their source.
 *
 * It never acts on what it reads: it only compares the words a passage shares with the owner's
 * question and quotes the sentence that shares the most, so an instruction written in a document
 * is quoted at most, never followed.
 */
import { createHash } from 'node:crypto';
import { LIBRARY_SEARCH_MAX, LIMITS, READ_PASSAGE_MAX, SPONGE_LIMITS } from '@sponge/contract';
import type { Change, CitationInput, LibraryHit, LibraryPassage } from '@sponge/contract';
import { isMemoryToolError } from '../errors.ts';
import type { LibraryTools } from '../library-tools.ts';
import type { MemoryTools } from '../memory-tools.ts';
import { bestQuote, contentTerms, contentWords, words } from './matching.ts';
import type { Quote } from './matching.ts';
import type { TurnAgent, TurnAnswer, TurnInput } from './turn.ts';

const SCRIPTED_AGENT_NAME = 'scripted agent';

/** The reply's first line: who answered, and how to get a model instead. */
export const SCRIPTED_AGENT_BANNER = 'Scripted agent (no model configured: set AGENT_LLM_URL for a model).';

const MAX_SLUG_WORDS = 6;

/** Passages of the run's document quoted at most, and of other documents. */
const DOCUMENT_PASSAGES = 3;
const OTHER_PASSAGES = 2;
/**
 * Another document is quoted only when the library's search ranks it among its first hits: a
 * document further down shares words by chance more often than it answers. Not measured.
 */
const OTHER_RANKS = 3;
/**
 * Terms another document's passage must share: half of the question's, but never more than three
 * (a long question's passage can answer it with three of its words). Not measured.
 */
const ENOUGH_ELSEWHERE = 3;
/** Library-wide hits asked for (one per document). */
const LIBRARY_HITS = 8;
/** Hits asked for within another document whose best hit is its abstract. */
const ABSTRACT_HITS = 5;
/**
 * A document of at most these pages and characters is read whole, page by page, rather than
 * searched: every sentence of every page is compared with the question, whatever the index holds
 * (or whether it is ready yet). Reading it takes at most 8 + 4 reads, within READS_MAX.
 */
const SMALL_PAGES = 8;
const SMALL_CHARACTERS = 16_000;
/** Reads of the run's document page by page at most (12 × 4,000 characters). */
const READS_MAX = 12;

/**
 * A stable note slug for a question: its first content words in ASCII, and a short digest of the
 * whole question so two questions that start alike get two notes. The same question always
 * gives the same slug, so asking it again replaces the note instead of adding a second one.
 */
export function questionSlug(question: string): string {
  const ascii = contentWords(question)
    .map((w) => w.replace(/[^a-z0-9]/g, ''))
    .filter((w) => w !== '')
    .slice(0, MAX_SLUG_WORDS);
  const digest = createHash('sha256').update(words(question).join(' ')).digest('hex').slice(0, 8);
  return [...ascii, digest].join('-').slice(0, 96);
}

function clip(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1).trimEnd()}…`;
}

/** The last message, when it is the owner's: a staged research step has none. */
function questionOf(history: TurnInput['history']): string {
  const last = history.at(-1);
  return last?.role === 'you' ? last.text.trim() : '';
}

interface MemoryOutcome {
  /** One line for the reply: what was remembered and recalled, or why nothing was. */
  line: string;
  /** The notes written. */
  remembered: string[];
}

/** Load, remember the notes, recall; a refusal of the session ends the memory part, not the turn. */
async function useMemory(
  tools: MemoryTools,
  signal: AbortSignal,
  notes: Change[],
  recallText: string,
): Promise<MemoryOutcome> {
  if (notes.length === 0) return { line: 'Nothing matched, so nothing was remembered.', remembered: [] };
  const names = notes.map((n) => n.name);
  try {
    signal.throwIfAborted();
    const { preload } = await tools.load();
    signal.throwIfAborted();
    const exists = (name: string) => preload.rows.some((r) => r.source === 'note' && r.name === name);
    const as = (replace: (name: string) => boolean) =>
      notes.map((n): Change => (n.op === 'remove' ? n : { ...n, op: replace(n.name) ? 'replace' : 'add' }));
    let remembered;
    try {
      remembered = await tools.remember({ changes: as(exists) });
    } catch (e) {
      // The preload holds at most 24 rows: a note may exist without being listed there.
      if (!isMemoryToolError(e, 'name_exists')) throw e;
      const existing = new Set(
        (await tools.changedSince(0)).rows.filter((r) => r.source === 'note').map((r) => r.name),
      );
      remembered = await tools.remember({ changes: as((name) => existing.has(name)) });
    }
    signal.throwIfAborted();
    const recalled = await tools.recall({ text: clip(recallText, LIMITS.recallTextChars), limit: 5 });
    const others = recalled.rows.map((r) => r.name).filter((n) => !names.includes(n));
    const recall =
      recalled.mode !== 'live'
        ? ''
        : others.length > 0
          ? ` Recall also found ${others.join(', ')}.`
          : ' Recall found no other notes.';
    const dropped = remembered.sourcesDropped?.length
      ? ` The source of ${remembered.sourcesDropped.map((d) => d.name).join(', ')} was left out: ${remembered.sourcesDropped[0]!.reason}.`
      : '';
    return {
      line: `Working memory: remembered ${names.join(' and ')} with their sources (memory version ${remembered.version}).${dropped}${recall}`,
      remembered: names,
    };
  } catch (e) {
    if (isMemoryToolError(e, 'session_closed')) {
      return {
        line:
          "This run's working memory was forgotten (the owner pressed Forget now), so the memory tools " +
          'refuse every call: nothing was remembered, and this answer comes from the library alone.',
        remembered: [],
      };
    }
    if (isMemoryToolError(e, 'memory_off')) {
      return {
        line: 'Working memory is off for this run, so this answer comes from the library alone.',
        remembered: [],
      };
    }
    if (isMemoryToolError(e)) {
      return {
        line: `Working memory refused (${e.reason}): ${clip(e.message, 300)}. This answer comes from the library alone.`,
        remembered: [],
      };
    }
    throw e;
  }
}

/** A stretch of a document the agent may quote: a search hit's passage, or a paragraph it read. */
interface Candidate {
  documentId: string;
  title: string;
  page: number;
  /** Its span in the document's text, to read it by. */
  start: number;
  end: number;
  /** Whether the agent has read it already (`library.read`), or has only the search's passage. */
  read: boolean;
  /** Its place in its search's ranking, or in the document when read page by page. */
  rank: number;
  match: Quote;
}

/** A passage the agent quotes and cites. */
interface UsedPassage extends Quote {
  documentId: string;
  title: string;
  page: number;
}

/** The terms this reply names: the question's own spelling of each shared stem. */
function sharedWords(p: Quote, terms: ReadonlyMap<string, string>): string {
  return p.shared.map((t) => terms.get(t) ?? t).join(', ');
}

/** A hit as a candidate, when its passage (of the text, not the abstract) shares a term. */
function hitCandidate(hit: LibraryHit, rank: number, terms: ReadonlyMap<string, string>): Candidate[] {
  // A hit on the abstract (kept apart from the text, an empty span) cannot be cited on a page.
  if (hit.end <= hit.start) return [];
  const match = bestQuote(hit.passage, terms);
  return match ? [{ ...hit, read: false, rank, match }] : [];
}

/**
 * The best of `candidates` and those nearly as good (sharing at least two thirds as many terms:
 * beside a sentence sharing "isolated sites", one sharing only "sites" is padding), one per
 * quote, at most `max`. Of equals, one sentence goes before two, then the search's order.
 */
function choose(candidates: readonly Candidate[], max: number): Candidate[] {
  const ranked = [...candidates].sort(
    (a, b) =>
      b.match.shared.length - a.match.shared.length ||
      a.match.sentences - b.match.sentences ||
      a.rank - b.rank,
  );
  const floor = Math.ceil(((ranked[0]?.match.shared.length ?? 0) * 2) / 3);
  const quotes = new Set<string>();
  return ranked
    .filter((c) => c.match.shared.length >= floor)
    .filter((c) => {
      const key = c.match.quote.toLowerCase();
      return !quotes.has(key) && quotes.add(key);
    })
    .slice(0, max);
}

/** How the run's document was looked through, for the reply to say. */
interface Coverage {
  /** Searched (its index covers every page), or read page by page. */
  how: 'searched' | 'read';
  /** Pages read from page 1, when read. */
  pages: number;
  /** Whether every character of it was read, when read. */
  whole: boolean;
}

/** How much of the run's document the reply can say it looked through. */
function lookedThrough(coverage: Coverage, pages: number): string {
  if (coverage.how === 'searched') return 'every page searched';
  if (coverage.whole) return 'every page read';
  if (coverage.pages === 0) return 'no text I could read yet';
  return `p. 1–${coverage.pages} of ${pages} read: its search found nothing`;
}

/** The paragraphs (split at blank lines) of `text` with where each starts in it. */
function paragraphs(text: string): Array<{ text: string; at: number }> {
  const out: Array<{ text: string; at: number }> = [];
  let at = 0;
  for (const m of text.matchAll(/\n[^\S\n]*\n\s*/g)) {
    out.push({ text: text.slice(at, m.index), at });
    at = m.index + m[0].length;
  }
  out.push({ text: text.slice(at), at });
  return out;
}

/**
 * The run's document's text page by page, from page 1, in READS_MAX reads at most: each page read
 * at its start (which also says where the page before it ends), then what one read of a long page
 * left out. A page is kept only once its end is known, so every paragraph is on the page it names.
 */
async function readPages(
  library: LibraryTools,
  document: TurnInput['document'],
  signal: AbortSignal,
): Promise<{ pages: Array<{ page: number; start: number; text: string }>; whole: boolean }> {
  const reads: LibraryPassage[] = [];
  const read = async (input: Parameters<LibraryTools['read']>[0]) => {
    if (reads.length >= READS_MAX) return null;
    const passage = await library.read(input).catch((e: unknown) => {
      if (isMemoryToolError(e)) return null;
      throw e;
    });
    signal.throwIfAborted();
    if (passage) reads.push(passage);
    return passage;
  };
  const starts: number[] = [];
  for (let page = 1; page <= document.pages; page++) {
    const passage = await read({ documentId: document.id, page });
    if (!passage) break;
    starts.push(passage.start);
  }
  const pages: Array<{ page: number; start: number; text: string }> = [];
  let whole = starts.length === document.pages;
  pages: for (let k = 1; k <= starts.length; k++) {
    const from = starts[k - 1]!;
    const last = k === document.pages;
    // A page ends where the next one starts; the last with the text, where a read says it has no more.
    let to = k < starts.length ? starts[k] : last ? reads.find((r) => !r.more)?.end : undefined;
    if (to === undefined && !last) break; // the next page was not read: where this one ends is unknown
    let text = '';
    let at = from;
    while (to === undefined || at < to) {
      const passage =
        reads.find((r) => r.start <= at && at < r.end) ??
        (await read({
          documentId: document.id,
          start: at,
          ...(to === undefined ? {} : { length: Math.min(READ_PASSAGE_MAX, to - at) }),
        }));
      if (!passage || passage.end <= at) {
        whole = false;
        break pages;
      }
      const stop = to === undefined ? passage.end : Math.min(to, passage.end);
      text += passage.text.slice(Math.max(0, at - passage.start), stop - passage.start);
      at = stop;
      if (to === undefined && !passage.more) to = passage.end;
    }
    pages.push({ page: k, start: from, text });
  }
  return { pages, whole };
}

/**
 * The run's document read page by page (readPages): each paragraph that shares a term is a
 * candidate, on the page it lies on.
 */
async function readCandidates(
  library: LibraryTools,
  document: TurnInput['document'],
  terms: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<{ candidates: Candidate[]; coverage: Coverage }> {
  const { pages, whole } = await readPages(library, document, signal);
  const candidates: Candidate[] = [];
  for (const page of pages) {
    for (const paragraph of paragraphs(page.text)) {
      const match = bestQuote(paragraph.text, terms);
      if (!match) continue;
      const start = page.start + paragraph.at;
      candidates.push({
        documentId: document.id,
        title: document.title,
        page: page.page,
        start,
        end: start + paragraph.text.length,
        read: true,
        rank: candidates.length,
        match,
      });
    }
  }
  return { candidates, coverage: { how: 'read', pages: pages.length, whole } };
}

/**
 * Reads a candidate found by search (its span exactly: a paragraph of one page) and quotes what
 * was read; a read the library refuses leaves the search's passage, which the run has seen too.
 */
async function use(
  library: LibraryTools,
  c: Candidate,
  terms: ReadonlyMap<string, string>,
): Promise<UsedPassage> {
  const used = { documentId: c.documentId, title: c.title, page: c.page, ...c.match };
  if (c.read) return used;
  const passage = await library
    .read({ documentId: c.documentId, start: c.start, length: c.end - c.start })
    .catch((e: unknown) => {
      if (isMemoryToolError(e)) return null;
      throw e;
    });
  const match = passage ? bestQuote(passage.text, terms) : null;
  return passage && match ? { ...used, title: passage.title, page: passage.page, ...match } : used;
}

interface Findings {
  /** What was searched for: the content words, as the question spells them. */
  query: string;
  inDocument: UsedPassage[];
  elsewhere: UsedPassage[];
  coverage: Coverage;
}

/**
 * The passages that answer the topic: the run's document's (a small one read whole, page by page;
 * a larger one searched within, so any page, and read from page 1 when its search finds nothing
 * at all), then those of other documents of the library that rank among its search's first hits
 * and share at least half of the terms (or three).
 */
async function research(
  library: LibraryTools,
  document: TurnInput['document'],
  terms: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<Findings> {
  const query = clip([...terms.values()].join(' '), 1_000);
  // A search the library refuses (its index unavailable) finds nothing: the document is still read.
  const searchOrNothing = (input: Parameters<LibraryTools['search']>[0]) =>
    library.search(input).catch((e: unknown) => {
      if (isMemoryToolError(e)) return [];
      throw e;
    });
  let candidates: Candidate[];
  let coverage: Coverage;
  if (document.pages <= SMALL_PAGES && document.characters <= SMALL_CHARACTERS) {
    ({ candidates, coverage } = await readCandidates(library, document, terms, signal));
  } else {
    const inDocument = await searchOrNothing({ query, limit: LIBRARY_SEARCH_MAX, documentId: document.id });
    signal.throwIfAborted();
    candidates = inDocument.flatMap((h, i) =>
      h.documentId === document.id ? hitCandidate(h, i, terms) : [],
    );
    coverage = { how: 'searched', pages: 0, whole: false };
    // Nothing at all: its index may not be ready yet. Its first pages, then.
    if (inDocument.length === 0)
      ({ candidates, coverage } = await readCandidates(library, document, terms, signal));
  }
  const fromDocument: UsedPassage[] = [];
  for (const c of choose(candidates, DOCUMENT_PASSAGES)) {
    fromDocument.push(await use(library, c, terms));
    signal.throwIfAborted();
  }

  const everywhere = await searchOrNothing({ query, limit: LIBRARY_HITS });
  signal.throwIfAborted();
  const enough = Math.min(Math.ceil(terms.size / 2), ENOUGH_ELSEWHERE);
  const others: Candidate[] = [];
  for (const [rank, hit] of everywhere.slice(0, OTHER_RANKS).entries()) {
    if (hit.documentId === document.id || others.length === OTHER_PASSAGES) continue;
    let found = hitCandidate(hit, rank, terms);
    if (hit.end <= hit.start) {
      // Its best passage is its abstract, which lies on no page: its best passage of the text.
      const inIt = await searchOrNothing({ query, limit: ABSTRACT_HITS, documentId: hit.documentId });
      signal.throwIfAborted();
      found = choose(
        inIt.flatMap((h, i) => hitCandidate(h, i, terms)),
        1,
      ).map((c) => ({ ...c, rank }));
    }
    others.push(...found.filter((c) => c.match.shared.length >= enough));
  }
  const elsewhere: UsedPassage[] = [];
  for (const c of others) {
    elsewhere.push(await use(library, c, terms));
    signal.throwIfAborted();
  }
  return { query, inDocument: fromDocument, elsewhere, coverage };
}

/** Where a note says it came from, and what a citation points at. */
const sourceOf = (p: UsedPassage) => ({ documentId: p.documentId, page: p.page, quote: p.quote });

async function answer({ document, history, tools, library, signal }: TurnInput): Promise<TurnAnswer> {
  const question = questionOf(history);
  // A research step has no question: the title says what the document is about.
  const topic = question !== '' ? question : document.title;
  const against = question === '' ? 'its title' : 'your question';
  const terms = contentTerms(topic);

  const lines = [SCRIPTED_AGENT_BANNER, ''];
  if (question === '') lines.push(`Research step on “${document.title}”.`);
  if (terms.size === 0) {
    lines.push(
      `${question === '' ? 'Its title' : 'Your question'} has only common words, so there is nothing to match a passage by and I cite nothing. Ask with the words the passage would use.`,
      '',
      'Nothing matched, so nothing was remembered.',
    );
    return { text: clip(lines.join('\n'), SPONGE_LIMITS.messageChars) };
  }

  const { query, inDocument, elsewhere, coverage } = await research(library, document, terms, signal);
  const looked = lookedThrough(coverage, document.pages);
  const used = [...inDocument, ...elsewhere];
  if (used.length === 0) {
    lines.push(
      `Nothing in this document or your library matches “${query}”: no passage of “${document.title}” ` +
        `(${looked}) or of another document shares a word with ${against}, so I cite nothing.`,
    );
  } else {
    lines.push(
      `I looked through “${document.title}” (${looked}) and searched the rest of your library for “${query}”.`,
    );
    // A blank line before each passage, so each reads as one block under the line that places it.
    for (const p of inDocument)
      lines.push('', `“${p.title}”, p. ${p.page} (shares ${sharedWords(p, terms)}):`, `“${p.quote}”`);
    for (const p of elsewhere)
      lines.push(
        '',
        `Also in your library, “${p.title}”, p. ${p.page} (shares ${sharedWords(p, terms)}):`,
        `“${p.quote}”`,
      );
  }

  // The best passage is the lead; one of another document, beside a lead from this one, a check.
  const slug = questionSlug(topic);
  const changes: Change[] = [];
  const [lead] = used;
  if (lead) {
    changes.push({
      op: 'add',
      name: `lead:${slug}`,
      text: clip(
        `${question === '' ? `Research step on “${document.title}”` : `Asked: “${clip(question, 300)}”`}. ` +
          `“${lead.title}”, p. ${lead.page}: “${lead.quote}”`,
        LIMITS.textChars,
      ),
      data: { source: sourceOf(lead) },
    });
  }
  const [check] = inDocument.length > 0 ? elsewhere : [];
  if (check) {
    changes.push({
      op: 'add',
      name: `todo:${`check-${slug}`.slice(0, 96)}`,
      text: clip(`Check against “${check.title}”, p. ${check.page}: “${check.quote}”`, LIMITS.textChars),
      data: { source: sourceOf(check) },
    });
  }
  const memory = await useMemory(tools, signal, changes, topic);
  lines.push('', memory.line);
  const citations: CitationInput[] = used.map(sourceOf);
  if (memory.remembered.length > 0) citations.push({ note: memory.remembered[0]! });
  return {
    text: clip(lines.join('\n'), SPONGE_LIMITS.messageChars),
    ...(citations.length > 0 ? { citations } : {}),
  };
}

/**
 * The agent the runtime uses without `AGENT_LLM_URL`: one research step per turn — search the
 * run's document and the library, read the passages that match, remember them as notes with their
 * source, recall — and a reply quoting and citing them, or saying that nothing matches.
 */
export function createScriptedAgent(): TurnAgent {
  return { name: SCRIPTED_AGENT_NAME, answer };
}
