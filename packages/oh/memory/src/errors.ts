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
  unavailable: 'the memory database cannot be reached; try again',
};

/**
 * Codes of a connection that could not be made or broke mid-request, as Node (`connect
 * ECONNREFUSED`) and undici, the engine of `fetch`, put them on the error or its cause.
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** @libsql/client's codes for a broken transport of `ws:`/`wss:` URLs (Hrana over WebSocket). */
const TRANSPORT_CODES = new Set(['HRANA_WEBSOCKET_ERROR', 'HRANA_CLOSED_ERROR']);

/** What a server, or the proxy in front of it, answers while it cannot serve. */
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);

/**
 * Is this the driver failing to reach a libSQL server (down, restarting, or gone mid-request), as
 * opposed to the database refusing something? Measured on @libsql/client 0.18 against a sqld
 * killed with SIGKILL (errors.test.ts does it again):
 *
 * - `http:` URL, server down: `TypeError: fetch failed`, cause `connect ECONNREFUSED`;
 * - `http:` URL, server killed mid-request: `TypeError: fetch failed`, cause undici's
 *   `SocketError: other side closed` (`UND_ERR_SOCKET`);
 * - `ws:` URL: a `LibsqlError` `HRANA_WEBSOCKET_ERROR` ("WebSocket was closed with code 1006");
 * - a proxy in front of the server (Turso): a `LibsqlError` `SERVER_ERROR` whose cause carries
 *   HTTP status 502, 503 or 504.
 */
export function isUnreachable(error: unknown): boolean {
  // The driver wraps (LibsqlError over hrana's error, fetch's TypeError over undici's): a few
  // levels of `cause` cover every wrapping seen.
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++, e = e.cause) {
    const { code, status } = e as { code?: unknown; status?: unknown };
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || TRANSPORT_CODES.has(code))) return true;
    if (typeof status === 'number' && UNAVAILABLE_STATUSES.has(status)) return true;
    // undici's fetch rejects with exactly this for every network-level failure, whatever the cause.
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  }
  return false;
}

/**
 * Is this a database too busy to take the call: SQLite's lock held past the busy timeout
 * (`SQLITE_BUSY`, `SQLITE_LOCKED`, from a file or from a server), or a server that sheds load with
 * HTTP 429 (sqld does when its connections stay taken; a hosted server when a rate is exceeded)?
 */
function isBusy(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: unknown };
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  // @libsql/client: a LibsqlError SERVER_ERROR whose cause (hrana's HttpServerError) has the status.
  return code === 'SERVER_ERROR' && (cause as { status?: unknown } | undefined)?.status === 429;
}

/**
 * Either of the above: a call that can be sent again as it is, later. For callers that use a
 * libSQL client of their own (the API's application database) and want the store's judgement.
 */
export function isUnavailable(error: unknown): boolean {
  return isUnreachable(error) || isBusy(error);
}

/**
 * Turns anything thrown inside the package into a `MemoryError`. Known trigger reasons keep their
 * reason; a server that cannot be reached and a database that stays busy are `unavailable` (send
 * the same call again); other driver and SQL errors become
 * `integrity` with a neutral message (the raw error stays in `cause`, never in the message a
 * person or an agent sees).
 */
export function toMemoryError(error: unknown, context?: string): MemoryError {
  if (error instanceof MemoryError) return error;
  const raised = raisedReason(error);
  if (raised) {
    return new MemoryError(raised.reason, raised.detail ?? DEFAULT_MESSAGES[raised.reason], { cause: error });
  }
  if (isUnreachable(error)) {
    // A write in flight may have been applied before the connection broke: say so, and how to
    // find out (the same requestId is answered from the log, never applied twice).
    return new MemoryError(
      'unavailable',
      `the memory database cannot be reached${context ? ` during ${context}` : ''}; try again ` +
        '(a remember sent again with the same requestId is applied at most once)',
      { cause: error },
    );
  }
  if (isBusy(error)) {
    // Another writer held the lock past the busy timeout (a file's, or a server's own), or the
    // server shed the request: nothing was written, and the same call can be sent again as it is.
    return new MemoryError(
      'unavailable',
      `the memory database stayed busy${context ? ` during ${context}` : ''}; try again`,
      { cause: error },
    );
  }
  return new MemoryError('integrity', `the memory database failed${context ? ` during ${context}` : ''}`, {
    cause: error,
  });
}

function messageOf(error: unknown): string {
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
