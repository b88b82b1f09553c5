/** Argument checks shared by the recall index and its background queue. */
import type { RecallNote } from './render.ts';

export function checkSession(sessionId: string): void {
  if (typeof sessionId !== 'string' || sessionId === '')
    throw new TypeError('recall: sessionId must be a non-empty string');
}

/** The notes by name (the last of a repeated name wins), after checking each one's fields. */
export function dedupe(notes: RecallNote[]): Map<string, RecallNote> {
  const out = new Map<string, RecallNote>();
  for (const n of notes) {
    if (
      typeof n?.name !== 'string' ||
      n.name === '' ||
      typeof n.digest !== 'string' ||
      n.digest === '' ||
      typeof n.kind !== 'string' ||
      typeof n.text !== 'string'
    ) {
      throw new TypeError('recall: every note needs a name, digest, kind and text');
    }
    out.set(n.name, n);
  }
  return out;
}
