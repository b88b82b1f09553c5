/**
 * Notes marked with unique strings, for the forgetting tests here and in the API: after Forget now
 * or a purge, none of a session's markers may be left in any file or table (on-disk.ts looks).
 */
import { randomBytes } from 'node:crypto';
import type { Change } from '../types.ts';

/** Three markers per session: one in every name, one in every text, one in every data value. */
export function markersFor(label: string) {
  const hex = randomBytes(8).toString('hex');
  return {
    name: `mk${label}${hex}`,
    text: `MKTEXT${label.toUpperCase()}${hex}`,
    data: `MKDATA${label.toUpperCase()}${hex}`,
  };
}
export type Markers = ReturnType<typeof markersFor>;

export const allMarkers = (m: Markers): string[] => [m.name, m.text, m.data];

/** Notes `from` to `from + count - 1`, linked in a chain, every field of each holding a marker. */
export function markedNoteChanges(
  m: Markers,
  from: number,
  count: number,
  op: 'add' | 'replace' = 'add',
): Change[] {
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    // Long texts spread the content over many pages, so stale copies would be easy to leave behind.
    return {
      op,
      name: `lead:${m.name}-${i}`,
      text: `${m.text} note ${i} ${op} `.repeat(40),
      data: { secret: `${m.data}-${i}`, n: i },
      links: i > 0 && op === 'add' ? [{ rel: 'supports' as const, to: `lead:${m.name}-${i - 1}` }] : [],
    };
  });
}
