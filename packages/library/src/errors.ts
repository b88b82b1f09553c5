/**
 * The one error class of the library. Every refusal the library makes is a `LibraryError` with a
 * stable `reason`; the app maps reasons to its transport's codes in one place (the API: tRPC
 * codes, SPEC §9). The reasons are the API's own words for them, so the mapping adds nothing but
 * the code. Database errors of the client the app hands in are not wrapped: the client is the
 * app's, and the app judges its driver's failures (a server that cannot be reached…) as it does
 * for its own statements.
 */

/**
 * - `not_found`: no such document for this caller (removed meanwhile, another owner's, none);
 * - `invalid_input`: the call cannot be answered as asked (a page past the end, a document with
 *   no text to read or index yet), in words for the caller;
 * - `quota`: the owner's library is full (documents, characters or chunks);
 * - `busy`: the extraction queue cannot take the file now; `retryAfterSeconds` says when;
 * - `invalid_document`, `no_text`, `too_large`: an added or uploaded file refused (SPEC §6b);
 * - `duplicate`: the owner already has this document (the same bytes or DOI, SPEC §6d); `existingId` names it;
 * - `aborted`: the caller went away (its signal) before the work was done; nobody reads the answer.
 */
export type LibraryReason =
  | 'not_found'
  | 'invalid_input'
  | 'quota'
  | 'busy'
  | 'invalid_document'
  | 'no_text'
  | 'too_large'
  | 'duplicate'
  | 'aborted';

export class LibraryError extends Error {
  override readonly name = 'LibraryError';
  /** Machine-readable and stable: the app maps it to its code. */
  readonly reason: LibraryReason;
  /** With `busy`: when a retry may find room. */
  readonly retryAfterSeconds?: number;
  /** With `duplicate`: the owner's document this one would repeat. */
  readonly existingId?: string;

  constructor(
    reason: LibraryReason,
    message: string,
    options: { retryAfterSeconds?: number; existingId?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.existingId !== undefined) this.existingId = options.existingId;
  }
}

/**
 * Type guard for callers that only have `unknown` in a catch block.
 *
 * @example
 * try { await library.add(ownerId, doc, new Date()) } catch (e) { if (isLibraryError(e) && e.reason === 'quota') … }
 */
export function isLibraryError(error: unknown): error is LibraryError {
  return error instanceof LibraryError;
}

/** `not_found` for a document the caller may not see, in the words every refusal of it uses. */
export const documentNotFound = (what = 'The document') =>
  new LibraryError('not_found', `${what} was not found.`);

/** `busy` with the seconds until a retry may find room, in the words every busy refusal ends with. */
export const busy = (message: string, retryAfterSeconds: number) =>
  new LibraryError('busy', `${message} The server is busy; try again in ${retryAfterSeconds} s.`, {
    retryAfterSeconds,
  });
