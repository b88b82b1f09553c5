import type { TranscriptItem } from '@sponge/contract';
import { TRPCClientError } from '@trpc/client';
import { errorMessage } from '../shared/errors.ts';

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
