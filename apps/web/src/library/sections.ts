// What the library page shows apart (issue 41, point 7): the owner's own documents, then what
// others share or publish, each under its heading; and what an added file's row says once the
// API has read it.
import { indexLabel } from './row-words.ts';
import type { RowIndex } from './row-words.ts';

type Access = 'owner' | 'shared' | 'public';

/**
 * The owner's own documents, and the others' under "Shared with you" / "Published by others"
 * (only the headings that have documents), each in the API's order. A stranger's published demo
 * document is not "your library".
 */
export function librarySections<D extends { access: Access }>(
  docs: readonly D[],
): { own: D[]; others: Array<{ heading: string; docs: D[] }> } {
  const of = (access: Access) => docs.filter((d) => d.access === access);
  const others = [
    { heading: 'Shared with you', docs: of('shared') },
    { heading: 'Published by others', docs: of('public') },
  ].filter((s) => s.docs.length > 0);
  return { own: of('owner'), others };
}

interface Counts {
  title: string;
  pages: number;
  characters: number;
}

/**
 * An added file's row: its title and counts from the library's list once it has the document —
 * OCR and the PDF's own metadata change them after the upload answered — and its state there
 * ("indexing…", "recognizing text, page 2 of 2", "ready", "indexing failed: …"); the characters only
 * once the text has been read.
 */
export function addedSummary(
  added: Counts,
  listed: (Counts & { index: RowIndex | null }) | undefined,
): { title: string; state: string; failed: boolean; facts: string } {
  const now = listed ?? added;
  const index = listed ? listed.index : null;
  const failed = index?.state === 'failed';
  // Until the refetched list has it, the document is as the API just left it: indexing.
  const state = !listed
    ? 'indexing…'
    : failed
      ? `indexing ${indexLabel(index)}`
      : (indexLabel(index) ?? 'ready');
  // While the text is still read (OCR included) its characters are not yet counted.
  const reading = index?.state === 'extracting' || index?.state === 'recognizing';
  const facts = [
    now.pages > 0 && `${now.pages} ${now.pages === 1 ? 'page' : 'pages'}`,
    !reading && `${now.characters.toLocaleString('en')} characters`,
  ].filter(Boolean);
  return { title: now.title, state, failed, facts: facts.join(', ') };
}

/** The tags of the owner's own documents, for the Tag filter: once each, case aside, A to Z. */
export function ownTags(docs: ReadonlyArray<{ access: Access; tags: readonly string[] }>): string[] {
  const byKey = new Map<string, string>();
  for (const d of docs)
    if (d.access === 'owner')
      for (const t of d.tags) if (!byKey.has(t.toLowerCase())) byKey.set(t.toLowerCase(), t);
  return [...byKey.values()].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
}

/** The documents that have `tag` (case aside, as tags are kept); all of them without one. */
export function withTag<D extends { tags: readonly string[] }>(docs: D[], tag: string | null): D[] {
  if (tag === null) return docs;
  const key = tag.toLowerCase();
  return docs.filter((d) => d.tags.some((t) => t.toLowerCase() === key));
}

/** Rows a list of the library shows at first, and adds each time more are asked for. */
export const LIST_PAGE = 100;

/** "Showing 100 of 10,000." and how many the next *Show more* adds; null when all are shown. */
export function moreRows(total: number, shown: number): { words: string; next: number } | null {
  if (total <= shown) return null;
  return {
    words: `Showing ${shown.toLocaleString('en')} of ${total.toLocaleString('en')}.`,
    next: Math.min(LIST_PAGE, total - shown),
  };
}
