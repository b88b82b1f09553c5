/**
 * Cited passages (SPEC §7): a reviewed record cites a passage that must occur in its source
 * document's text. Comparison is on whitespace-normalised text, so a passage copied across a
 * line or paragraph break, or pasted with extra spaces, still matches; everything else (case,
 * punctuation, wording) must be exact. One rule for the API, which checks on every decision, and
 * the web app, whose live check is a convenience.
 */

/** NFC, every run of whitespace (line breaks and no-break spaces included) as one space, trimmed. */
export function normalisePassage(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/**
 * Whether the passage, normalised, occurs in the source text normalised the same way (normalising
 * is idempotent: a passage normalised already is the same passage).
 *
 * @example passageOccursIn('uneven.\nSites', 'Recovery was uneven.  Sites…') // true
 */
export function passageOccursIn(passage: string, sourceText: string): boolean {
  const p = normalisePassage(passage);
  return p.length > 0 && normalisePassage(sourceText).includes(p);
}
