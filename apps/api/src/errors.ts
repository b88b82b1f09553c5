/**
 * One place that turns failures into the wire contract of SPEC §9: a tRPC `code` plus a
 * machine-readable `reason` (and `currentVersion` for stale writes) in `error.data`.
 */
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { isUnavailable } from '@oh/memory';
import { DOCUMENT_REASON_TO_CODE, ERROR_REASONS, REASON_TO_CODE } from '@sponge/contract';
import type { ApiReason, ErrorReason } from '@sponge/contract';
import { isLibraryError } from '@sponge/library';
import type { LibraryError, LibraryReason } from '@sponge/library';
import { isReviewError } from '@sponge/reviewed';
import type { ReviewError } from '@sponge/reviewed';

export type { ApiReason };

export class ApiError extends TRPCError {
  readonly reason: ApiReason;
  readonly currentVersion: number | undefined;
  /** With `busy`: when a retry may find room (SPEC §6b). */
  readonly retryAfterSeconds: number | undefined;
  /** With `claimed`: when the other runtime's lease lapses (SPEC §7b), ISO-8601. */
  readonly leaseExpiresAt: string | undefined;
  /** With `duplicate`: the caller's document the refused one repeats (SPEC §6d). */
  readonly existingId: string | undefined;
  constructor(opts: {
    code: TRPC_ERROR_CODE_KEY;
    reason: ApiReason;
    message: string;
    currentVersion?: number;
    retryAfterSeconds?: number;
    leaseExpiresAt?: string;
    existingId?: string;
    cause?: unknown;
  }) {
    super({ code: opts.code, message: opts.message, cause: opts.cause });
    this.reason = opts.reason;
    this.currentVersion = opts.currentVersion;
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.leaseExpiresAt = opts.leaseExpiresAt;
    this.existingId = opts.existingId;
  }
}

/** The reason an error without one gets, from its code (tRPC's own errors: 404 path, 413…). */
export function defaultReason(code: TRPC_ERROR_CODE_KEY): ApiReason {
  switch (code) {
    case 'UNAUTHORIZED':
      return 'unauthenticated';
    case 'FORBIDDEN':
      return 'forbidden';
    case 'NOT_FOUND':
      return 'not_found';
    case 'TOO_MANY_REQUESTS':
      return 'quota';
    case 'SERVICE_UNAVAILABLE':
      return 'unavailable';
    case 'INTERNAL_SERVER_ERROR':
    case 'NOT_IMPLEMENTED':
    case 'BAD_GATEWAY':
    case 'GATEWAY_TIMEOUT':
      return 'internal';
    case 'PAYLOAD_TOO_LARGE':
      return 'too_large';
    default:
      // PARSE_ERROR, BAD_REQUEST, METHOD_NOT_SUPPORTED, UNSUPPORTED_MEDIA_TYPE…
      return 'invalid_input';
  }
}

/** The shape of Oh's errors (@oh/memory's MemoryError, @oh/profiles' ProfileError), checked
 *  structurally so a duplicate copy of a package (or an error crossing a realm) is still recognised. */
interface MemoryErrorLike {
  reason: ErrorReason;
  message: string;
  currentVersion?: number;
}

const REASONS = new Set<string>(ERROR_REASONS);
const OH_ERRORS = new Set(['MemoryError', 'ProfileError']);

function isMemoryError(e: unknown): e is MemoryErrorLike {
  return (
    e instanceof Error &&
    OH_ERRORS.has(e.name) &&
    typeof (e as { reason?: unknown }).reason === 'string' &&
    REASONS.has((e as unknown as { reason: string }).reason)
  );
}

/**
 * What a caller reads while the memory database cannot be reached (a libSQL server down or
 * restarting) or is too busy (SQLite's lock held past the busy timeout, a server shedding load
 * with 429): HTTP 503, reason `unavailable`. A write in flight may or may not have
 * reached the database before the connection broke; the same remember sent again with the same
 * requestId is answered from the log if it did, and applied if it did not, so retrying is safe.
 */
export const MEMORY_UNAVAILABLE_MESSAGE =
  'The memory database cannot be reached or is too busy right now. The call may or may not have ' +
  'been applied; retry it with the same requestId (it is applied at most once).';

const INTEGRITY_MESSAGE = 'A stored record failed its integrity check; it was not returned.';

/**
 * Maps a store error to its SPEC §9 tRPC error. `integrity` and `unavailable` get a fixed message:
 * the store's own one may name a table or a server address, which the log keeps.
 */
function fromMemoryError(e: MemoryErrorLike): ApiError {
  const code = REASON_TO_CODE[e.reason];
  const currentVersion = typeof e.currentVersion === 'number' ? e.currentVersion : undefined;
  const message =
    e.reason === 'integrity'
      ? INTEGRITY_MESSAGE
      : e.reason === 'unavailable'
        ? MEMORY_UNAVAILABLE_MESSAGE
        : e.message;
  return new ApiError({
    code,
    reason: e.reason,
    message,
    ...(currentVersion !== undefined ? { currentVersion } : {}),
    cause: e,
  });
}

/** The tRPC code of each of the library's reasons (SPEC §9); the reason itself goes on the wire. */
const LIBRARY_CODES: Record<Exclude<LibraryReason, 'aborted'>, TRPC_ERROR_CODE_KEY> = {
  not_found: 'NOT_FOUND',
  invalid_input: 'BAD_REQUEST',
  quota: 'TOO_MANY_REQUESTS',
  busy: 'TOO_MANY_REQUESTS',
  duplicate: 'CONFLICT',
  ...DOCUMENT_REASON_TO_CODE,
};

/**
 * Maps a library refusal to its SPEC §9 tRPC error, message and `retryAfterSeconds` kept. A call
 * whose client went away (`aborted`) is tRPC's own CLIENT_CLOSED_REQUEST: nobody reads it.
 */
export function fromLibraryError(e: LibraryError): TRPCError {
  if (e.reason === 'aborted')
    return new TRPCError({ code: 'CLIENT_CLOSED_REQUEST', message: e.message, cause: e });
  return new ApiError({
    code: LIBRARY_CODES[e.reason],
    reason: e.reason,
    message: e.message,
    ...(e.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
    ...(e.existingId !== undefined ? { existingId: e.existingId } : {}),
    cause: e,
  });
}

/**
 * Maps a refusal of reviewed knowledge to its SPEC §9 tRPC error; an `invalid_input` keeps its
 * issues (the error formatter puts them in `data.issues`), `integrity` says nothing of what failed.
 */
export function fromReviewError(e: ReviewError): ApiError {
  return new ApiError({
    code: REASON_TO_CODE[e.reason],
    reason: e.reason,
    message: e.reason === 'integrity' ? INTEGRITY_MESSAGE : e.message,
    cause: e,
  });
}

/** What a caller reads while the application database (users, tokens, runs) cannot serve. */
export const APP_UNAVAILABLE_MESSAGE =
  'The application database cannot be reached or is too busy right now. Try again in a moment.';

/**
 * A failure of the application database that means "not now" (a libSQL server down, restarting
 * or shedding load; a lock held past the busy timeout) as HTTP 503 `unavailable`; anything else
 * as it is. The API reads that database directly, not through the store, so its driver errors
 * are judged here with the store's own test.
 */
export function fromAppDatabaseError(e: unknown): unknown {
  if (e instanceof TRPCError || !isUnavailable(e)) return e;
  return new ApiError({
    code: 'SERVICE_UNAVAILABLE',
    reason: 'unavailable',
    message: APP_UNAVAILABLE_MESSAGE,
    cause: e,
  });
}

/**
 * A procedure's failure as SPEC §9 shows it: a store, library or reviewed knowledge error by its reason, a database
 * that cannot serve as `unavailable`. The one place the domains' errors become tRPC codes: the
 * outermost middleware (trpc/procedures.ts) maps every procedure's failure here, and /mcp's tools theirs.
 */
export function toApiError(error: TRPCError): TRPCError {
  if (isMemoryError(error.cause)) return fromMemoryError(error.cause);
  if (isLibraryError(error.cause)) return fromLibraryError(error.cause);
  if (isReviewError(error.cause)) return fromReviewError(error.cause);
  const app = fromAppDatabaseError(error.cause);
  return app instanceof ApiError ? app : error;
}

export const notFound = (what = 'That object') =>
  new ApiError({ code: 'NOT_FOUND', reason: 'not_found', message: `${what} was not found.` });
export const forbidden = (message: string) =>
  new ApiError({ code: 'FORBIDDEN', reason: 'forbidden', message });
export const unauthenticated = (message = 'Sign in or send a valid bearer token.') =>
  new ApiError({ code: 'UNAUTHORIZED', reason: 'unauthenticated', message });
export const invalidInput = (message: string) =>
  new ApiError({ code: 'BAD_REQUEST', reason: 'invalid_input', message });
