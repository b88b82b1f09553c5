/**
 * The live "passage found in the source" check. The same rule as the API's (apps/api/src/
 * passages.ts), which re-checks on every decision: NFC, whitespace runs as one space, trimmed,
 * then an exact substring of the source text normalised the same way. Kept as a copy because the
 * web app imports the API by type only.
 */
export function normalisePassage(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

export function passageOccursIn(passage: string, sourceText: string): boolean {
  const p = normalisePassage(passage);
  return p.length > 0 && normalisePassage(sourceText).includes(p);
}
