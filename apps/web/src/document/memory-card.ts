import type { TranscriptItem } from '@sponge/contract';

export type MemoryCard = Extract<TranscriptItem, { type: 'memory' }>;

const notes = (n: number): string => `${n} ${n === 1 ? 'note' : 'notes'}`;

/**
 * What a transcript memory card says before its names. A remember call that only removed notes
 * reads "Removed 2 notes": "Remembered" would claim the agent kept something. A call that did
 * both says so: "Remembered 2 notes · removed 1".
 */
export function memoryCardHeadline(card: Pick<MemoryCard, 'action' | 'count' | 'removed'>): string {
  if (card.action === 'recalled') return `Recalled ${notes(card.count)}`;
  const kept = card.count - card.removed;
  if (card.removed === 0) return `Remembered ${notes(card.count)}`;
  if (kept === 0) return `Removed ${notes(card.removed)}`;
  return `Remembered ${notes(kept)} · removed ${card.removed}`;
}
