/**
 * The scripted research agent: what answers a turn when no model is configured, offline and
 * deterministically, through the same runtime path and the same five tools as a model would.
 *
 * It never acts on the document's text: it only counts the words the text shares with the
 * owner's question and quotes the passages that share the most, so an instruction written in a
 * document is quoted at most, never followed.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '@sponge/contract';
import type { Change } from '@sponge/contract';
import { isMemoryToolError } from '../errors.ts';
import type { MemoryTools } from '../memory-tools.ts';
import type { TurnAgent, TurnAnswer, TurnInput } from './turn.ts';

export const SCRIPTED_AGENT_NAME = 'scripted agent';

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

/** Passages longer than this are cut at sentence ends, so one long paragraph does not win every question. */
const PASSAGE_CHARS = 800;
const QUOTE_CHARS = 600;
const MAX_SLUG_WORDS = 6;

export interface Passage {
  /** 1-based, in document order. */
  index: number;
  text: string;
}

export interface RankedPassage extends Passage {
  /** The question's words the passage contains, in the question's order. */
  shared: string[];
}

/** Lower-case words without accents; letters and digits of any script. */
export function words(text: string): string[] {
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

/** The document's paragraphs, long ones cut into runs of whole sentences. */
export function passages(text: string): Passage[] {
  const pieces: string[] = [];
  for (const paragraph of text.split(/\n\s*\n/)) {
    const trimmed = paragraph.replace(/\s+/g, ' ').trim();
    if (trimmed === '') continue;
    if (trimmed.length <= PASSAGE_CHARS) {
      pieces.push(trimmed);
      continue;
    }
    let current = '';
    for (const sentence of trimmed.match(/[^.!?]+(?:[.!?]+|$)\s*/g) ?? [trimmed]) {
      if (current !== '' && current.length + sentence.length > PASSAGE_CHARS) {
        pieces.push(current.trim());
        current = '';
      }
      current += sentence;
    }
    if (current.trim() !== '') pieces.push(current.trim());
  }
  return pieces.map((p, i) => ({ index: i + 1, text: p }));
}

/** Passages sharing at least one word with the question, most shared words first, then in document order. */
export function rankPassages(text: string, question: string): RankedPassage[] {
  const asked = contentWords(question);
  return passages(text)
    .map((p) => {
      const present = new Set(words(p.text));
      return { ...p, shared: asked.filter((w) => present.has(w)) };
    })
    .filter((p) => p.shared.length > 0)
    .sort((a, b) => b.shared.length - a.shared.length || a.index - b.index);
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
}

/** Load, remember the lead, recall; a refusal of the session ends the memory part, not the turn. */
async function useMemory(
  tools: MemoryTools,
  signal: AbortSignal,
  lead: { name: string; text: string; data: { documentId: string; passages: number[] } },
  recallText: string,
): Promise<MemoryOutcome> {
  try {
    signal.throwIfAborted();
    const { preload } = await tools.load();
    signal.throwIfAborted();
    const exists = preload.rows.some((r) => r.source === 'note' && r.name === lead.name);
    const change = (op: 'add' | 'replace'): Change => ({ op, ...lead });
    let remembered;
    try {
      remembered = await tools.remember({ changes: [change(exists ? 'replace' : 'add')] });
    } catch (e) {
      // The preload holds at most 24 rows: the note may exist without being listed there.
      if (!isMemoryToolError(e, 'name_exists')) throw e;
      remembered = await tools.remember({ changes: [change('replace')] });
    }
    signal.throwIfAborted();
    const recalled = await tools.recall({ text: clip(recallText, LIMITS.recallTextChars), limit: 5 });
    const others = recalled.rows.map((r) => r.name).filter((n) => n !== lead.name);
    const recall =
      recalled.mode !== 'live'
        ? ''
        : others.length > 0
          ? ` Recall also found ${others.join(', ')}.`
          : ' Recall found no other notes.';
    return {
      line: `Working memory: remembered ${lead.name} (memory version ${remembered.version}).${recall}`,
    };
  } catch (e) {
    if (isMemoryToolError(e, 'session_closed')) {
      return {
        line:
          "This run's working memory was forgotten (the owner pressed Forget now), so the memory tools " +
          'refuse every call: nothing was remembered, and this answer comes from the document alone.',
      };
    }
    if (isMemoryToolError(e, 'memory_off')) {
      return { line: 'Working memory is off for this run, so this answer comes from the document alone.' };
    }
    if (isMemoryToolError(e)) {
      return {
        line: `Working memory refused (${e.reason}): ${clip(e.message, 300)}. This answer comes from the document alone.`,
      };
    }
    throw e;
  }
}

async function answer({ document, history, tools, signal }: TurnInput): Promise<TurnAnswer> {
  const question = questionOf(history);
  // A research step has no question: the title says what the document is about.
  const topic = question !== '' ? question : document.title;
  const ranked = rankPassages(document.text, topic);
  const all = passages(document.text);
  const best = ranked[0];
  const opening = all[0];

  const against = question === '' ? 'its title' : 'your question';
  const lines = [SCRIPTED_AGENT_BANNER, ''];
  if (question === '') lines.push(`Research step on “${document.title}”.`);
  if (best) {
    lines.push(
      `The passage of “${document.title}” that shares the most words with ${against} ` +
        `(passage ${best.index} of ${all.length}; shared: ${best.shared.join(', ')}):`,
      `“${clip(best.text, QUOTE_CHARS)}”`,
    );
    const next = ranked.slice(1, 3);
    if (next.length > 0)
      lines.push(
        `Also relevant: ${next.map((p) => `passage ${p.index} (${p.shared.join(', ')})`).join('; ')}.`,
      );
  } else if (opening) {
    lines.push(
      `No passage of “${document.title}” shares a word with ${against}. It begins:`,
      `“${clip(opening.text, QUOTE_CHARS)}”`,
    );
  } else {
    lines.push(`“${document.title}” has no text to quote.`);
  }

  const cited = best ? ranked.slice(0, 3) : [];
  const leadText = clip(
    `${question === '' ? `Research step on “${document.title}”` : `Asked: “${clip(question, 300)}”`}. ` +
      (best
        ? `Best match: passage ${best.index} of ${document.id} (shared: ${best.shared.join(', ')}): “${clip(best.text, 400)}”`
        : `No passage of ${document.id} shares a word with it.`),
    LIMITS.textChars,
  );
  const memory = await useMemory(
    tools,
    signal,
    {
      name: `lead:${questionSlug(topic)}`,
      text: leadText,
      data: { documentId: document.id, passages: cited.map((p) => p.index) },
    },
    topic,
  );
  lines.push('', memory.line);
  return { text: clip(lines.join('\n'), LIMITS.messageChars) };
}

/**
 * The agent the runtime uses without `AGENT_LLM_URL`: one research step per turn (load, remember a
 * `lead:` note citing the best passage, recall) and a short reply quoting that passage.
 */
export function createScriptedAgent(): TurnAgent {
  return { name: SCRIPTED_AGENT_NAME, answer };
}
