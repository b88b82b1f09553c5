import { transcriptEventId } from '@sponge/contract';
import type { TranscriptItem } from '@sponge/contract';
import { describe, expect, it } from 'vitest';
import { addedItems, foldEvent, mergeTranscripts } from './run-events.ts';

const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, s)).toISOString();
const msg = (s: number, role: 'you' | 'agent', text: string): TranscriptItem => ({
  type: 'message',
  role,
  text,
  at: at(s),
});
const card = (s: number, action: 'remembered' | 'recalled', names: string[] = []): TranscriptItem => ({
  type: 'memory',
  action,
  count: names.length || 1,
  removed: 0,
  names,
  sessionId: 'ses-1',
  at: at(s),
  forgotten: false,
});
const forgotten = (s: number): TranscriptItem => ({
  type: 'memory',
  action: 'remembered',
  count: 0,
  removed: 0,
  names: [],
  sessionId: 'ses-1',
  at: at(s),
  forgotten: true,
});
const search = (s: number): TranscriptItem => ({
  type: 'library',
  action: 'searched',
  query: 'reef',
  count: 3,
  at: at(s),
});

/** What a stream sends from `from`: each item with the position after it. */
function stream(from: TranscriptItem[], items: TranscriptItem[]): Array<[string, TranscriptItem]> {
  const sent = [...from];
  return items.map((item) => {
    sent.push(item);
    return [transcriptEventId(sent), item];
  });
}

describe('foldEvent', () => {
  it('adds the items after the transcript, by time, each once however often it comes', () => {
    const start = [msg(1, 'you', 'Why?')];
    const events = stream(start, [card(2, 'remembered', ['lead:a']), search(3), msg(4, 'agent', 'Because.')]);
    let items: TranscriptItem[] = start;
    for (const [id, item] of [...events, ...events]) items = foldEvent(items, id, item);
    expect(items).toEqual([start[0], ...events.map(([, i]) => i)]);
  });

  it('places an item by its time among those already shown', () => {
    const items = [msg(1, 'you', 'a'), search(5)];
    const [[id, item]] = stream([msg(1, 'you', 'a')], [card(3, 'recalled')]) as [[string, TranscriptItem]];
    expect(foldEvent(items, id, item).map((i) => i.at)).toEqual([at(1), at(3), at(5)]);
  });

  it('does not show twice the question the page put up before the server confirmed it', () => {
    const before = [msg(1, 'agent', 'Hello')];
    const optimistic = [...before, msg(2, 'you', 'Which sites?')];
    const [[qid, question], [rid, reply]] = stream(before, [
      msg(2, 'you', 'Which sites?'),
      msg(3, 'agent', 'North.'),
    ]) as [[string, TranscriptItem], [string, TranscriptItem]];
    const after = foldEvent(foldEvent(optimistic, qid, question), rid, reply);
    expect(after.map((i) => (i.type === 'message' ? i.text : ''))).toEqual([
      'Hello',
      'Which sites?',
      'North.',
    ]);
  });

  it('a forgotten card replaces the memory cards of its session, once, and no memory card comes after it', () => {
    const items = [msg(1, 'you', 'a'), card(2, 'remembered', ['lead:a']), card(3, 'recalled'), search(4)];
    const [[fid, f]] = stream(items, [forgotten(5)]) as [[string, TranscriptItem]];
    const after = foldEvent(items, fid, f);
    expect(after).toEqual([msg(1, 'you', 'a'), search(4), forgotten(5)]);
    expect(foldEvent(after, fid, f)).toBe(after);
    // A late remember card of that session (a resume from before the forget) is not shown.
    expect(foldEvent(after, 'm1.w2.r1.l1', card(6, 'remembered', ['lead:b']))).toBe(after);
  });

  it('starts from nothing when the transcript has not loaded', () => {
    const [[id, item]] = stream([], [msg(1, 'you', 'a')]) as [[string, TranscriptItem]];
    expect(foldEvent(undefined, id, item)).toEqual([item]);
  });
});

describe('mergeTranscripts', () => {
  const q = msg(1, 'you', 'Which sites?');
  const cards = [search(2), search(3), card(4, 'remembered', ['lead:a']), msg(5, 'agent', 'North.')];

  it('keeps what the stream brought when a refetch that read before it answers after it', () => {
    const streamed = [q, ...cards];
    const staleRefetch = [q, search(2)];
    expect(mergeTranscripts(streamed, staleRefetch)).toBe(streamed);
    // A refetch that is ahead wins, and the data before stays the same object when nothing changed.
    const ahead = [...streamed, msg(6, 'you', 'And south?')];
    expect(mergeTranscripts(streamed, ahead)).toEqual(ahead);
    expect(mergeTranscripts(undefined, staleRefetch)).toBe(staleRefetch);
  });

  it("takes the server's question over the one the page put up, and shows it once if the stream was first", () => {
    const optimistic = { ...q, at: at(0) };
    expect(mergeTranscripts([optimistic], [q])).toEqual([q]);
    expect(mergeTranscripts([q], [q, { ...q, at: at(2) }])).toEqual([q]);
  });

  it("after Forget now, a read's reply text replaces the one that named the notes, even beside newer items", () => {
    const named = msg(5, 'agent', 'I remembered lead:a and todo:b.');
    const scrubbed = msg(5, 'agent', 'I remembered a forgotten note and a forgotten note.');
    const shown = [q, card(4, 'remembered', ['lead:a', 'todo:b']), named, msg(7, 'you', 'Next?')];
    const merged = mergeTranscripts(shown, [q, forgotten(6), scrubbed]);
    expect(merged).toEqual([q, scrubbed, forgotten(6), msg(7, 'you', 'Next?')]);
    expect(JSON.stringify(merged)).not.toMatch(/lead:a|todo:b/);
  });

  it('a forgotten card in either replaces the memory cards', () => {
    const before = [q, search(2), card(4, 'remembered', ['lead:a'])];
    expect(mergeTranscripts(before, [q, forgotten(6)])).toEqual([q, search(2), forgotten(6)]);
    expect(mergeTranscripts([q, forgotten(6)], before)).toEqual([q, search(2), forgotten(6)]);
  });
});

describe('addedItems', () => {
  const q = msg(1, 'you', 'Which sites?');
  it('lists what a later read brought, list by list, in the transcript order', () => {
    const before = [q, search(2)];
    const after = [q, search(2), card(3, 'remembered', ['lead:a']), msg(4, 'agent', 'North.'), search(5)];
    expect(addedItems(before, after)).toEqual(after.slice(2));
    expect(addedItems(after, after)).toEqual([]);
    // A forgotten card is new once; the cards it replaced are not.
    expect(addedItems(after, [q, search(2), forgotten(6), msg(4, 'agent', 'North.'), search(5)])).toEqual([
      forgotten(6),
    ]);
  });
});
