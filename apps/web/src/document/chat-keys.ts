/**
 * What a key press in a chat box does (UI.md): Enter sends, Shift+Enter starts a new line. Never
 * while an input method is composing: there Enter confirms the characters being composed (Chinese,
 * Japanese, Korean), and sending then would send half a word. Chrome and Firefox say so with
 * `isComposing`; Safari ends the composition before its Enter keydown, which it marks with the
 * legacy keyCode 229 instead.
 */
interface ChatKey {
  key: string;
  shiftKey: boolean;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  isComposing: boolean;
  keyCode?: number;
}

/** `'send'` when the press should send the message (the caller prevents the new line), else `null`. */
export function chatKeyAction(e: ChatKey): 'send' | null {
  if (e.key !== 'Enter' || e.isComposing || e.keyCode === 229) return null;
  // Shift+Enter (and Alt+Enter, which some keyboards use for it) keeps the browser's new line.
  if (e.shiftKey || e.altKey) return null;
  return 'send';
}
