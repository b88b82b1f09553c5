import type { TranscriptItem } from '@sponge/contract';

export type MemoryCard = Extract<TranscriptItem, { type: 'memory' }>;

/** Whether the agent was shown what recall found (live) or recall only looked (shadow). */
type RecallMode = 'shadow' | 'live';

/**
 * What a recall's card carries beside its count (issue 39's agreed shape): `count` rows were shown
 * to the agent (0 in shadow mode), `found` similar notes the recall index found, and its `mode`.
 * Optional until every API in use sends them; a card without them reads by its count, as before.
 */
interface RecallExtras {
  found?: number;
  mode?: RecallMode;
}

const notes = (n: number): string => `${n} ${n === 1 ? 'note' : 'notes'}`;
const similar = (n: number): string =>
  n === 0 ? 'no similar notes' : `${n} similar ${n === 1 ? 'note' : 'notes'}`;

/**
 * What a transcript memory card says before its names. A remember call that only removed notes
 * reads "Removed 2 notes": "Remembered" would claim the agent kept something. A call that did
 * both says so: "Remembered 2 notes · removed 1". A recall says what recall found, in the words
 * the Memory panel's list uses for the same recall: in shadow mode the agent was shown nothing,
 * so "Recalled 0 notes" would contradict the panel's "found 2".
 */
export function memoryCardHeadline(
  card: Pick<MemoryCard, 'action' | 'count' | 'removed'> & RecallExtras,
): string {
  if (card.action === 'recalled') {
    return card.mode === 'shadow'
      ? `Found ${similar(card.found ?? card.count)} — not shown to the agent`
      : `Recalled ${notes(card.count)}`;
  }
  const kept = card.count - card.removed;
  if (card.removed === 0) return `Remembered ${notes(card.count)}`;
  if (kept === 0) return `Removed ${notes(card.removed)}`;
  return `Remembered ${notes(kept)} · removed ${card.removed}`;
}

/**
 * The Memory panel's heading over a session's recalls: "Similar notes found (not shown to the
 * agent)" while recall only looks (shadow), "Notes recalled (shown to the agent)" when the agent
 * saw them, "Similar notes found" when the list holds both.
 */
export function recallsHeading(modes: readonly RecallMode[]): string {
  if (modes.every((m) => m === 'shadow')) return 'Similar notes found (not shown to the agent)';
  if (modes.every((m) => m === 'live')) return 'Notes recalled (shown to the agent)';
  return 'Similar notes found';
}

/**
 * One recall in the panel's list, with the count its transcript card gives: "found 2 similar
 * notes", "recalled 3 notes"; beside recalls of the other mode, whether the agent saw it.
 */
export function recallEntryWords(
  recall: { mode: RecallMode; found: number },
  modes: readonly RecallMode[],
): string {
  const words =
    recall.mode === 'shadow' ? `found ${similar(recall.found)}` : `recalled ${notes(recall.found)}`;
  if (new Set(modes).size < 2) return words;
  return `${words} · ${recall.mode === 'shadow' ? 'not shown to the agent' : 'shown to the agent'}`;
}
