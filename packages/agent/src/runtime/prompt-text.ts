/**
 * What the model agent's prompts are made of, shared by its turn (model-agent.ts) and its support
 * checks (support.ts): fences that document text cannot close, and what a text is taken to cost.
 */

/** The longest run of backticks in `text`, so a fence around it can be one longer. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

/** A fence no text in `texts` can close: three backticks, or one more than the longest run in them. */
export function fenceFor(texts: readonly string[]): string {
  return '`'.repeat(Math.max(3, ...texts.map((t) => longestBacktickRun(t) + 1)));
}

/**
 * How many tokens a text is taken to cost, without the model's tokenizer: an ASCII character
 * counts 1/3.5 of a token (English prose runs about 4 characters a token in the common
 * tokenizers, JSON punctuation fewer), any other character a whole token (CJK text runs about
 * one a character; accented Latin letters are few enough that counting each whole costs little).
 * It errs high on purpose: the budget must hold for the model's real count.
 */
export function estimateTokens(text: string): number {
  let other = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) other++;
  return Math.ceil((text.length - other) / 3.5 + other);
}
