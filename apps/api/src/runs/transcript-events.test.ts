import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodeCursor,
  eventsAfter,
  mergeTranscript,
  parseCursor,
  SOURCES,
  START,
} from './transcript-events.ts';
import type { TranscriptSources } from './transcript-events.ts';

interface Item {
  at: string;
  label: string;
}

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

/** Lists whose times mostly grow, sometimes not (two API processes' clocks). */
const sourcesArb = fc
  .record({
    m: fc.array(fc.nat(20), { maxLength: 6 }),
    w: fc.array(fc.nat(20), { maxLength: 6 }),
    r: fc.array(fc.nat(20), { maxLength: 6 }),
    l: fc.array(fc.nat(20), { maxLength: 6 }),
    forgotten: fc.option(fc.nat(20), { nil: undefined }),
    sorted: fc.boolean(),
  })
  .map(({ forgotten, sorted, ...times }): TranscriptSources<Item> => {
    const list = (s: string, ts: number[]) =>
      (sorted ? [...ts].sort((a, b) => a - b) : ts).map((t, i) => ({ at: at(t), label: `${s}${i}` }));
    return {
      lists: {
        m: list('m', times.m),
        // A forgotten session lists no remember or recall cards.
        w: forgotten === undefined ? list('w', times.w) : [],
        r: forgotten === undefined ? list('r', times.r) : [],
        l: list('l', times.l),
      },
      forgotten: forgotten === undefined ? null : { at: at(forgotten), label: 'forgotten' },
    };
  });

describe('transcript events', () => {
  it('resuming after any event sends exactly the events after it', () => {
    fc.assert(
      fc.property(sourcesArb, (sources) => {
        const all = eventsAfter(sources, START);
        for (let k = 0; k < all.length; k++) {
          const resumed = eventsAfter(sources, parseCursor(all[k]!.id)!);
          expect(resumed.map((e) => e.item.label)).toEqual(all.slice(k + 1).map((e) => e.item.label));
        }
        expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
      }),
    );
  });

  it('sends each list in its own order, and everything chat.transcript shows', () => {
    fc.assert(
      fc.property(sourcesArb, (sources) => {
        const labels = eventsAfter(sources, START).map((e) => e.item.label);
        expect([...labels].sort()).toEqual(
          mergeTranscript(sources)
            .map((i) => i.label)
            .sort(),
        );
        for (const s of SOURCES) {
          const own = labels.filter((l) => l.startsWith(s) && l !== 'forgotten');
          expect(own).toEqual(sources.lists[s].map((i) => i.label));
        }
      }),
    );
  });

  it('in the transcript order when each list is in time order', () => {
    fc.assert(
      fc.property(
        sourcesArb.filter((s) =>
          SOURCES.every((k) => s.lists[k].every((x, i, a) => i === 0 || a[i - 1]!.at <= x.at)),
        ),
        (sources) => {
          expect(eventsAfter(sources, START).map((e) => e.item)).toEqual(mergeTranscript(sources));
        },
      ),
    );
  });

  it('sends the same from only the items past the cursor as from the whole lists', () => {
    fc.assert(
      fc.property(sourcesArb, fc.nat(), (sources, pick) => {
        const all = eventsAfter(sources, START);
        // A live view's later read: the lists from where its cursor stands, and their offsets.
        for (const cursor of [START, ...(all.length ? [all[pick % all.length]!.cursor] : [])]) {
          const partial: TranscriptSources<Item> = {
            lists: {
              m: sources.lists.m.slice(cursor.sent.m),
              w: sources.lists.w.slice(cursor.sent.w),
              r: sources.lists.r.slice(cursor.sent.r),
              l: sources.lists.l.slice(cursor.sent.l),
            },
            offsets: { ...cursor.sent },
            forgotten: sources.forgotten,
          };
          expect(eventsAfter(partial, cursor)).toEqual(eventsAfter(sources, cursor));
        }
      }),
    );
  });

  it('a stream that saw the memory cards gets the forgotten card that replaces them, once', () => {
    const before: TranscriptSources<Item> = {
      lists: { m: [{ at: at(1), label: 'm0' }], w: [{ at: at(2), label: 'w0' }], r: [], l: [] },
      forgotten: null,
    };
    const seen = eventsAfter(before, START);
    const after: TranscriptSources<Item> = {
      lists: { ...before.lists, w: [], l: [{ at: at(4), label: 'l0' }] },
      forgotten: { at: at(3), label: 'forgotten' },
    };
    const next = eventsAfter(after, seen.at(-1)!.cursor);
    expect(next.map((e) => [e.id, e.item.label])).toEqual([
      ['m1.w1.r0.l0.f', 'forgotten'],
      ['m1.w1.r0.l1.f', 'l0'],
    ]);
    expect(eventsAfter(after, next.at(-1)!.cursor)).toEqual([]);
  });

  it('reads back its own ids only', () => {
    const c = { sent: { m: 3, w: 2, r: 1, l: 0 }, forgotten: true };
    expect(encodeCursor(c)).toBe('m3.w2.r1.l0.f');
    expect(parseCursor('m3.w2.r1.l0.f')).toEqual(c);
    for (const bad of ['', 'm1', 'm1.w1.r1.l1.x', 'm-1.w0.r0.l0', ' m1.w0.r0.l0', 'm1.w0.r0.l0\n'])
      expect(parseCursor(bad)).toBeNull();
  });
});
