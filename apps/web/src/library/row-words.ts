// The library's row words (UI.md "Library"): access, last activity, the newest session's memory
// and the search index, each as a researcher would say it. Pure, so the rules are tested once.
import { formatAgo, HOUR, MINUTE } from '../shared/time.ts';
import type { RouterOutputs } from '../trpc.ts';

// As the API lists a document (`documents.list`); `documents.get` gives the owner the same index.
type Listed = RouterOutputs['documents']['list'][number];
type Access = Listed['access'];
export type RowMemory = NonNullable<Listed['memory']>;
export type MemoryState = RowMemory['state'];
/**
 * `done` of `total` pages read while extracting (0 of 0 until the page count is known), scanned
 * pages while recognizing, chunks while indexing; `note`: what OCR left out, if anything.
 */
export type RowIndex = NonNullable<Listed['index']>;

/** "owner", "shared by Grace Hopper", "public · from Grace Hopper". */
export function accessLabel(access: Access, ownerName: string): string {
  if (access === 'owner') return 'owner';
  return access === 'shared' ? `shared by ${ownerName}` : `public · from ${ownerName}`;
}

/**
 * "added just now" while nothing happened since the document came in, else "active 2 min ago".
 * A document's last activity is its newest run, note or review (the API decides).
 */
export function activityLabel(doc: { addedAt: string; lastActivityAt: string }, now: number): string {
  const untouched = new Date(doc.lastActivityAt).getTime() <= new Date(doc.addedAt).getTime();
  return `${untouched ? 'added' : 'active'} ${formatAgo(doc.lastActivityAt, now)}`;
}

/** A span as a list says it: "21 h", "42 min", "under a minute". The panel has the exact countdown. */
function roughDuration(ms: number): string {
  if (ms >= HOUR) return `${Math.floor(ms / HOUR)} h`;
  if (ms >= MINUTE) return `${Math.floor(ms / MINUTE)} min`;
  return 'under a minute';
}

/**
 * A session's state in one word, the same in the library, the Memory panel and a run's transcript
 * (UI.md "Words and states the panel uses"): *open*; *expired* once past its time (the API may not
 * have noticed yet); *forgotten* by Forget now — also after the purge worker has cleared it, which
 * the owner did not do; *purged* by the worker after it expired; and the two that never held
 * notes, *opening* and *never opened*.
 */
export type SessionWord = 'opening' | 'open' | 'expired' | 'forgotten' | 'purged' | 'never opened';

export interface SessionLike {
  state: MemoryState;
  forgetsAt: string;
  /** When the owner pressed Forget now, if they did (null or absent otherwise). */
  forgottenAt?: string | null;
}

export function sessionWord(session: SessionLike, now: number): SessionWord {
  switch (session.state) {
    case 'open':
      return new Date(session.forgetsAt).getTime() > now ? 'open' : 'expired';
    case 'purged':
      return session.forgottenAt ? 'forgotten' : 'purged';
    case 'empty':
      return 'never opened';
    default:
      return session.state;
  }
}

/**
 * The newest session's memory in a few words, or null when the document has no session:
 * "agent memory · open · forgets in 21 h", "agent memory · expired · waiting to be purged",
 * "agent memory · forgotten", "agent memory · purged".
 */
export function memoryLabel(memory: RowMemory | null, now: number): string | null {
  if (!memory) return null;
  const word = sessionWord(memory, now);
  switch (word) {
    case 'open':
      return `agent memory · open · forgets in ${roughDuration(new Date(memory.forgetsAt).getTime() - now)}`;
    case 'expired':
      return 'agent memory · expired · waiting to be purged';
    default:
      return `agent memory · ${word}`;
  }
}

/** Whether the session still holds notes (until the purge worker comes by, also past its time). */
export const holdsMemory = (memory: RowMemory | null): boolean =>
  memory !== null && (memory.state === 'open' || memory.state === 'expired');

/**
 * "extracting the text, page 3 of 12" while an upload is read ("extracting the text…" while it
 * waits or before its pages are counted), "recognizing text, page 3 of 12" while OCR reads scanned
 * pages, "indexing… 40%", "indexing…" before the chunks are counted, "failed: <reason>"; null
 * when ready.
 */
export function indexLabel(index: RowIndex | null): string | null {
  if (!index || index.state === 'ready') return null;
  if (index.state === 'failed') return `failed: ${index.reason ?? 'no reason given'}`;
  if (index.state === 'extracting')
    return index.total <= 0
      ? 'extracting the text…'
      : `extracting the text, page ${Math.min(index.done + 1, index.total)} of ${index.total}`;
  if (index.state === 'recognizing')
    return `recognizing text, page ${Math.min(index.done + 1, Math.max(index.total, 1))} of ${index.total}`;
  if (index.total <= 0) return 'indexing…';
  const percent = Math.min(100, Math.floor((100 * index.done) / index.total));
  return `indexing… ${percent}%`;
}

/** Still on its way to search: extraction, OCR or indexing under way. */
export const inProgress = (index: RowIndex | null | undefined): boolean =>
  index?.state === 'extracting' || index?.state === 'recognizing' || index?.state === 'indexing';

/** The library polls while any of its documents is still being extracted, recognised or indexed, and stops after. */
/**
 * How often a page whose documents are being read or indexed asks again: each second while its
 * answer is small; a library of thousands of rows, or a text of millions of characters, is a
 * larger answer each time, so it is asked for less often (`size` rows or characters, `perSecond`
 * of them worth a second), at least every 10 s.
 */
export function pollMs(size: number, perSecond: number): number {
  return Math.min(10_000, Math.max(1000, Math.round((size / perSecond) * 1000)));
}

export const anyIndexing = (docs: ReadonlyArray<{ index: RowIndex | null }> | undefined): boolean =>
  (docs ?? []).some((d) => inProgress(d.index));

/** A passage shortened at a word near `max` characters, whitespace folded: for search hits. */
export function shorten(text: string, max = 240): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/u, '')}…`;
}

/** "p. 3" for a hit in a PDF; other documents have no pages worth naming. */
export const pageLabel = (page: number | null | undefined, source: string | undefined): string | null =>
  source === 'pdf' && typeof page === 'number' ? `p. ${page}` : null;

/**
 * A search hit's passage for the list: shortened like `shorten`, but when its first matched term
 * lies past the cut, the excerpt starts a little before that term (with a leading "…").
 */
export function excerpt(text: string, terms: readonly string[], max = 240): string {
  const flat = text.replace(/\s+/gu, ' ').trim();
  const first = Math.min(
    ...terms.map((t) => flat.toLowerCase().indexOf(t.toLowerCase())).filter((i) => i >= 0),
  );
  if (!Number.isFinite(first) || first < max * 0.75) return shorten(flat, max);
  const from = flat.lastIndexOf(' ', Math.max(0, first - 60));
  return `…${shorten(flat.slice(from + 1), max)}`;
}

/**
 * Cuts a passage into plain and matched pieces, case aside, so the matched terms can be shown in
 * `<mark>`: the longest term wins where two start at the same place, and a term is a whole word.
 * The terms are the passage's own words as the search matched them ("bleached" for a search of
 * "bleaching"), so a whole word is what matched: "8" is not marked inside "80".
 */
export function highlight(text: string, terms: readonly string[]): Array<{ text: string; mark: boolean }> {
  const wanted = [...new Set(terms.map((t) => t.trim()).filter((t) => t !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  if (wanted.length === 0) return text === '' ? [] : [{ text, mark: false }];
  const escaped = wanted.map((t) => t.replace(/[.*+?^${}()|[\]\\/]/gu, '\\$&'));
  const pieces: Array<{ text: string; mark: boolean }> = [];
  let at = 0;
  for (const m of text.matchAll(
    new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'giu'),
  )) {
    if (m.index > at) pieces.push({ text: text.slice(at, m.index), mark: false });
    pieces.push({ text: m[0], mark: true });
    at = m.index + m[0].length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), mark: false });
  return pieces;
}
