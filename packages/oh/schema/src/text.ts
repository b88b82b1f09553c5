/**
 * The rules every string of the contract follows (SPEC §6c), in one place:
 * - U+0000 is refused: libSQL hands text back cut off at the first NUL (`"abc\u0000def"` is read
 *   as `"abc"`), so what was stored would silently not be what was sent.
 * - A lone UTF-16 surrogate is refused: it has no UTF-8 form, so it cannot be stored as sent
 *   and has no well-defined digest. (A pair, such as an emoji, is one character and fine.)
 * - Body text (documents, messages, comments) loses the other C0 and C1 control characters,
 *   except tab, line feed and carriage return.
 * - One-line text (titles, authors, labels, file names) also turns line breaks and tabs into
 *   spaces and loses bidi embedding, override and isolate characters and the directional marks,
 *   which can make a title read differently from what it is (`invoice\u202Efdp.exe`).
 * Both are refused as `invalid_input`, with the field named in the message.
 */
import { z } from 'zod';

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/**
 * Why `text` cannot be stored as it is, naming `field`, or null.
 *
 * @example
 * textProblem('title', 'a\u0000b'); // 'title contains U+0000 (NUL), which cannot be stored'
 */
export function textProblem(field: string, text: string): string | null {
  if (text.includes('\u0000')) return `${field} contains U+0000 (NUL), which cannot be stored`;
  if (LONE_SURROGATE.test(text))
    return `${field} contains a lone UTF-16 surrogate (half of a character such as an emoji), which cannot be stored`;
  return null;
}

// The three patterns below match control characters on purpose.
/** C0 and C1 controls (and DEL) but tab, line feed and carriage return. */
// eslint-disable-next-line no-control-regex
const BODY_CONTROLS = /[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** Line and paragraph breaks and tabs of any kind: a space in one-line text. */
// eslint-disable-next-line no-control-regex
const LINE_BREAKS = /[\t\n\r\u000B\u000C\u0085\u2028\u2029]+/g;
/**
 * The rest of the controls, and the invisible characters that reorder how text is displayed:
 * the Arabic letter mark, LRM and RLM, the embeddings and overrides (U+202A–U+202E) and the
 * isolates (U+2066–U+2069).
 */
// eslint-disable-next-line no-control-regex
const LINE_INVISIBLES = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Body text without control characters other than tab, line feed and carriage return.
 *
 * @example
 * cleanBody('bell\u0007 and\ttab'); // 'bell and\ttab'
 */
export function cleanBody(text: string): string {
  return text.replace(BODY_CONTROLS, '');
}

/**
 * One-line text: line breaks and tabs become a space, other controls and bidi controls go.
 * Not trimmed (the schemas trim after it). A schema refuses U+0000 and lone surrogates before
 * this runs; a title nobody typed (a PDF's metadata, a file name) loses its NULs here too, and a
 * lone surrogate becomes U+FFFD.
 *
 * @example
 * cleanLine('Report\n2019\u202E.pdf'); // 'Report 2019.pdf'
 */
export function cleanLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(LINE_INVISIBLES, '').replace(LONE_SURROGATES, '\uFFFD');
}

/**
 * How a string field is cleaned once it passed {@link textProblem}: `plain` not at all (names,
 * ids, queries, tokens and record text, which an agent gets back exactly as it wrote it),
 * `body` by {@link cleanBody}, `line` by {@link cleanLine}.
 */
export type TextKind = 'plain' | 'body' | 'line';

/**
 * The start of every string schema of the contract: a string that holds no U+0000 and no lone
 * surrogate (refused, naming `field`), cleaned by `kind`. Chain the field's own rules after it
 * (`.trim().min(1).max(300)`): they see the cleaned text.
 *
 * @example
 * textSchema('title', 'line').trim().max(300).parse(' A\tB\u202E '); // 'A B'
 */
export function textSchema(field: string, kind: TextKind = 'plain'): z.ZodString {
  const base = z.string().check((ctx) => {
    const problem = textProblem(field, ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value, continue: false });
  });
  return kind === 'body' ? base.overwrite(cleanBody) : kind === 'line' ? base.overwrite(cleanLine) : base;
}
