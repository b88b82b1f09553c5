/** The limits of Oh's records and memory tools (SPEC §3–§5): every caller enforces or plans for them. */
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
  /**
   * How deep any input may nest, arrays and objects counted (SPEC §6c): checked on the parsed
   * JSON before any schema, so no recursive code downstream can run out of stack.
   */
  inputDepth: 64,
} as const;

/** Record names are `kind:slug` (SPEC §3). */
export const KIND_RE = /^[a-z][a-z0-9-]{0,31}$/;
export const SLUG_RE = /^[a-z0-9][a-z0-9._-]{0,95}$/;
export const NAME_RE = /^[a-z][a-z0-9-]{0,31}:[a-z0-9][a-z0-9._-]{0,95}$/;
export const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The kind of a record name: the part before the first colon.
 *
 * @example kindOf('lead:reef-survey-2016') // 'lead'
 */
export function kindOf(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(0, i);
}
