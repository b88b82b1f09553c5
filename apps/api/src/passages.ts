/**
 * Cited passages (SPEC §7): a reviewed record cites a passage that must occur in its source
 * document's text. Comparison is on whitespace-normalised text, so a passage copied across a
 * line or paragraph break, or pasted with extra spaces, still matches; everything else (case,
 * punctuation, wording) must be exact. The web app's live check uses the same rule.
 */

/** NFC, every run of whitespace (line breaks and no-break spaces included) as one space, trimmed. */
export function normalisePassage(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** Whether the (already normalised) passage occurs in the source text. */
export function passageOccursIn(passage: string, sourceText: string): boolean {
  return passage.length > 0 && normalisePassage(sourceText).includes(passage);
}
