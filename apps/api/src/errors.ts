/**
 * One place that turns failures into the wire contract of SPEC §9: a tRPC `code` plus a
 * machine-readable `reason` (and `currentVersion` for stale writes) in `error.data`.
 */
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { ERROR_REASONS, REASON_TO_CODE } from '@sponge/contract';
import type { ApiReason, ErrorReason } from '@sponge/contract';

export type { ApiReason };

export class ApiError extends TRPCError {
  readonly reason: ApiReason;
  readonly currentVersion: number | undefined;
  constructor(opts: {
    code: TRPC_ERROR_CODE_KEY;
    reason: ApiReason;
    message: string;
    currentVersion?: number;
    cause?: unknown;
  }) {
    super({ code: opts.code, message: opts.message, cause: opts.cause });
    this.reason = opts.reason;
    this.currentVersion = opts.currentVersion;
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
    case 'INTERNAL_SERVER_ERROR':
    case 'NOT_IMPLEMENTED':
    case 'BAD_GATEWAY':
    case 'SERVICE_UNAVAILABLE':
    case 'GATEWAY_TIMEOUT':
      return 'internal';
    case 'PAYLOAD_TOO_LARGE':
      return 'too_large';
    default:
      // PARSE_ERROR, BAD_REQUEST, METHOD_NOT_SUPPORTED, UNSUPPORTED_MEDIA_TYPE…
      return 'invalid_input';
  }
}

/** The shape of @oh/memory's MemoryError, checked structurally so a duplicate copy of the
 *  package (or an error crossing a realm) is still recognised. */
export interface MemoryErrorLike {
  reason: ErrorReason;
  message: string;
  currentVersion?: number;
}

const REASONS = new Set<string>(ERROR_REASONS);

export function isMemoryError(e: unknown): e is MemoryErrorLike {
  return (
    e instanceof Error &&
    (e.name === 'MemoryError' || e.constructor.name === 'MemoryError') &&
    typeof (e as { reason?: unknown }).reason === 'string' &&
    REASONS.has((e as unknown as { reason: string }).reason)
  );
}

/** Maps a store error to its SPEC §9 tRPC error; integrity failures keep a safe message. */
export function fromMemoryError(e: MemoryErrorLike): ApiError {
  const code = REASON_TO_CODE[e.reason];
  const currentVersion = typeof e.currentVersion === 'number' ? e.currentVersion : undefined;
  const message =
    e.reason === 'integrity' ? 'A stored record failed its integrity check; it was not returned.' : e.message;
  return new ApiError({
    code,
    reason: e.reason,
    message,
    ...(currentVersion !== undefined ? { currentVersion } : {}),
    cause: e,
  });
}

export const notFound = (what = 'That object') =>
  new ApiError({ code: 'NOT_FOUND', reason: 'not_found', message: `${what} was not found.` });
export const forbidden = (message: string) =>
  new ApiError({ code: 'FORBIDDEN', reason: 'forbidden', message });
export const unauthenticated = (message = 'Sign in or send a valid bearer token.') =>
  new ApiError({ code: 'UNAUTHORIZED', reason: 'unauthenticated', message });
export const invalidInput = (message: string) =>
  new ApiError({ code: 'BAD_REQUEST', reason: 'invalid_input', message });
