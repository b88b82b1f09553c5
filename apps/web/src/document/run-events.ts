/**
 * Folding `chat.events` (SPEC §7c) into a transcript the page already holds. An event's id is the
 * stream's position after it (`m3.w2.r1.l0`: three messages, two remember cards, one recall and
 * no library card sent; `.f` once the forgotten card was; `transcriptEventId` in the contract), so
 * whether a transcript already has an event's item is a count: the item is the n-th of its list.
 * That keeps the fold right whatever else wrote the transcript meanwhile (a refetch, the question
 * shown before the server confirmed it): nothing is shown twice, nothing is skipped.
 */
import type { TranscriptItem } from '@sponge/contract';

type List = 'm' | 'w' | 'r' | 'l';

const EVENT_ID = /^m(\d+)\.w(\d+)\.r(\d+)\.l(\d+)(\.f)?$/;

function listOf(item: TranscriptItem): List | 'f' {
  if (item.type === 'message') return 'm';
  if (item.type === 'library') return 'l';
  if (item.forgotten) return 'f';
  return item.action === 'recalled' ? 'r' : 'w';
}

/** How many items of `list` the transcript holds. */
function count(items: readonly TranscriptItem[], list: List | 'f', sessionId: string | null): number {
  return items.filter(
    (i) => listOf(i) === list && (list !== 'f' || (i.type === 'memory' && i.sessionId === sessionId)),
  ).length;
}

/**
 * The transcript with the event's item in its place (by time; after items of the same time), or
 * the same array when it already holds it. A forgotten card replaces every memory card of its
 * session, as `chat.transcript` shows after Forget now.
 */
export function foldEvent(
  items: readonly TranscriptItem[] | undefined,
  id: string,
  item: TranscriptItem,
): TranscriptItem[] {
  const current = items ?? [];
  const position = EVENT_ID.exec(id);
  const list = listOf(item);
  if (list === 'f') {
    const sessionId = item.type === 'memory' ? item.sessionId : null;
    if (count(current, 'f', sessionId) > 0) return current as TranscriptItem[];
    return insert(
      current.filter((i) => i.type !== 'memory' || i.sessionId !== sessionId),
      item,
    );
  }
  // Not one of the stream's ids (never happens): shown rather than lost.
  const nth = position ? Number(position[{ m: 1, w: 2, r: 3, l: 4 }[list]]) : Infinity;
  if (count(current, list, null) >= nth) return current as TranscriptItem[];
  // A memory card of a session the transcript already shows as forgotten is gone for good.
  if (list !== 'm' && list !== 'l' && item.type === 'memory' && count(current, 'f', item.sessionId) > 0)
    return current as TranscriptItem[];
  return insert(current, item);
}

function insert(items: readonly TranscriptItem[], item: TranscriptItem): TranscriptItem[] {
  let at = items.length;
  while (at > 0 && items[at - 1]!.at > item.at) at--;
  return [...items.slice(0, at), item, ...items.slice(at)];
}

/** How close in time a repeated question must be to count as the same one shown twice. */
const SAME_QUESTION_MS = 60_000;

/**
 * What the transcript's query keeps when new data arrives (its `structuralSharing`): a refetch,
 * an event folded in, or the question the page puts up before the server confirms it. Each list
 * only ever grows, so of the data before and after, each list is taken from whichever holds more
 * of it: a refetch that read the database before the stream's latest events (and answers after
 * them) does not take them away. Messages the new data holds are taken as it has them (Forget
 * now rewrites the names a reply held). A forgotten card, in either, replaces the memory cards.
 * The question put up after the stream already brought it is shown once.
 */
export function mergeTranscripts(
  before: readonly TranscriptItem[] | undefined,
  after: readonly TranscriptItem[],
): TranscriptItem[] {
  if (!before) return after as TranscriptItem[];
  const [a, b] = [split(before), split(after)];
  const pick = (list: List) => (b[list].length >= a[list].length ? b[list] : a[list]);
  const forgotten = b.f[0] ?? a.f[0];
  // Messages item by item: a read's own text wins for those it holds (after Forget now the server
  // writes "a forgotten note" for the names a reply held; the page must not keep showing them).
  const m = [
    ...b.m.map((item, i) => (a.m[i] && sameItem(a.m[i], item) ? a.m[i] : item)),
    ...a.m.slice(b.m.length),
  ];
  const [last, previous] = [m.at(-1), m.at(-2)];
  if (
    last?.type === 'message' &&
    previous?.type === 'message' &&
    last.role === 'you' &&
    previous.role === 'you' &&
    last.text === previous.text &&
    Math.abs(Date.parse(last.at) - Date.parse(previous.at)) < SAME_QUESTION_MS
  )
    m.pop();
  const merged = [...m, ...(forgotten ? [forgotten] : [...pick('w'), ...pick('r')]), ...pick('l')];
  // By time; equal times in the order above (messages before the cards they led to), as the API.
  const sorted = merged
    .map((item, i) => ({ item, i }))
    .sort((x, y) => x.item.at.localeCompare(y.item.at) || x.i - y.i)
    .map((x) => x.item);
  // The same items in the same order: the data before, so nothing re-renders for nothing.
  return sorted.length === before.length && sorted.every((item, i) => item === before[i])
    ? (before as TranscriptItem[])
    : sorted;
}

/**
 * The items `after` holds beyond `before`, list by list (each list only grows): what a read of
 * the transcript brought that the page had not shown, as the stream would have brought them one
 * by one. A forgotten card is new when `before` had none.
 */
export function addedItems(
  before: readonly TranscriptItem[],
  after: readonly TranscriptItem[],
): TranscriptItem[] {
  const [a, b] = [split(before), split(after)];
  const fresh = new Set<TranscriptItem>();
  for (const list of ['m', 'w', 'r', 'l', 'f'] as const)
    for (const item of b[list].slice(a[list].length)) fresh.add(item);
  return after.filter((item) => fresh.has(item));
}

/** Two reads of one item, alike in what they show. */
const sameItem = (x: TranscriptItem, y: TranscriptItem): boolean => JSON.stringify(x) === JSON.stringify(y);

function split(items: readonly TranscriptItem[]): Record<List | 'f', TranscriptItem[]> {
  const out: Record<List | 'f', TranscriptItem[]> = { m: [], w: [], r: [], l: [], f: [] };
  for (const item of items) out[listOf(item)].push(item);
  return out;
}
