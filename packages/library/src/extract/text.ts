/**
 * Text clean-up shared by the text path and the PDF thread, so both count characters the same way
 * before the length limit is checked.
 *
 * Loaded by the PDF thread with Node's type stripping: erasable TypeScript only.
 */

/** A leading byte order mark, and every CRLF or lone CR as LF. */
export function normaliseLines(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.replace(/\r\n?/g, '\n');
}

// An unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a high.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A PDF page's text as stored: no NULs (broken font encodings produce them, and they end strings
 * in too many places downstream), and no unpaired surrogates (a bad ToUnicode map can emit half a
 * pair, which UTF-8 storage would silently turn into U+FFFD, changing the text after it was
 * counted).
 */
export function cleanPdfText(text: string): string {
  return normaliseLines(text.replaceAll('\0', '')).replace(LONE_SURROGATE, '\uFFFD');
}

/** True when the text has something other than whitespace. */
export function hasText(text: string): boolean {
  return /\S/u.test(text);
}
