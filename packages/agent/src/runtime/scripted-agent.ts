/**
 * The scripted research agent: what answers a turn when no model is configured, offline and
 * deterministically, through the same runtime path and the same tools as a model would: it
 * searches the library with the question's words, reads the passages it uses (the run's
 * document's, and another document's when one matches), keeps them as working notes with their
 * source, and cites them in its reply.
 *
 * It never acts on what it reads: it only counts the words a passage shares with the owner's
 * question and quotes the sentence that shares the most, so an instruction written in a document
 * is quoted at most, never followed.
 */
import { createHash } from 'node:crypto';
import { LIMITS, SPONGE_LIMITS, QUOTE_MAX, READ_PASSAGE_MAX } from '@sponge/contract';
import type { Change, CitationInput, LibraryHit } from '@sponge/contract';
import { isMemoryToolError } from '../errors.ts';
import type { LibraryTools } from '../library-tools.ts';
import type { MemoryTools } from '../memory-tools.ts';
import type { TurnAgent, TurnAnswer, TurnInput } from './turn.ts';

const SCRIPTED_AGENT_NAME = 'scripted agent';

/** The reply's first line: who answered, and how to get a model instead. */
export const SCRIPTED_AGENT_BANNER = 'Scripted agent (no model configured: set AGENT_LLM_URL for a model).';

// Words too common to say anything about which passage a question is about.
const STOPWORDS = new Set(
  (
    'a about after all also an and any are as at be been before being but by can could did do does ' +
    'for from had has have how i if in into is it its me more most my no not of on or our out over ' +
    'so than that the their them then there these they this those to under up was we were what when ' +
    'where which while who whom why will with would you your'
  ).split(' '),
);

/** What is read around a search hit at least: about one paragraph. */
const PASSAGE_CHARS = 800;
const MAX_SLUG_WORDS = 6;

/** Lower-case words without accents; letters and digits of any script. */
function words(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function contentWords(text: string): string[] {
  return [...new Set(words(text).filter((w) => !STOPWORDS.has(w) && (w.length > 1 || /\d/.test(w))))];
}

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
  if (notes.length === 0) return { line: 'Nothing was read, so nothing was remembered.', remembered: [] };
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

/** Where a passage the agent uses lies, and the sentence it quotes from it. */
interface UsedPassage {
  documentId: string;
  title: string;
  page: number;
  /** The passage as read (`library.read`). */
  text: string;
  /** A stretch of `text` (so of the stored text) that shares the most words with the topic. */
  quote: string;
  shared: string[];
}

/** The sentence of `text` sharing the most words with `topic` (the first when none does), at most QUOTE_MAX characters. */
export function bestSentence(text: string, topic: string): { quote: string; shared: string[] } {
  const asked = contentWords(topic);
  const sentences = (text.match(/[^.!?\n]+(?:[.!?]+|$)/g) ?? [text])
    .map((t) => t.trim())
    .filter((t) => t !== '');
  let best = { quote: sentences[0] ?? '', shared: [] as string[] };
  for (const sentence of sentences) {
    const present = new Set(words(sentence));
    const shared = asked.filter((w) => present.has(w));
    if (shared.length > best.shared.length) best = { quote: sentence, shared };
  }
  // A stretch of the text as it is, cut at a word so it stays a substring of what was read.
  let quote = best.quote;
  if (quote.length > QUOTE_MAX) {
    const cut = quote.slice(0, QUOTE_MAX);
    quote = cut.slice(0, Math.max(cut.lastIndexOf(' '), 1)).trim();
  }
  return { quote, shared: best.shared };
}

/** The search words: the question's content words, or the question itself when it has none. */
function searchQuery(topic: string): string {
  const query = contentWords(topic).join(' ');
  return clip(query !== '' ? query : topic, 1_000);
}

/**
 * Reads a hit's passage (its span in the document's text) and picks the sentence to quote. A hit
 * on the abstract (kept apart from the text, an empty span) is read from the start of the document.
 */
async function usePassage(
  library: LibraryTools,
  hit: Pick<LibraryHit, 'documentId' | 'start' | 'end'>,
  topic: string,
): Promise<UsedPassage | null> {
  const length = Math.min(READ_PASSAGE_MAX, Math.max(hit.end - hit.start, PASSAGE_CHARS));
  const passage = await library.read({ documentId: hit.documentId, start: hit.start, length });
  if (passage.text.trim() === '') return null;
  const { quote, shared } = bestSentence(passage.text, topic);
  if (quote === '') return null;
  return {
    documentId: passage.documentId,
    title: passage.title,
    page: passage.page,
    text: passage.text,
    quote,
    shared,
  };
}

/**
 * The run's document's passage for the topic and, when the library has another document that
 * matches, one passage of it: searched (the library, and the run's document alone), then read.
 * A document not yet searchable is read from its start.
 */
async function research(
  library: LibraryTools,
  document: TurnInput['document'],
  topic: string,
  signal: AbortSignal,
): Promise<{ main: UsedPassage | null; other: UsedPassage | null; searched: number }> {
  const query = searchQuery(topic);
  // A search the library refuses (its index unavailable) finds nothing: the document is still read.
  const searchOrNothing = (input: Parameters<LibraryTools['search']>[0]) =>
    library.search(input).catch((e: unknown) => {
      if (isMemoryToolError(e)) return [];
      throw e;
    });
  const everywhere = await searchOrNothing({ query, limit: 8 });
  signal.throwIfAborted();
  const inDocument = await searchOrNothing({ query, limit: 3, documentId: document.id });
  signal.throwIfAborted();
  // Of the document's hits, the one whose passage has the sentence sharing the most words with
  // the topic (search order breaks ties); a hit on the abstract only when nothing else matched.
  const shared = (h: LibraryHit) => (h.end > h.start ? bestSentence(h.passage, topic).shared.length : -1);
  const mainHit = inDocument.reduce<LibraryHit | undefined>(
    (best, h) => (best === undefined || shared(h) > shared(best) ? h : best),
    undefined,
  );
  const readOrNothing = (hit: Pick<LibraryHit, 'documentId' | 'start' | 'end'>) =>
    usePassage(library, hit, topic).catch((e: unknown) => {
      if (isMemoryToolError(e)) return null;
      throw e;
    });
  const main = await readOrNothing(mainHit ?? { documentId: document.id, start: 0, end: 0 });
  signal.throwIfAborted();
  const otherHit = everywhere.find((h) => h.documentId !== document.id);
  const other = otherHit ? await readOrNothing(otherHit) : null;
  return { main, other, searched: everywhere.length };
}

async function answer({ document, history, tools, library, signal }: TurnInput): Promise<TurnAnswer> {
  const question = questionOf(history);
  // A research step has no question: the title says what the document is about.
  const topic = question !== '' ? question : document.title;
  const against = question === '' ? 'its title' : 'your question';
  const { main, other, searched } = await research(library, document, topic, signal);

  const lines = [SCRIPTED_AGENT_BANNER, ''];
  if (question === '') lines.push(`Research step on “${document.title}”.`);
  lines.push(
    `I searched the library for “${searchQuery(topic)}” (${searched === 1 ? '1 document matched' : `${searched} documents matched`}).`,
  );
  const source = (p: UsedPassage) => ({ documentId: p.documentId, page: p.page, quote: p.quote });
  const citations: CitationInput[] = [];
  if (main && main.shared.length > 0) {
    lines.push(
      `The passage of “${main.title}” that shares the most words with ${against} (p. ${main.page}; shared: ${main.shared.join(', ')}):`,
      `“${main.quote}”`,
    );
    citations.push(source(main));
  } else if (main) {
    lines.push(
      `No passage of “${document.title}” shares a word with ${against}. It begins:`,
      `“${main.quote}”`,
    );
    citations.push(source(main));
  } else {
    lines.push(`“${document.title}” has no text I could read.`);
  }
  if (other) {
    lines.push(
      `Another document of the library, “${other.title}” (p. ${other.page}), says:`,
      `“${other.quote}”`,
    );
    citations.push(source(other));
  }

  const slug = questionSlug(topic);
  const changes: Change[] = [];
  if (main) {
    changes.push({
      op: 'add',
      name: `lead:${slug}`,
      text: clip(
        `${question === '' ? `Research step on “${document.title}”` : `Asked: “${clip(question, 300)}”`}. ` +
          `“${main.title}”, p. ${main.page}: “${main.quote}”`,
        LIMITS.textChars,
      ),
      data: { source: source(main) },
    });
  }
  if (other) {
    changes.push({
      op: 'add',
      name: `todo:${`check-${slug}`.slice(0, 96)}`,
      text: clip(`Check against “${other.title}”, p. ${other.page}: “${other.quote}”`, LIMITS.textChars),
      data: { source: source(other) },
    });
  }
  const memory = await useMemory(tools, signal, changes, topic);
  lines.push('', memory.line);
  if (memory.remembered.length > 0) citations.push({ note: memory.remembered[0]! });
  return { text: clip(lines.join('\n'), SPONGE_LIMITS.messageChars), citations };
}

/**
 * The agent the runtime uses without `AGENT_LLM_URL`: one research step per turn — search the
 * library, read the passages it uses (the run's document's, and another document's when one
 * matches), remember them as notes with their source, recall — and a short reply quoting and
 * citing them.
 */
export function createScriptedAgent(): TurnAgent {
  return { name: SCRIPTED_AGENT_NAME, answer };
}
