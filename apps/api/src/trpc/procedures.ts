/**
 * tRPC init, the procedure kinds and the cross-cutting middleware.
 *
 * Who may call what:
 * - `publicProcedure`        anyone (health, demo login, `auth.me`).
 * - `ownerProcedure`         a person's login token only. Working memory (`memory.*`), the
 *                            transcript (its cards name notes), sharing, publishing, removal,
 *                            settings and API-key management live here.
 * - `ownerOrApiKeyProcedure` a login token or the owner's API key. An API key is an owner's own
 *                            agent using the public API: it may read the library and list its
 *                            owner's runs, nothing more. It never accepts a run, and no owner
 *                            credential ever receives a run token: only the hosted runtime does.
 * - `agentProcedure(check)`  a run token only, and the agent router's checks of its run.
 * - `runtimeProcedure`       the hosted runtime's key only (`runtime.*`): it obtains run tokens.
 *
 * Any other valid credential gets FORBIDDEN (reason `forbidden`); none, or an unknown, expired or
 * malformed one, gets UNAUTHORIZED (reason `unauthenticated`).
 */
import { getTRPCErrorFromUnknown, initTRPC } from '@trpc/server';
import type { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { SPONGE_LIMITS, inputBoundsProblem } from '@sponge/contract';
import type { Caller, Context } from './context.ts';
import { ApiError, defaultReason, forbidden, invalidInput, toApiError, unauthenticated } from '../errors.ts';
import type { ApiReason } from '../errors.ts';
import { MAX_BODY_LABEL, UPLOAD_LIMIT_LABEL } from '../http/limits.ts';
import { liveNotifier, runKey } from '../runs/notifier.ts';

/** One validation issue, flattened to a dotted path (`changes.3.name`) and a message. */
interface InputIssue {
  path: string;
  message: string;
}

/**
 * What rides in `error.data` beside tRPC's `code`, `httpStatus` and `path`. Exported though no
 * file imports it by name: the router's declared type carries it, and the build must name it
 * (TS4023); `@public` tells the unused-code check (knip) so.
 *
 * @public
 */
export interface ErrorDataExtras {
  reason: ApiReason;
  currentVersion?: number;
  retryAfterSeconds?: number;
  leaseExpiresAt?: string;
  existingId?: string;
  issues?: InputIssue[];
}

interface IssueLike {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/** Validation errors from zod (ZodError) or any Standard Schema (StandardSchemaV1Error). */
function inputIssues(cause: unknown): InputIssue[] | undefined {
  if (!(cause instanceof Error)) return undefined;
  const issues = (cause as { issues?: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  return (issues as IssueLike[]).map((i) => ({
    path: (i.path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p)).join('.'),
    message: i.message,
  }));
}

/** The machine-readable reason of any error a procedure ends with. */
function reasonOf(error: TRPCError): ApiReason {
  if (error instanceof ApiError) return error.reason;
  return inputIssues(error.cause) ? 'invalid_input' : defaultReason(error.code);
}

function describeIssues(issues: InputIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `Invalid input: ${shown.join('; ')}${more}`;
}

const t = initTRPC.context<Context>().create({
  // Plain JSON on the wire (SPEC §9): agent runtimes in any language call this API.
  isDev: false,
  /**
   * `chat.events` (SPEC §7c). A comment every 15 s keeps proxies and the client from taking a
   * quiet stream for a dead one; a client that hears nothing for 40 s reconnects (resuming from
   * its last event). A stream ends after 5 minutes and the client reconnects at once: the
   * credential is looked up again then, so a signed-out session stops receiving within that.
   */
  sse: {
    ping: { enabled: true, intervalMs: 15_000 },
    client: { reconnectAfterInactivityMs: 40_000 },
    maxDurationMs: 5 * 60_000,
  },
  errorFormatter({ shape, error, path }) {
    const issues = inputIssues(error.cause);
    const api = error instanceof ApiError ? error : undefined;
    let reason = reasonOf(error);
    let message = shape.message;
    if (issues) message = describeIssues(issues);
    else if (error.code === 'PAYLOAD_TOO_LARGE' && !api)
      message =
        path === 'documents.upload'
          ? `The upload is larger than the ${UPLOAD_LIMIT_LABEL} limit.`
          : path === 'documents.import'
            ? `The import is larger than the ${SPONGE_LIMITS.importBytes / 1024 / 1024} MiB limit.`
            : `The request body is larger than the ${MAX_BODY_LABEL} limit.`;
    else if (error.code === 'INTERNAL_SERVER_ERROR' && api?.reason !== 'integrity') {
      // Never leak SQL or stack details; the log has them.
      reason = 'internal';
      message = 'Internal error; the server log has the details.';
    }
    const data: typeof shape.data & ErrorDataExtras = {
      ...shape.data,
      reason,
      ...(api?.currentVersion !== undefined ? { currentVersion: api.currentVersion } : {}),
      ...(api?.retryAfterSeconds !== undefined ? { retryAfterSeconds: api.retryAfterSeconds } : {}),
      ...(api?.leaseExpiresAt !== undefined ? { leaseExpiresAt: api.leaseExpiresAt } : {}),
      ...(api?.existingId !== undefined ? { existingId: api.existingId } : {}),
      ...(issues ? { issues } : {}),
    };
    delete (data as { stack?: string }).stack;
    return { ...shape, message, data };
  },
});

/** The caller of an agent tool. */
export type AgentCaller = Extract<Caller, { kind: 'agent' }>;

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Called again and again by the hosted runtime's long poll: a line each at `info` would drown the
 * log, so their successful calls are logged at `debug` (refusals still at `info`).
 */
const QUIET_PROCEDURES: ReadonlySet<string> = new Set(['runtime.pending']);

/**
 * Bounds every input's depth and size (SPEC §6c) before anything looks into it (a 10,000-deep
 * value once reached a recursive JSON.stringify in a codec and answered 500). Not the upload's
 * multipart form: flat parts under the body limit, read only once the caller is known. Input that
 * is not JSON is left to the procedure, which refuses it (PARSE_ERROR) if it takes input.
 */
async function checkInputBounds(path: string, getRawInput: () => Promise<unknown>): Promise<void> {
  if (path === 'documents.upload' || path === 'documents.import') return;
  const problem = inputBoundsProblem(await getRawInput().catch(() => undefined));
  if (problem) throw invalidInput(problem);
}

type CallInfo = { ctx: Context; path: string; type: string; getRawInput: () => Promise<unknown> };

/**
 * Every call's outer work around `call` (a caller check, if any, and the rest): bounds, SPEC §9 codes,
 * one log line. One tRPC level, not one each: each copies the call's options and context (issue 42).
 */
async function around<R extends { ok: boolean; error?: TRPCError }>(
  { ctx, path, type, getRawInput }: CallInfo,
  call: () => Promise<R>,
): Promise<R> {
  const started = performance.now();
  let error: TRPCError | null = null;
  try {
    await checkInputBounds(path, getRawInput);
    const result = await call();
    if (result.ok || !result.error) return result;
    return { ...result, error: (error = toApiError(result.error)) };
  } catch (cause) {
    throw (error = toApiError(getTRPCErrorFromUnknown(cause)));
  } finally {
    const line = {
      procedure: path,
      type,
      caller: ctx.caller.kind,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      outcome: (error ? error.code : 'OK') satisfies TRPC_ERROR_CODE_KEY | 'OK',
      ...(error ? { reason: reasonOf(error) } : {}),
    };
    if (error?.code === 'INTERNAL_SERVER_ERROR') {
      ctx.deps.log.error({ ...line, err: error.cause ?? error }, 'call failed');
    } else if (error?.code === 'SERVICE_UNAVAILABLE') {
      // A database down or busy: the operator needs the driver's own words (address, errno).
      ctx.deps.log.warn({ ...line, err: error.cause ?? error }, 'call failed: a database cannot serve');
    } else if (!error && QUIET_PROCEDURES.has(path)) {
      ctx.deps.log.debug(line, 'call');
    } else {
      ctx.deps.log.info(line, 'call');
    }
  }
}

/** Every procedure: logged, its input's shape bounded. */
const base = t.procedure.use((opts) => around(opts, () => opts.next()));

export const publicProcedure = base;

/** A person signed in with a login token (cookie or bearer). */
export const ownerProcedure = base.use(({ ctx, next }) => {
  const c = ctx.caller;
  if (c.kind === 'none') throw unauthenticated();
  if (c.kind !== 'user') {
    throw forbidden(
      c.kind === 'agent'
        ? 'A run token only opens the agent tools.'
        : c.kind === 'runtime'
          ? 'The runtime key only opens runtime.*.'
          : 'An API key cannot do this; sign in as the owner.',
    );
  }
  return next({ ctx: { ...ctx, user: c.user, caller: c } });
});

/** A person, or the owner's API key (read the library, list runs). */
export const ownerOrApiKeyProcedure = base.use(({ ctx, next }) => {
  const c = ctx.caller;
  if (c.kind === 'none') throw unauthenticated();
  if (c.kind === 'agent') throw forbidden('A run token only opens the agent tools.');
  if (c.kind === 'runtime') throw forbidden('The runtime key only opens runtime.*.');
  return next({ ctx: { ...ctx, user: c.user, caller: c } });
});

/** The hosted runtime, by RUNTIME_KEY (SPEC §7b): it claims and finishes runs, nothing else. */
export const runtimeProcedure = base.use(({ ctx, next }) => {
  const c = ctx.caller;
  if (c.kind === 'none')
    throw unauthenticated('Send the runtime key as Authorization: Bearer <RUNTIME_KEY>.');
  if (c.kind !== 'runtime') throw forbidden('runtime.* answers only the hosted runtime.');
  return next({ ctx: { ...ctx, caller: c } });
});

/**
 * A run's agent, by its run token, plus the router's own checks of that run (routers/agent.ts),
 * in the one level that also logs and bounds the call ({@link around}).
 */
export function agentProcedure<Extra extends object>(check: (caller: AgentCaller) => Extra) {
  return t.procedure.use((opts) => {
    const { ctx, path, next } = opts;
    return around(opts, async () => {
      const c = ctx.caller;
      if (c.kind === 'none') throw unauthenticated('Send the run token as Authorization: Bearer <runToken>.');
      if (c.kind !== 'agent')
        throw forbidden('The agent tools take a run token; user tokens and API keys never work here.');
      const result = await next({ ctx: { ...ctx, caller: c, run: c.run, ...check(c) } });
      // What the call committed (a reply, notes, a recall, a library card) reaches the run's
      // `chat.events` streams now rather than at their next re-read (runs/notifier.ts).
      if (result.ok && !AGENT_READS.has(path)) liveNotifier(ctx.deps.app).notify(runKey(c.run.id));
      return result;
    });
  });
}

/** Agent calls that commit nothing a transcript shows: no wake-up for the run's streams. */
const AGENT_READS: ReadonlySet<string> = new Set([
  'agent.load',
  'agent.query',
  'agent.read',
  'agent.explain',
  'agent.document',
  'agent.turns',
]);
