/**
 * The one error class of reviewed knowledge. Every refusal it makes is a `ReviewError` with a
 * stable `reason`; the app maps reasons to its transport's codes in one place (the API: tRPC
 * codes, SPEC §9). The reasons are the API's own words for them. Database errors of the client the
 * app hands in are not wrapped, as in the library: the client is the app's, and the app judges
 * its driver's failures (a server that cannot be reached…) as it does for its own statements; Oh's
 * store, reading through `ReviewedKnowledgeReader`, judges them as its own.
 */

/**
 * - `not_found`: no such document, session, note or profile for this caller (another owner's, a
 *   removed one, none), in words that do not say which;
 * - `invalid_input`: a decision or a read that cannot be made as asked, with every problem and
 *   where it is (`issues`) when there are several to name;
 * - `integrity`: something kept does not match what it was kept as (a profile release whose kept
 *   pack is another one).
 */
export type ReviewReason = 'not_found' | 'invalid_input' | 'integrity';

/** One problem of a decision, where it is (`fields.effect.unit`, `passage`…) and what is wrong. */
export interface ReviewIssue {
  path: Array<string | number>;
  message: string;
}

export class ReviewError extends Error {
  override readonly name = 'ReviewError';
  /** Machine-readable and stable: the app maps it to its code. */
  readonly reason: ReviewReason;
  /** With `invalid_input`: every problem, each with its path (the API shows them in `data.issues`). */
  readonly issues?: ReviewIssue[];

  constructor(
    reason: ReviewReason,
    message: string,
    options: { issues?: ReviewIssue[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.issues !== undefined) this.issues = options.issues;
  }
}

/**
 * Type guard for callers that only have `unknown` in a catch block.
 *
 * @example
 * try { await decideReview(on, reviewerId, input) } catch (e) { if (isReviewError(e) && e.reason === 'invalid_input') … }
 */
export function isReviewError(error: unknown): error is ReviewError {
  return error instanceof ReviewError;
}

/** `not_found` in the words every refusal of an object the caller may not see uses. */
export const notFound = (what: string) => new ReviewError('not_found', `${what} was not found.`);

/** `invalid_input` naming every problem with its path. */
export function invalidIssues(issues: ReviewIssue[]): ReviewError {
  const described = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return new ReviewError('invalid_input', `Invalid input: ${described}`, { issues });
}
