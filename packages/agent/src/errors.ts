import { TRPCClientError } from '@trpc/client';
import type { ErrorReason, QueryRow } from '@sponge/contract';

/**
 * Why a tool call failed. The SPEC §9 reasons come from the server (`error.data.reason`); the
 * server adds `internal` for its own failures; the client adds `timeout` and `network` for calls
 * that never got an answer, and `unknown` for an answer without a reason (a proxy's error page).
 */
export type MemoryToolReason = ErrorReason | 'internal' | 'timeout' | 'network' | 'unknown';

/** tRPC's error code (`CONFLICT`, `NOT_FOUND`, …) or `NETWORK_ERROR` when no answer came back. */
export type MemoryToolErrorCode = string;

export interface MemoryToolErrorInit {
  reason: MemoryToolReason;
  code: MemoryToolErrorCode;
  message: string;
  httpStatus?: number;
  currentVersion?: number;
  /** For a `stale_version` the runtime refused itself: the notes that moved under this change. */
  moved?: QueryRow[];
  /** Whether the same call may be sent again unchanged (a timeout, a dropped connection, a 5xx). */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * The one error every tool call throws.
 *
 * @example
 * try {
 *   return await memory.remember({ changes });
 * } catch (e) {
 *   // The model reads the refusal as the tool's answer and picks another name.
 *   if (isMemoryToolError(e, 'name_exists')) return e.toJSON();
 *   throw e;
 * }
 */
export class MemoryToolError extends Error {
  override readonly name = 'MemoryToolError';
  readonly reason: MemoryToolReason;
  readonly code: MemoryToolErrorCode;
  readonly httpStatus: number | undefined;
  readonly currentVersion: number | undefined;
  readonly moved: QueryRow[] | undefined;
  readonly retryable: boolean;

  constructor(init: MemoryToolErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.reason = init.reason;
    this.code = init.code;
    this.httpStatus = init.httpStatus;
    this.currentVersion = init.currentVersion;
    this.moved = init.moved;
    this.retryable = init.retryable ?? false;
  }

  /** A plain object for logs and for handing back to a model as the tool's answer. */
  toJSON(): Record<string, unknown> {
    return {
      error: this.reason,
      code: this.code,
      message: this.message,
      ...(this.currentVersion === undefined ? {} : { currentVersion: this.currentVersion }),
      ...(this.moved === undefined ? {} : { moved: this.moved.map((r) => r.name) }),
    };
  }
}

/** Narrowing helper; with `reason`, also checks the reason. */
export function isMemoryToolError(error: unknown, reason?: MemoryToolReason): error is MemoryToolError {
  return error instanceof MemoryToolError && (reason === undefined || error.reason === reason);
}

// tRPC codes worth sending again unchanged; everything else is an answer, not an accident.
const RETRYABLE_CODES = new Set(['TIMEOUT', 'BAD_GATEWAY', 'SERVICE_UNAVAILABLE', 'GATEWAY_TIMEOUT']);

function isTimeout(cause: unknown): boolean {
  if (!(cause instanceof Error)) return false;
  if (cause.name === 'TimeoutError' || cause.name === 'AbortError') return true;
  return isTimeout(cause.cause);
}

/** The API did not answer within the client's time: worth another try. */
function timedOut(cause: unknown): MemoryToolError {
  return new MemoryToolError({
    reason: 'timeout',
    code: 'TIMEOUT',
    message: 'the API did not answer in time',
    retryable: true,
    cause,
  });
}

/** Maps whatever a tRPC call threw to a `MemoryToolError`. */
export function toMemoryToolError(error: unknown): MemoryToolError {
  if (error instanceof MemoryToolError) return error;
  if (error instanceof TRPCClientError) {
    const data = (error.data ?? undefined) as
      { code?: string; httpStatus?: number; reason?: string; currentVersion?: number } | undefined;
    if (data?.code) {
      return new MemoryToolError({
        reason: (data.reason as MemoryToolReason | undefined) ?? 'unknown',
        code: data.code,
        message: error.message,
        httpStatus: data.httpStatus,
        currentVersion: typeof data.currentVersion === 'number' ? data.currentVersion : undefined,
        retryable: RETRYABLE_CODES.has(data.code),
        cause: error,
      });
    }
    // No tRPC error shape: either no response at all, or one that was not tRPC JSON.
    const response = (error.meta as { response?: { status?: number } } | undefined)?.response;
    if (isTimeout(error.cause) || isTimeout(error)) return timedOut(error);
    if (response?.status !== undefined) {
      return new MemoryToolError({
        reason: 'unknown',
        code: 'NETWORK_ERROR',
        httpStatus: response.status,
        message: `the API answered HTTP ${response.status} without a tRPC error body`,
        retryable: response.status >= 500,
        cause: error,
      });
    }
    return new MemoryToolError({
      reason: 'network',
      code: 'NETWORK_ERROR',
      message: `the API could not be reached: ${error.message}`,
      retryable: true,
      cause: error,
    });
  }
  if (isTimeout(error)) return timedOut(error);
  const message = error instanceof Error ? error.message : String(error);
  return new MemoryToolError({ reason: 'unknown', code: 'INTERNAL_SERVER_ERROR', message, cause: error });
}

/** A tool's arguments refused before any call, as the API would refuse them (BAD_REQUEST `invalid_input`). */
export function invalidInput(
  tool: string,
  issues: { path: PropertyKey[]; message: string }[],
): MemoryToolError {
  const detail = issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`)
    .join('; ');
  return new MemoryToolError({
    reason: 'invalid_input',
    code: 'BAD_REQUEST',
    httpStatus: 400,
    message: `${tool}: ${detail}`,
  });
}
