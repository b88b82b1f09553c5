import type { TranscriptItem } from '@sponge/contract';
import { TRPCClientError } from '@trpc/client';
import { sessionWord, type SessionWord } from '../library/row-words.ts';
import { errorMessage } from '../shared/errors.ts';
import { formatAgo } from '../shared/time.ts';
import type { RouterOutputs } from '../trpc.ts';

type Run = RouterOutputs['runs']['list'][number];

/** Transcripts of live runs refresh so new memory cards show up while the owner reads. */
export const LIVE_REFRESH_MS = 4000;
/** While a question waits, poll fast: the hosted runtime usually answers within a second or two. */
export const WAITING_REFRESH_MS = 1000;
/**
 * After this long without a reply the runtime is probably not running; say so, and fall back to
 * the slower live refresh rather than ask every second for an answer that may never come.
 */
export const ANSWER_PATIENCE_MS = 60_000;

/**
 * When the owner's unanswered question was asked (the newest message is theirs), else null.
 * Memory cards do not count: the agent writes them while it is still working on the answer.
 */
export function waitingSince(items: readonly TranscriptItem[] | undefined): string | null {
  const messages = (items ?? []).filter((i) => i.type === 'message');
  const newest = messages.at(-1);
  return newest?.role === 'you' ? newest.at : null;
}

type AnswerState = 'answered' | 'working' | 'overdue';

export function answerState(since: string | null, now: number): AnswerState {
  if (since === null) return 'answered';
  return now - Date.parse(since) < ANSWER_PATIENCE_MS ? 'working' : 'overdue';
}

/** The transcript's refetch interval: fast while a live run's question waits, else as before. */
export function transcriptRefetchMs(
  items: readonly TranscriptItem[] | undefined,
  live: boolean,
  now: number,
): number | false {
  if (!live) return false;
  return answerState(waitingSince(items), now) === 'working' ? WAITING_REFRESH_MS : LIVE_REFRESH_MS;
}

/**
 * Why asking failed, for a person: the API's own sentence (runs closed, run finished, bad input),
 * or, when no answer came back at all, that the server could not be reached.
 */
export function askErrorMessage(error: unknown): string {
  // No tRPC error body: the request failed on the way (offline, server down, a proxy's HTML page).
  if (error instanceof TRPCClientError && error.data === undefined) {
    return `Could not reach the server (${error.message}). Check the connection and ask again.`;
  }
  return errorMessage(error);
}

/**
 * A run's working memory in the one word the library and the Memory panel use too ("open",
 * "expired", "forgotten", "purged"…), "memory off" for a run without it, or null while its session
 * cannot be read.
 */
export function runMemoryWord(
  run: Pick<Run, 'memory' | 'session'>,
  now: number,
): SessionWord | 'memory off' | null {
  if (!run.memory) return 'memory off';
  return run.session ? sessionWord(run.session, now) : null;
}

/** "Chat run · 2 min ago · open": a run on the document page and a session in the Memory panel's picker. */
export function runLabel(
  mode: Run['mode'] | undefined,
  startedAt: string,
  word: SessionWord | 'memory off' | null,
  now: number,
): string {
  const parts = [mode === 'staged' ? 'Staged run' : 'Chat run', formatAgo(startedAt, now)];
  return [...parts, ...(word === null ? [] : [word])].join(' · ');
}

/**
 * Only a live chat run takes another question, and only while its memory is open: the API refuses
 * a question to a run whose session expired or was forgotten or purged, so none is offered
 * (no *Continue this chat*, no question box).
 */
export function takesQuestions(
  run: Pick<Run, 'mode' | 'status' | 'memory' | 'session'>,
  now: number,
): boolean {
  if (run.mode !== 'chat' || run.status !== 'live') return false;
  const word = runMemoryWord(run, now);
  return word === 'memory off' || word === 'open' || word === 'opening';
}

const CLOSED_AS: Partial<Record<SessionWord, string>> = {
  expired: 'expired',
  forgotten: 'was forgotten',
  purged: 'was purged',
  'never opened': 'never opened',
};

/**
 * Why a live chat the owner looks at offers no question box: its memory is closed for good (the
 * API refuses the question), so a new question starts a new run. Null when it takes questions.
 */
export function closedChatWords(
  run: Pick<Run, 'mode' | 'status' | 'memory' | 'session'>,
  now: number,
): string | null {
  if (run.mode !== 'chat' || run.status !== 'live' || takesQuestions(run, now)) return null;
  const word = runMemoryWord(run, now);
  const closed = word === null || word === 'memory off' ? undefined : CLOSED_AS[word];
  return closed === undefined
    ? null
    : `This chat’s working memory ${closed}, so it takes no more questions. Ask below to start a new run.`;
}
