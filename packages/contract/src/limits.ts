/** The limits every party enforces or plans for (SPEC §3–§5). */
export const LIMITS = {
  changesPerCall: 64,
  textChars: 4_000,
  dataBytes: 16 * 1024,
  linksPerRecord: 16,
  notesPerSession: 10_000,
  queryLimitMax: 100,
  queryLimitDefault: 24,
  preloadRows: 24,
  preloadChars: 4_000,
  requestIdChars: 128,
  nameChars: 1 + 32 + 96,
  recallLimitMax: 50,
  recallTextChars: 4_000,
  /** An agent's reply and an owner's turn in the chat. */
  messageChars: 20_000,
  /** A cited source passage. */
  passageChars: 20_000,
  /** A reviewer's comment. */
  commentChars: 4_000,
  /** Ids of documents, runs, sessions, users and keys. */
  idChars: 200,
  /** An uploaded file (SPEC §6b), checked while the body streams in. */
  uploadBytes: 20 * 1024 * 1024,
  /** Pages of one uploaded PDF. */
  documentPages: 2_000,
  /** Extracted or pasted text of one document. */
  documentChars: 2_000_000,
  /** A document's title. */
  titleChars: 300,
  /** Authors of a document, and the length of each name. */
  authors: 50,
  authorChars: 200,
  /**
   * How deep any input may nest, arrays and objects counted (SPEC §6c): checked on the parsed
   * JSON before any schema, so no recursive code downstream can run out of stack.
   */
  inputDepth: 64,
  /**
   * Values (array items and object members, nested ones included) in one input. Above the
   * largest valid input: a remember call of 64 changes, each with 16 KiB of data, holds about
   * 530,000.
   */
  inputValues: 1_048_576,
} as const;

/** Record names are `kind:slug` (SPEC §3). */
export const KIND_RE = /^[a-z][a-z0-9-]{0,31}$/;
export const SLUG_RE = /^[a-z0-9][a-z0-9._-]{0,95}$/;
export const NAME_RE = /^[a-z][a-z0-9-]{0,31}:[a-z0-9][a-z0-9._-]{0,95}$/;
export const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The kind of a record name: the part before the colon. */
export function kindOf(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(0, i);
}
