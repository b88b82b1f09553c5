// A passage a reviewer selected on a document page ("Cite in a review"), kept for the review
// workbench, which opens later from a working note in the Memory panel (possibly of another
// document). Not a `Citation`: that is what an agent's reply cites (@sponge/contract). Kept in
// sessionStorage: it belongs to this tab's review work and leaves with it.
import { SPONGE_LIMITS, normalisePassage } from '@sponge/contract';

interface SelectedPassage {
  documentId: string;
  passage: string;
  /** The page the selection starts on, when the page shows pages: the dialog opens that page. */
  page?: number;
}

// The key keeps its first name, so a passage a tab kept before the type was renamed is still found.
const KEY = 'sponge.citation';

/** The selected text as a passage: whitespace folded as the passage check folds it. */
export function passageFromSelection(
  documentId: string,
  selected: string,
  page?: number,
): SelectedPassage | { error: string } {
  const passage = normalisePassage(selected);
  if (!passage) return { error: 'Select some text of the document first.' };
  if (passage.length > SPONGE_LIMITS.passageChars) {
    return {
      error: `The selection has ${passage.length.toLocaleString('en')} characters; a cited passage is at most ${SPONGE_LIMITS.passageChars.toLocaleString('en')}. Select a shorter passage.`,
    };
  }
  return isPage(page) ? { documentId, passage, page } : { documentId, passage };
}

const isPage = (page: unknown): page is number => Number.isInteger(page) && (page as number) >= 1;

/** What was kept, or null; anything unreadable counts as nothing kept. */
export function parseSelectedPassage(raw: string | null): SelectedPassage | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (!value || typeof value !== 'object') return null;
    const { documentId, passage, page } = value as Record<string, unknown>;
    if (typeof documentId !== 'string' || typeof passage !== 'string' || !documentId || !passage) return null;
    return isPage(page) ? { documentId, passage, page } : { documentId, passage };
  } catch {
    return null;
  }
}

// Storage can be off (privacy modes throw on access): citing then simply keeps nothing.
export function keepSelectedPassage(
  selected: SelectedPassage,
  storage: Storage | undefined = sessionStore(),
): boolean {
  try {
    storage?.setItem(KEY, JSON.stringify(selected));
    return storage !== undefined;
  } catch {
    return false;
  }
}

export function keptSelectedPassage(storage: Storage | undefined = sessionStore()): SelectedPassage | null {
  try {
    return parseSelectedPassage(storage?.getItem(KEY) ?? null);
  } catch {
    return null;
  }
}

function sessionStore(): Storage | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.sessionStorage;
  } catch {
    return undefined;
  }
}
