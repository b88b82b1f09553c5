/**
 * The Memory panel's words (UI.md "Memory panel", "Words and states the panel uses"): one word per
 * state, the same the library and the transcript use (library/row-words.ts `sessionWord`), dates
 * in the one style (shared/time.ts), and what the session sees of reviewed knowledge. Plain
 * functions, so each state's text is tested once, beside them.
 */
import type { SessionWord } from '../library/row-words.ts';
import { kindInSentence } from '../review/words.ts';
import { formatAtWhen, formatDuration, formatWhen } from '../shared/time.ts';

const KEPT_NOTHING = 'Nothing from this session is kept.';

/** The session as the panel's header reads it. */
export interface HeaderSession {
  startedAt: string;
  forgetsAt: string;
  forgottenAt: string | null;
  purgedAt: string | null;
}

/** "Started 14:02 today". */
export const startedWords = (session: HeaderSession, now: number): string =>
  `Started ${formatWhen(session.startedAt, now)}`;

/**
 * The session's state beside when it started: "Forgets in 21 h 58 m 7 s (14:02 tomorrow)",
 * "Expired — waiting to be purged", "Forgotten at 15:20 today. Nothing from this session is kept."…
 * `forgottenAt` is a Forget now the page just made, before the server's answer says when.
 */
export function stateWords(
  word: SessionWord,
  session: HeaderSession,
  now: number,
  forgottenAt: string | null = session.forgottenAt,
): string {
  switch (word) {
    case 'open':
      return forgetsInWords(session.forgetsAt, now);
    case 'opening':
      return "Opening — the agent's memory is not ready yet.";
    case 'expired':
      return 'Expired — waiting to be purged';
    case 'forgotten':
      return forgottenAt
        ? `Forgotten ${formatAtWhen(forgottenAt, now)}. ${KEPT_NOTHING}`
        : `Forgotten. ${KEPT_NOTHING}`;
    case 'purged':
      return session.purgedAt
        ? `Purged ${formatAtWhen(session.purgedAt, now)}, after it expired. ${KEPT_NOTHING}`
        : `Purged after it expired. ${KEPT_NOTHING}`;
    case 'never opened':
      return 'Never opened — this session never finished opening.';
  }
}

/** "Forgets in 21 h 58 m 7 s (14:02 tomorrow)"; past the time, that it expired. */
export function forgetsInWords(forgetsAt: string, now: number): string {
  const left = new Date(forgetsAt).getTime() - now;
  if (left <= 0) return 'Expired — waiting to be purged';
  return `Forgets in ${formatDuration(left)} (${formatWhen(forgetsAt, now)})`;
}

/** What the Working notes list says when it lists nothing. */
export function emptyNotesWords(word: SessionWord | null): string {
  switch (word) {
    case 'forgotten':
    case 'purged':
      return KEPT_NOTHING;
    case 'never opened':
      return 'This session never finished opening, so the agent wrote nothing.';
    default:
      return 'The agent has not remembered anything in this session yet.';
  }
}

/** What the Reviewed knowledge list says when it lists nothing. */
export function emptyReviewedWords(word: SessionWord | null): string {
  return word === 'forgotten' || word === 'purged'
    ? `${KEPT_NOTHING} Reviewed knowledge itself is not affected.`
    : 'No reviewed knowledge is in view of this session.';
}

/**
 * Which reviewed knowledge the session sees — the revision it was pinned to when it started — and,
 * when one has been accepted since, that new runs will see it (running sessions keep theirs).
 */
export function revisionWords(pinned: number, latest: number): { asOf: string; newer: string | null } {
  const asOf =
    pinned === 0
      ? 'No reviewed knowledge yet when this session started'
      : `Reviewed knowledge as of revision ${pinned}`;
  const newer = latest > pinned ? `Revision ${latest} has been accepted since; new runs will see it.` : null;
  return { asOf, newer };
}

/** Why there is no session to show: no run yet, or only runs without working memory (staged). */
export function noSessionWords(runs: ReadonlyArray<{ memory: boolean }> | undefined): {
  title: string;
  text: string;
} {
  const memoryOff = !!runs && runs.length > 0 && runs.every((r) => !r.memory);
  return memoryOff
    ? {
        title: "Working memory is off for this document's runs",
        text: 'Staged research runs keep no working notes unless the document’s setting turns memory on.',
      }
    : {
        title: 'No session yet',
        text: 'A session starts when the agent runs on this document with working memory on.',
      };
}

/** The newest decision proposed from a working note (memory.panel's per-note `review`). */
interface NoteReview {
  decision: 'accept' | 'reject';
  kind: string;
  name: string;
  revision: number | null;
  at: string;
}

/**
 * What a working note's row says of its review, and the button it offers: *Propose for review*
 * until it is proposed; "Accepted as a finding, rev 5" and nothing to press once it is reviewed
 * knowledge (it is not proposed twice); "Rejected as a finding" with *Propose again*.
 */
export function noteReviewWords(review: NoteReview | null): { state: string | null; propose: string | null } {
  if (!review) return { state: null, propose: 'Propose for review' };
  const as = kindInSentence(review.kind);
  if (review.decision === 'reject') return { state: `Rejected as ${as}`, propose: 'Propose again' };
  return {
    state: `Accepted as ${as}${review.revision === null ? '' : `, rev ${review.revision}`}`,
    propose: null,
  };
}

/** "1 note", "12 notes". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
