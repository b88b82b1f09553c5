/**
 * A run's transcript as a stream of events that resumes without loss or duplicates (SPEC §7c).
 *
 * The transcript is read from a few append-only lists, each in commit order: the messages, the
 * memory log's remember entries, the recalls and the library cards. An item's place in its list
 * never changes once it is committed (rows are only ever added, and SQLite commits one writer at
 * a time, so a row committed later sorts after every row committed before it). The memory cards
 * are the exception: after Forget now (or the purge) the session's remember and recall cards are
 * gone and one forgotten card stands in for them.
 *
 * So an event's id is the position of the whole stream after it: how many items of each list
 * have been sent, and whether the forgotten card has. `m3.w2.r1.l0` says three messages, two
 * remember cards, one recall and no library card were sent; `.f` is added once the forgotten card
 * was. Resuming from an id sends exactly the items past those counts. A client that receives a
 * forgotten card drops every memory card of its session, as `chat.transcript` does.
 */

/** The lists, in the order that decides between items of the same time. */
export const SOURCES = ['m', 'w', 'r', 'l'] as const;
export type Source = (typeof SOURCES)[number];

export interface TranscriptSources<Item extends { at: string }> {
  /** m: messages, w: remember cards (the memory log), r: recall cards, l: library cards. */
  lists: Record<Source, Item[]>;
  /**
   * How many items of each list come before `lists[s][0]`: a live view reads only what was
   * committed since its last read, and these say where that starts. None (all zero) when the
   * lists are whole.
   */
  offsets?: Record<Source, number>;
  /** The session was forgotten or purged: this card replaces every remember and recall card. */
  forgotten: Item | null;
}

export interface Cursor {
  sent: Record<Source, number>;
  forgotten: boolean;
}

export const START: Cursor = { sent: { m: 0, w: 0, r: 0, l: 0 }, forgotten: false };

export function encodeCursor(c: Cursor): string {
  return SOURCES.map((s) => `${s}${c.sent[s]}`).join('.') + (c.forgotten ? '.f' : '');
}

const CURSOR = /^m(\d{1,9})\.w(\d{1,9})\.r(\d{1,9})\.l(\d{1,9})(\.f)?$/;

/** The position an event id names, or null when it is not one of this stream's ids. */
export function parseCursor(id: string): Cursor | null {
  const m = CURSOR.exec(id);
  if (!m) return null;
  return {
    sent: { m: Number(m[1]), w: Number(m[2]), r: Number(m[3]), l: Number(m[4]) },
    forgotten: m[5] !== undefined,
  };
}

/** The whole transcript as `chat.transcript` returns it: by time, equal times in list order. */
export function mergeTranscript<Item extends { at: string }>(sources: TranscriptSources<Item>): Item[] {
  const items = [
    ...sources.lists.m,
    ...(sources.forgotten ? [sources.forgotten] : []),
    ...sources.lists.w,
    ...sources.lists.r,
    ...sources.lists.l,
  ];
  // Stable sort: equal times keep messages before the cards they led to.
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.at.localeCompare(b.item.at) || a.i - b.i)
    .map((x) => x.item);
}

export interface TranscriptEvent<Item> {
  /** The stream's position after this event. */
  id: string;
  cursor: Cursor;
  item: Item;
}

/**
 * The items past `cursor`, each with the position after it. Each list's items go in their own
 * order (never one before an earlier one of its list, whatever their times say, or a resume could
 * skip it); between lists, the earlier time first.
 */
export function eventsAfter<Item extends { at: string }>(
  sources: TranscriptSources<Item>,
  cursor: Cursor,
): Array<TranscriptEvent<Item>> {
  const heads = { ...cursor.sent };
  let forgotten = cursor.forgotten;
  const events: Array<TranscriptEvent<Item>> = [];
  // The item at a list's head; a partial list that starts past the head cannot say (never asked:
  // a live view reads whole first, and each later read starts where the cursor then stands).
  const at = (source: Source): Item | undefined => {
    const index = heads[source] - (sources.offsets?.[source] ?? 0);
    if (index < 0) throw new Error(`the ${source} list read starts after the cursor`);
    return sources.lists[source][index];
  };
  for (;;) {
    let pick: { source: Source | 'f'; item: Item } | null = null;
    const consider = (source: Source | 'f', item: Item | undefined) => {
      if (item !== undefined && (pick === null || item.at < pick.item.at)) pick = { source, item };
    };
    consider('m', at('m'));
    if (!forgotten) consider('f', sources.forgotten ?? undefined);
    // Once forgotten, no remember or recall card is shown again (the builder lists none either).
    if (!forgotten && sources.forgotten === null) {
      consider('w', at('w'));
      consider('r', at('r'));
    }
    consider('l', at('l'));
    if (pick === null) return events;
    const { source, item } = pick as { source: Source | 'f'; item: Item };
    if (source === 'f') forgotten = true;
    else heads[source]++;
    const next: Cursor = { sent: { ...heads }, forgotten };
    events.push({ id: encodeCursor(next), cursor: next, item });
  }
}
