import { randomUUID } from 'node:crypto';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { TRPCClient } from '@trpc/client';
import pRetry from 'p-retry';
import type { AppRouter } from '@sponge/api';
import { modelToolDescriptors, toolArgsSchemas } from '@sponge/contract';
import type { Change, ModelToolDescriptor, QueryRow, ToolArgs, ToolName } from '@sponge/contract';
import { MemoryToolError, invalidInput, isMemoryToolError, toMemoryToolError } from './errors.ts';
import { trpcUrl } from './api-url.ts';
import type { DroppedSource } from './library-tools.ts';
import type { MemoryToolReason } from './errors.ts';

type AgentClient = TRPCClient<AppRouter>['agent'];
type Output<K extends keyof AgentClient> = AgentClient[K] extends {
  query: (...a: never[]) => Promise<infer O>;
}
  ? O
  : AgentClient[K] extends { mutate: (...a: never[]) => Promise<infer O> }
    ? O
    : never;

export type LoadResult = Output<'load'>;
/**
 * The API's answer, and the notes whose `data.source` the runtime left out because the run never
 * read that quote (see `MemoryToolsOptions.checkSources`).
 */
export type RememberResult = Output<'remember'> & { sourcesDropped?: DroppedSource[] };
export type QueryAnswer = Output<'query'>;
export type ReadResult = Output<'read'>;
export type ExplainResult = Output<'explain'>;
export type RecallResult = Output<'recall'>;

/** What each tool answers, by name. */
interface ToolResults {
  remember: RememberResult;
  query: QueryAnswer;
  read: ReadResult;
  explain: ExplainResult;
  recall: RecallResult;
}

/** Input of the typed `remember`: the changes, and optionally a basis and request id of your own. */
interface RememberArgs {
  changes: Change[];
  /** Defaults to the last version this instance saw (loading first when it has seen none). */
  basedOn?: number;
  /** Defaults to a fresh id; kept across transport retries, replaced after a stale_version. */
  requestId?: string;
}

export type MemoryToolsEvent =
  | { type: 'call'; tool: ToolName | 'load'; attempt: number; requestId?: string }
  | { type: 'answer'; tool: ToolName | 'load'; attempt: number; ms: number; requestId?: string }
  | {
      type: 'retry';
      tool: ToolName | 'load';
      attempt: number;
      delayMs: number;
      reason: MemoryToolReason;
      requestId?: string;
    }
  | { type: 'error'; tool: ToolName | 'load'; error: MemoryToolError; requestId?: string }
  | { type: 'stale'; basedOn: number; currentVersion: number; moved: QueryRow[] };

export interface MemoryToolsOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000` (`/trpc` is added when missing). */
  url: string;
  /** The run token from `runtime.claim` (the hosted runtime's key only), sent as `Authorization: Bearer <runToken>`. */
  runToken: string;
  /** A fetch to use instead of the global one (proxies, tests that drop responses). */
  fetch?: typeof globalThis.fetch;
  /** Per attempt, default 10,000 ms. */
  timeoutMs?: number;
  /** Extra attempts after a timeout, a dropped connection or a 5xx, default 3. */
  retries?: number;
  /**
   * Extra attempts while the API answers `unavailable` (503: its database cannot be reached, e.g.
   * a libSQL server restarting), default 8: with the default backoff about 10–20 s of waiting,
   * long enough to ride out a server restart. Counted from the call's first attempt, like `retries`.
   */
  unavailableRetries?: number;
  /** First backoff delay, doubled per retry with jitter, default 200 ms, at most `maxBackoffMs`. */
  backoffMs?: number;
  /** Default 5,000 ms. */
  maxBackoffMs?: number;
  /** How many times a remember is re-based after stale_version before the error surfaces, default 3. */
  staleAttempts?: number;
  /** Request id generator; the default is `r-<uuid>`. Ids must match `^[A-Za-z0-9._:-]{1,128}$`. */
  requestId?: () => string;
  /**
   * Checks the `data.source` of the changes before a remember is sent (the runtime passes its
   * library tools' `checkSources`): a source it returns as dropped is left out of the note, and
   * the answer lists it in `sourcesDropped`.
   */
  checkSources?: (changes: readonly Change[]) => { changes: Change[]; dropped: DroppedSource[] };
  log?: (event: MemoryToolsEvent) => void;
}

interface MemoryToolsState {
  /** The session from the last load; null before the first. */
  session: LoadResult['session'] | null;
  /** The newest memory version seen (load, remember results, query answers); null before any. */
  version: number | null;
  preload: LoadResult['preload'] | null;
  /** The tool list the server gave at load (the API's own view, with basedOn and requestId). */
  serverTools: LoadResult['tools'] | null;
  /** The latest query answer's id; explain without an answerId uses it. */
  lastAnswerId: string | null;
  /** The notes that moved under the last stale remember (changed_since rows, all pages). */
  lastMoved: QueryRow[];
  /** Set once the server said the session is closed or memory is off: every later call fails too. */
  closed: 'session_closed' | 'memory_off' | null;
}

export interface MemoryTools {
  /** The five tools as descriptors to give a model. */
  tools: ModelToolDescriptor[];
  /**
   * Runs a tool call a model made; validates `args` first, throws `MemoryToolError`. Typed for a
   * literal tool name; a name only known at run time (a model's choice) takes and gives `unknown`.
   */
  execute<N extends string>(
    name: N,
    args: N extends ToolName ? ToolArgs[N] : unknown,
  ): Promise<N extends ToolName ? ToolResults[N] : unknown>;
  /** `agent.load`: the session, the server's tool list and the preload; sets the version. */
  load(): Promise<LoadResult>;
  readonly state: Readonly<MemoryToolsState>;
  remember(args: RememberArgs): Promise<RememberResult>;
  query(input: ToolArgs['query']): Promise<QueryAnswer>;
  read(input: ToolArgs['read']): Promise<ReadResult>;
  /** The raw API call: a token from an answer and a row. `execute('explain', …)` also takes an answerId. */
  explain(input: { token: string; row: number }): Promise<ExplainResult>;
  recall(input: ToolArgs['recall']): Promise<RecallResult>;
  /** Every note changed after `sinceVersion` (all pages), and the version the answer was taken at. */
  changedSince(sinceVersion: number): Promise<{ version: number; rows: QueryRow[] }>;
}

const MAX_ANSWERS_KEPT = 64;
const MAX_PAGES = 200;

/**
 * The five working-memory tools for one run, over the API's tRPC endpoint.
 *
 * It tracks the memory version, makes request ids, sends a timed-out call again with the same
 * request id (so a retried remember is answered from the log, never written twice), and after a
 * `stale_version` re-reads what changed (`changed_since`) and re-bases the write — unless a note
 * it would replace or remove was changed by someone else meanwhile, which it reports instead of
 * silently overwriting.
 *
 * @example
 * const memory = createMemoryTools({ url: 'http://127.0.0.1:3000', runToken });
 * const { preload } = await memory.load();
 * const llmTools = memory.tools; // give these to the model
 * const answer = await memory.execute('remember', {
 *   changes: [{ op: 'add', name: 'lead:reef-survey-2016', text: 'methods section missing' }],
 * });
 */
export function createMemoryTools(options: MemoryToolsOptions): MemoryTools {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = options.retries ?? 3;
  const unavailableRetries = options.unavailableRetries ?? 8;
  const backoffMs = options.backoffMs ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 5_000;
  const staleAttempts = options.staleAttempts ?? 3;
  const newRequestId = options.requestId ?? (() => `r-${randomUUID()}`);
  const log = options.log ?? (() => {});

  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: trpcUrl(options.url),
        headers: { authorization: `Bearer ${options.runToken}` },
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
  const agent = client.agent;

  const state: MemoryToolsState = {
    session: null,
    version: null,
    preload: null,
    serverTools: null,
    lastAnswerId: null,
    lastMoved: [],
    closed: null,
  };
  const tokens = new Map<string, string>();

  // Versions only rise within a session, so an older answer (a later page) never lowers it.
  const seeVersion = (v: number) => {
    if (state.version === null || v > state.version) state.version = v;
  };

  // A database that cannot be reached is given longer than a lost packet: a server restart takes
  // seconds. Whatever the failure, `retriesConsumed` counts every retry of the call so far.
  const retryFollows = (error: MemoryToolError, retriesConsumed: number) =>
    error.retryable && retriesConsumed < (error.reason === 'unavailable' ? unavailableRetries : retries);

  // Every attempt of one call sends the same input, so a remember keeps its request id across
  // retries (an `unavailable` one included: the write may have landed before the connection
  // broke) and a lost answer is replayed by the server, never applied twice.
  function call<T>(
    tool: ToolName | 'load',
    send: (signal: AbortSignal) => Promise<T>,
    requestId?: string,
  ): Promise<T> {
    return pRetry(
      async (attemptNumber) => {
        const attempt = attemptNumber - 1;
        const started = performance.now();
        log({ type: 'call', tool, attempt, requestId });
        try {
          const out = await send(AbortSignal.timeout(timeoutMs));
          log({ type: 'answer', tool, attempt, ms: Math.round(performance.now() - started), requestId });
          return out;
        } catch (e) {
          const error = toMemoryToolError(e);
          if (error.reason === 'session_closed' || error.reason === 'memory_off') state.closed = error.reason;
          throw error;
        }
      },
      {
        retries: Math.max(retries, unavailableRetries),
        // Jitter over a doubling ceiling: retry n waits between half of backoffMs·2ⁿ and all of
        // it (100–200, 200–400, 400–800 ms by default), at most maxBackoffMs.
        minTimeout: backoffMs / 2,
        factor: 2,
        randomize: true,
        maxTimeout: maxBackoffMs,
        shouldRetry: ({ error, retriesConsumed }) =>
          isMemoryToolError(error) && retryFollows(error, retriesConsumed),
        onFailedAttempt: ({ error, attemptNumber, retriesConsumed, retryDelay }) => {
          const failed = toMemoryToolError(error);
          if (retryFollows(failed, retriesConsumed))
            log({
              type: 'retry',
              tool,
              attempt: attemptNumber - 1,
              delayMs: retryDelay,
              reason: failed.reason,
              requestId,
            });
          else log({ type: 'error', tool, error: failed, requestId });
        },
      },
    );
  }

  async function load(): Promise<LoadResult> {
    const result = await call('load', (signal) => agent.load.query(undefined, { signal }));
    state.session = result.session;
    state.preload = result.preload;
    state.serverTools = result.tools;
    state.closed = null;
    seeVersion(result.session.version);
    return result;
  }

  async function query(input: ToolArgs['query']): Promise<QueryAnswer> {
    const answer = await call('query', (signal) => agent.query.query(input, { signal }));
    seeVersion(answer.version);
    tokens.set(answer.answerId, answer.explainToken);
    if (tokens.size > MAX_ANSWERS_KEPT) tokens.delete(tokens.keys().next().value as string);
    state.lastAnswerId = answer.answerId;
    return answer;
  }

  async function changedSince(sinceVersion: number): Promise<{ version: number; rows: QueryRow[] }> {
    const rows: QueryRow[] = [];
    let version: number | null = null;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await query({
        question: 'changed_since',
        sinceVersion,
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      // Pages stay at the first page's version: that is what the rows describe.
      version ??= answer.version;
      rows.push(...answer.rows);
      if (!answer.nextCursor) break;
      cursor = answer.nextCursor;
    }
    return { version: version ?? sinceVersion, rows };
  }

  // A replace or remove of a note someone else wrote after our basis would overwrite a change we
  // never saw: refuse it here. Every other clash (an add of a name now taken, a replace of a note
  // now removed, a link to a removed note) the server refuses with its own reason on the retry.
  function overwrites(changes: Change[], moved: QueryRow[]): QueryRow[] {
    const byName = new Map(moved.filter((r) => r.source === 'note').map((r) => [r.name, r]));
    return changes.flatMap((c) => {
      const row = byName.get(c.name);
      return row && c.op !== 'add' && row.digest !== null ? [row] : [];
    });
  }

  let writes: Promise<unknown> = Promise.resolve();
  // One remember at a time per instance: two concurrent ones would only race each other stale.
  function serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = writes.then(fn, fn);
    writes = run.catch(() => undefined);
    return run;
  }

  function remember(args: RememberArgs): Promise<RememberResult> {
    return serialized(async () => {
      const checked = options.checkSources?.(args.changes);
      const changes = checked?.changes ?? args.changes;
      const dropped = checked?.dropped ?? [];
      let basedOn = args.basedOn ?? state.version ?? (await load()).session.version;
      let requestId = args.requestId ?? newRequestId();
      for (let attempt = 0; ; attempt++) {
        try {
          const input = { basedOn, requestId, changes };
          const result = await call(
            'remember',
            (signal) => agent.remember.mutate(input, { signal }),
            requestId,
          );
          seeVersion(result.version);
          return dropped.length > 0 ? { ...result, sourcesDropped: dropped } : result;
        } catch (e) {
          if (!isMemoryToolError(e, 'stale_version') || attempt >= staleAttempts) throw e;
          if (e.currentVersion !== undefined) seeVersion(e.currentVersion);
          // A basis ahead of the server (a caller's own basedOn) has nothing to catch up on.
          const since = Math.min(basedOn, e.currentVersion ?? basedOn);
          const moved = await changedSince(since);
          state.lastMoved = moved.rows;
          log({ type: 'stale', basedOn, currentVersion: moved.version, moved: moved.rows });
          const clashes = overwrites(changes, moved.rows);
          if (clashes.length > 0) {
            throw new MemoryToolError({
              reason: 'stale_version',
              code: 'CONFLICT',
              httpStatus: 409,
              currentVersion: moved.version,
              moved: clashes,
              message:
                `${clashes.map((r) => r.name).join(', ')} changed after version ${since} (memory is now at version ${moved.version}); ` +
                'read it again before changing it',
              cause: e,
            });
          }
          basedOn = moved.version;
          // A new basis is a new payload: reusing the id would be refused as request_id_reused.
          requestId = newRequestId();
        }
      }
    });
  }

  const read = (input: ToolArgs['read']) => call('read', (signal) => agent.read.query(input, { signal }));
  const explain = (input: { token: string; row: number }) =>
    call('explain', (signal) => agent.explain.query(input, { signal }));
  const recall = (input: ToolArgs['recall']) =>
    call('recall', (signal) => agent.recall.query(input, { signal }));

  async function execute(name: string, args: unknown): Promise<unknown> {
    if (!Object.hasOwn(toolArgsSchemas, name)) {
      throw new MemoryToolError({
        reason: 'invalid_input',
        code: 'BAD_REQUEST',
        httpStatus: 400,
        message: `no tool named ${name}`,
      });
    }
    const tool = name as ToolName;
    const parsed = toolArgsSchemas[tool].safeParse(args ?? {});
    if (!parsed.success) throw invalidInput(tool, parsed.error.issues);
    switch (tool) {
      case 'remember':
        return remember({ changes: (parsed.data as ToolArgs['remember']).changes });
      case 'query':
        return query(parsed.data as ToolArgs['query']);
      case 'read':
        return read(parsed.data as ToolArgs['read']);
      case 'explain': {
        const { row, answerId, token } = parsed.data as ToolArgs['explain'];
        const resolved = token ?? tokens.get(answerId ?? state.lastAnswerId ?? '');
        if (resolved === undefined) {
          throw new MemoryToolError({
            reason: 'explain_token_invalid',
            code: 'BAD_REQUEST',
            httpStatus: 400,
            message: answerId
              ? `no answer ${answerId} was seen by this runtime; query again`
              : 'explain needs a query answer first',
          });
        }
        return explain({ token: resolved, row });
      }
      case 'recall':
        return recall(parsed.data as ToolArgs['recall']);
    }
  }

  return {
    tools: modelToolDescriptors(),
    execute: execute as MemoryTools['execute'],
    load,
    state,
    remember,
    query,
    read,
    explain,
    recall,
    changedSince,
  };
}
