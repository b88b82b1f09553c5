/**
 * The hosted runtime's loop (SPEC §7b): find the runs waiting for an answer, claim each (a fresh
 * run token), read the run's document and conversation with that token, let a `TurnAgent`
 * answer through the memory tools, and post the reply.
 *
 * A turn is answered once. A claim revokes the token of whoever claimed the run before, so of two
 * runtimes racing for a turn only the last claimant can post; and after claiming, the runtime
 * reads the conversation again and answers only if the owner's message is still the newest (a
 * reply posted before the claim is seen there; one attempted after it is refused).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from '@sponge/api';
import { LIMITS } from '@sponge/contract';
import { toMemoryToolError } from '../errors.ts';
import { createMemoryTools } from '../memory-tools.ts';
import type { MemoryToolsOptions } from '../memory-tools.ts';
import type { TurnAgent, TurnInput } from './turn.ts';

export interface RuntimeOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000`. */
  apiUrl: string;
  /** RUNTIME_KEY: opens `runtime.*` and nothing else. */
  runtimeKey: string;
  agent: TurnAgent;
  /** Pause between two looks at `runtime.pending` when `start()`ed, default 1,000 ms. */
  pollMs?: number;
  /** A turn still unanswered after this long gets a reply saying so, default 120,000 ms. */
  turnTimeoutMs?: number;
  /** Runs answered at the same time, default 4. */
  concurrency?: number;
  /** Per call to `runtime.*` and the run's `agent.document/turns/say`, default 10,000 ms. */
  callTimeoutMs?: number;
  /** Extra options for each run's memory tools (timeouts, retries). */
  memory?: Omit<MemoryToolsOptions, 'url' | 'runToken' | 'fetch'>;
  /** A fetch to use instead of the global one (tests count the calls a turn costs). */
  fetch?: typeof globalThis.fetch;
  log?: (event: RuntimeEvent) => void;
}

export type RunOutcome =
  /** A reply was posted (and a staged run finished). `failure` says when the reply reports one. */
  | 'answered'
  /** Claimed, but the owner's message had been answered meanwhile: nothing posted. */
  | 'already-answered'
  /** Another runtime claimed the run after this one: its token was revoked, the reply refused. */
  | 'superseded'
  /** The runtime stopped mid-turn: nothing posted; the turn stays pending for the next runtime. */
  | 'interrupted'
  /** Earlier attempts failed: this one waits (`retryInMs`) instead of hammering the API. */
  | 'deferred'
  /** The run could not be answered (the API refused or did not answer); it is tried again later. */
  | 'failed';

export interface RunReport {
  runId: string;
  mode: 'chat' | 'staged';
  outcome: RunOutcome;
  ms: number;
  /** For `answered`: what failed inside the turn (the agent crashed, the time limit). */
  failure?: string;
  /** For `failed`: why. */
  error?: string;
  retryInMs?: number;
}

export interface RuntimeReport {
  /** How many runs `runtime.pending` listed. */
  pending: number;
  runs: RunReport[];
}

export type RuntimeEvent =
  | { type: 'run'; report: RunReport }
  | { type: 'poll-failed'; error: string; reason: string; retryInMs: number }
  | { type: 'started'; apiUrl: string; agent: string }
  | { type: 'stopped' };

export interface Runtime {
  /** Answers every pending run once and reports; throws when `runtime.pending` cannot be read. */
  runOnce(): Promise<RuntimeReport>;
  /** Polls until `stop()`: every `pollMs`, longer (up to 30 s) while the API does not answer. */
  start(): void;
  /** Stops polling; turns in progress end without a reply and stay pending. Resolves when idle. */
  stop(): Promise<void>;
}

/** A run failing again and again waits longer between attempts, up to this. */
const MAX_RUN_BACKOFF_MS = 60_000;
const MAX_POLL_BACKOFF_MS = 30_000;
const ERROR_CHARS = 500;

class TurnTimeout extends Error {
  override readonly name = 'TurnTimeout';
}

function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

function trpcUrl(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/trpc') ? path : `${path}/trpc`;
  return u.toString();
}

function clientFor(options: RuntimeOptions, token: string): TRPCClient<AppRouter> {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: trpcUrl(options.apiUrl),
        headers: { authorization: `Bearer ${token}` },
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

function describe(error: unknown): { reason: string; message: string } {
  const e = toMemoryToolError(error);
  return { reason: e.reason, message: e.message.slice(0, ERROR_CHARS) };
}

const duration = (ms: number) => (ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} s`);

/** What the reply says when the agent itself failed: the failure, in one plain sentence. */
function failureReply(agent: TurnAgent, failure: string): string {
  return `The ${agent.name} could not answer this turn: ${failure}. Ask again to retry.`;
}

/**
 * The hosted runtime over the API at `apiUrl`.
 *
 * @example
 * const runtime = createRuntime({ apiUrl, runtimeKey, agent: createScriptedAgent() });
 * const report = await runtime.runOnce(); // or runtime.start() … await runtime.stop()
 */
export function createRuntime(options: RuntimeOptions): Runtime {
  const pollMs = options.pollMs ?? 1_000;
  const turnTimeoutMs = options.turnTimeoutMs ?? 120_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const callTimeoutMs = options.callTimeoutMs ?? 10_000;
  const log = options.log ?? (() => {});
  const { agent } = options;
  const runtimeApi = clientFor(options, options.runtimeKey).runtime;
  const stopping = new AbortController();
  const callSignal = () => AbortSignal.any([stopping.signal, AbortSignal.timeout(callTimeoutMs)]);
  // A reply being posted is let through when the runtime stops: re-answering it would cost a turn.
  const postSignal = () => AbortSignal.timeout(callTimeoutMs);
  // Runs this runtime is answering now: an overlapping runOnce must not answer them a second time.
  const inFlight = new Set<string>();
  const backoff = new Map<string, { failures: number; notBefore: number }>();
  let loop: Promise<void> | null = null;

  /** The agent's reply, or null when the runtime stopped mid-turn. Never throws. */
  async function answerTurn(
    input: Omit<TurnInput, 'signal'>,
  ): Promise<{ reply: string; failure?: string } | null> {
    const turn = new AbortController();
    const timer = setTimeout(() => turn.abort(new TurnTimeout()), turnTimeoutMs);
    const signal = AbortSignal.any([turn.signal, stopping.signal]);
    // An agent that ignores its signal is not waited for: the reply goes out at the limit.
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(reasonOf(signal));
      if (signal.aborted) fail();
      signal.addEventListener('abort', fail, { once: true });
    });
    const answering = agent.answer({ ...input, signal });
    // Whichever loses the race settles later, unobserved.
    aborted.catch(() => {});
    answering.catch(() => {});
    try {
      return { reply: await Promise.race([answering, aborted]) };
    } catch (e) {
      if (stopping.signal.aborted) return null;
      const failure =
        e instanceof TurnTimeout
          ? `it ran out of time (the limit is ${duration(turnTimeoutMs)} per turn)`
          : `it failed (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`.slice(0, ERROR_CHARS);
      return { reply: failureReply(agent, failure), failure };
    } finally {
      clearTimeout(timer);
    }
  }

  async function answerRun(runId: string, pendingMode: 'chat' | 'staged'): Promise<RunReport> {
    const started = performance.now();
    const report = (outcome: RunOutcome, extra: Partial<RunReport> = {}): RunReport => ({
      runId,
      mode: pendingMode,
      outcome,
      ms: Math.round(performance.now() - started),
      ...extra,
    });
    let claimed;
    try {
      claimed = await runtimeApi.claim.mutate({ runId }, { signal: callSignal() });
    } catch (e) {
      if (stopping.signal.aborted) return report('interrupted');
      const { reason, message } = describe(e);
      // Finished or removed between the listing and the claim: nothing is waiting any more.
      if (reason === 'not_found') return report('already-answered');
      return report('failed', { error: `claim: ${message}` });
    }
    const mode = claimed.mode;
    const run = clientFor(options, claimed.runToken).agent;
    const tools = createMemoryTools({
      ...options.memory,
      url: options.apiUrl,
      runToken: claimed.runToken,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    try {
      const [document, turns] = await Promise.all([
        run.document.query(undefined, { signal: callSignal() }),
        run.turns.query(undefined, { signal: callSignal() }),
      ]);
      const last = turns.at(-1);
      const waiting = mode === 'chat' ? last?.role === 'you' : !turns.some((t) => t.role === 'agent');
      if (waiting) {
        const answered = await answerTurn({
          document,
          history: turns.map(({ role, text }) => ({ role, text })),
          tools,
        });
        if (answered === null) return report('interrupted', { mode });
        const text =
          answered.reply.trim() === '' ? failureReply(agent, 'it gave an empty reply') : answered.reply;
        // Not retried: a say whose answer was lost may have been posted, and a turn is answered once.
        await run.say.mutate({ text: text.slice(0, LIMITS.messageChars) }, { signal: postSignal() });
        if (mode === 'staged') await runtimeApi.finish.mutate({ runId }, { signal: postSignal() });
        return report('answered', { mode, ...(answered.failure ? { failure: answered.failure } : {}) });
      }
      // A staged step answered by a runtime that stopped before finishing it.
      if (mode === 'staged') await runtimeApi.finish.mutate({ runId }, { signal: postSignal() });
      return report('already-answered', { mode });
    } catch (e) {
      if (stopping.signal.aborted) return report('interrupted', { mode });
      const { reason, message } = describe(e);
      // Our token was revoked: another runtime claimed the run after us and answers it.
      if (reason === 'unauthenticated') return report('superseded', { mode });
      return report('failed', { mode, error: message });
    }
  }

  async function attempt(runId: string, mode: 'chat' | 'staged'): Promise<RunReport> {
    const wait = backoff.get(runId);
    const now = Date.now();
    if (wait && wait.notBefore > now) {
      return { runId, mode, outcome: 'deferred', ms: 0, retryInMs: wait.notBefore - now };
    }
    inFlight.add(runId);
    try {
      const report = await answerRun(runId, mode);
      if (report.outcome === 'failed') {
        const failures = (wait?.failures ?? 0) + 1;
        const delay = Math.min(MAX_RUN_BACKOFF_MS, pollMs * 2 ** failures);
        backoff.set(runId, { failures, notBefore: Date.now() + delay });
        report.retryInMs = delay;
      } else {
        backoff.delete(runId);
      }
      log({ type: 'run', report });
      return report;
    } finally {
      inFlight.delete(runId);
    }
  }

  async function runOnce(): Promise<RuntimeReport> {
    if (stopping.signal.aborted) throw new Error('the runtime has stopped');
    const pending = await runtimeApi.pending.query(undefined, { signal: callSignal() });
    const listed = new Set(pending.map((p) => p.runId));
    for (const runId of backoff.keys()) if (!listed.has(runId)) backoff.delete(runId);
    const queue = pending.filter((p) => !inFlight.has(p.runId));
    const runs: RunReport[] = [];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        runs.push(await attempt(next.runId, next.mode));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    return { pending: pending.length, runs };
  }

  async function poll(): Promise<void> {
    log({ type: 'started', apiUrl: options.apiUrl, agent: agent.name });
    let failures = 0;
    while (!stopping.signal.aborted) {
      let delay = pollMs;
      try {
        await runOnce();
        failures = 0;
      } catch (e) {
        if (stopping.signal.aborted) break;
        failures++;
        // Not up yet (or restarting): wait longer each time, so a long outage costs little.
        delay = Math.min(MAX_POLL_BACKOFF_MS, pollMs * 2 ** Math.min(failures, 10));
        const { reason, message } = describe(e);
        log({ type: 'poll-failed', reason, error: message, retryInMs: delay });
      }
      await sleep(delay, undefined, { signal: stopping.signal }).catch(() => {});
    }
    log({ type: 'stopped' });
  }

  return {
    runOnce,
    start() {
      if (stopping.signal.aborted) throw new Error('the runtime has stopped');
      loop ??= poll();
    },
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
