/**
 * The one error class of @oh/memory (SPEC §9). Every failure that leaves the package is a
 * `MemoryError` with a stable `reason`; raw SQL errors are mapped here and never cross the
 * package boundary (they ride along as `cause` for logs).
 */
import { ERROR_REASONS } from './types.ts';
import type { ErrorReason } from './types.ts';

export class MemoryError extends Error {
  override readonly name = 'MemoryError';
  /** Machine-readable, stable: the API maps it to a tRPC code and puts it in `data.reason`. */
  readonly reason: ErrorReason;
  /** Set with `stale_version`: the version the caller has to read again. */
  readonly currentVersion?: number;

  constructor(
    reason: ErrorReason,
    message: string,
    options: { currentVersion?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.currentVersion !== undefined) this.currentVersion = options.currentVersion;
  }
}

/**
 * Type guard for callers that only have `unknown` in a catch block.
 *
 * @example
 * try { await store.remember(ctx, input) } catch (e) { if (isMemoryError(e) && e.reason === 'stale_version') … }
 */
export function isMemoryError(error: unknown): error is MemoryError {
  return error instanceof MemoryError;
}

const REASONS = new Set<string>(ERROR_REASONS);

/**
 * Triggers and constraints raise `sponge:<reason>` or `sponge:<reason>:<detail>`; the driver
 * prefixes its own code ("SQLITE_CONSTRAINT: …" locally, "SQLite error: …" over HTTP), so the
 * marker is searched for anywhere in the message.
 */
const MARKER = /sponge:([a-z_]+)(?::([^\n]*))?/;

/** The reason (and optional detail) a trigger raised, or null when the error is not one of ours. */
export function raisedReason(error: unknown): { reason: ErrorReason; detail: string | null } | null {
  // The driver repeats the SQLite message on `cause`; read one message at a time so the detail
  // is not doubled.
  const messages =
    error instanceof Error
      ? [error.message, error.cause instanceof Error ? error.cause.message : '']
      : [String(error)];
  for (const message of messages) {
    const match = MARKER.exec(message);
    if (match && REASONS.has(match[1]!))
      return { reason: match[1] as ErrorReason, detail: match[2]?.trim() || null };
  }
  return null;
}

const DEFAULT_MESSAGES: Record<ErrorReason, string> = {
  stale_version: 'memory has moved on since basedOn; read it again before writing',
  name_exists: 'a note with that name already exists; use replace to change it',
  no_such_note: 'no such note',
  request_id_reused: 'this requestId was already used with a different payload',
  session_closed: 'the session is not open (expired, forgotten, purged or never opened); it accepts no calls',
  memory_off: 'working memory is off for this run',
  stale_digest: 'the record changed since that digest; read it again',
  explain_token_invalid: 'the explain token is tampered, expired or belongs to another session',
  invalid_input: 'the input is not valid',
  unauthenticated: 'no or bad credential',
  forbidden: 'this credential may not do that',
  not_found: 'not found',
  quota: 'the session holds at most 10,000 notes',
  integrity: 'the memory database refused the operation',
};

/**
 * Turns anything thrown inside the package into a `MemoryError`. Known trigger reasons keep their
 * reason; driver and SQL errors become `integrity` with a neutral message (the raw error stays
 * in `cause`, never in the message a person or an agent sees).
 */
export function toMemoryError(error: unknown, context?: string): MemoryError {
  if (error instanceof MemoryError) return error;
  const raised = raisedReason(error);
  if (raised) {
    return new MemoryError(raised.reason, raised.detail ?? DEFAULT_MESSAGES[raised.reason], { cause: error });
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new MemoryError(
      'integrity',
      `the memory database stayed busy${context ? ` during ${context}` : ''}; try again`,
      {
        cause: error,
      },
    );
  }
  return new MemoryError('integrity', `the memory database failed${context ? ` during ${context}` : ''}`, {
    cause: error,
  });
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) {
    // LibsqlError keeps the SQLite message on `cause` as well; look at both.
    const cause = error.cause instanceof Error ? ` ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** Is this a UNIQUE/PRIMARY KEY violation (as opposed to a trigger's RAISE)? */
export function isUniqueViolation(error: unknown): boolean {
  return /UNIQUE constraint failed|PRIMARY KEY/i.test(messageOf(error));
}
