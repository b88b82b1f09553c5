/**
 * The hosted runtime's loop (SPEC §7b): find the runs waiting for an answer, claim each (a fresh
 * run token), read what the run's document is and the conversation with that token, let a
 * `TurnAgent` answer through the memory and library tools, and post the reply with its citations.
 *
 * A turn reaches the agent once. A claim holds the run under a lease (SPEC §7b): while it holds,
 * the run is not pending and another runtime's claim is refused (`claimed`), so two runtimes never
 * work the same turn. A claim after the lease lapsed revokes the previous token, so a runtime that
 * stalled past its lease can no longer post. After claiming, the runtime reads the conversation
 * again and answers only if the owner's message is still the newest.
 *
 * Runs are answered concurrently in a pool of `concurrency` places; the poll fills free places and
 * never waits for the turns in progress, so one slow turn does not delay another run's question.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { TRPCClient } from '@trpc/client';
import type { AppRouter } from '@sponge/api';
import { CITATIONS_MAX, SPONGE_LIMITS } from '@sponge/contract';
import type { SaidCitation } from '@sponge/contract';
import { trpcUrl } from '../api-url.ts';
import { toMemoryToolError } from '../errors.ts';
import { createLibraryTools } from '../library-tools.ts';
import { createMemoryTools } from '../memory-tools.ts';
import type { MemoryToolsOptions } from '../memory-tools.ts';
import type { TurnAgent, TurnFailure, TurnInput } from './turn.ts';

export interface RuntimeOptions {
  /** The API's base URL, e.g. `http://127.0.0.1:3000`, with or without `/trpc`. */
  apiUrl: string;
  /** RUNTIME_KEY: opens `runtime.*` and nothing else. */
  runtimeKey: string;
  agent: TurnAgent;
  /**
   * The first wait after `runtime.pending` or a run failed to reach the API, default 1,000 ms;
   * doubled at each failure after it.
   */
  pollMs?: number;
  /**
   * When `start()`ed, how long one long poll of `runtime.pending` waits for work before it is
   * asked again, default 25,000 ms (the API's most): a question is picked up as soon as it is
   * asked, not at the next look.
   */
  waitMs?: number;
  /** A turn still unanswered after this long gets a reply saying so, default 120,000 ms. */
  turnTimeoutMs?: number;
  /** Runs answered at the same time (the pool's places), default 4. */
  concurrency?: number;
  /** Per call to `runtime.*` and the run's `agent.document/turns/say`, default 10,000 ms. */
  callTimeoutMs?: number;
  /** Extra options for each run's memory tools (timeouts, retries). */
  memory?: Omit<MemoryToolsOptions, 'url' | 'runToken' | 'fetch'>;
  /** A fetch to use instead of the global one (tests count the calls a turn costs). */
  fetch?: typeof globalThis.fetch;
  log?: (event: RuntimeEvent) => void;
}

type RunOutcome =
  /** A reply was posted (and a staged run finished); `limit` says when it names the turn's time limit. */
  | 'answered'
  /** Claimed, but the owner's message had been answered meanwhile: nothing posted. */
  | 'already-answered'
  /** Another runtime's lease holds the run: it answers it, this runtime leaves it alone. */
  | 'claimed-elsewhere'
  /** This runtime's lease lapsed and another runtime took the run over: its reply was left to that one. */
  | 'superseded'
  /** The runtime stopped mid-turn: nothing posted; the turn is pending again for the next runtime. */
  | 'interrupted'
  /** Earlier attempts failed: this one waits (`retryInMs`) instead of hammering the API. */
  | 'deferred'
  /**
   * With `failure`: the turn failed (the model endpoint, an unusable answer, the agent crashed) and
   * the reply posted says so. With `error`: the API refused or did not answer; tried again later.
   */
  | 'failed';

export interface RunReport {
  runId: string;
  mode: 'chat' | 'staged';
  outcome: RunOutcome;
  ms: number;
  /** For a `failed` turn: what failed; `message` is the reply posted, which names it. */
  failure?: TurnFailure & { message: string };
  /** For `answered`: the runtime's own time limit stopped the turn (an answer, not a failure). */
  limit?: string;
  /** For a `failed` run the API did not let this runtime answer: why. */
  error?: string;
  retryInMs?: number;
}

interface RuntimeReport {
  /** How many runs `runtime.pending` listed. */
  pending: number;
  runs: RunReport[];
}

export type RuntimeEvent =
  | { type: 'run'; report: RunReport }
  /** `repeated`: the failure before it had the same reason (the log says it once). */
  | { type: 'poll-failed'; error: string; reason: string; retryInMs: number; repeated: boolean }
  /** `runtime.pending` answers again after `failures` failed attempts. */
  | { type: 'poll-recovered'; failures: number }
  | { type: 'started'; apiUrl: string; agent: string; concurrency: number }
  | { type: 'stopped' };

export interface Runtime {
  /** Answers every pending run once (`concurrency` at a time) and reports; throws when `runtime.pending` cannot be read. */
  runOnce(): Promise<RuntimeReport>;
  /**
   * Works until `stop()`: a long poll of `runtime.pending` answers as soon as a run is waiting
   * (or after `waitMs`), and the runtime starts it in a free place of a pool of `concurrency`,
   * without waiting for the turns already running, so one slow turn never delays another run's
   * question. With no free place it waits for one, not for the API. While the API does not
   * answer it tries again after `pollMs`, doubled each time up to 30 s.
   */
  start(): void;
  /** Stops polling; turns in progress end without a reply and stay pending. Resolves when idle. */
  stop(): Promise<void>;
}

/** A run failing again and again waits longer between attempts, up to this. */
const MAX_RUN_BACKOFF_MS = 60_000;
const MAX_POLL_BACKOFF_MS = 30_000;
/** The API's longest long poll of `runtime.pending` (its `waitSeconds` is at most 25). */
const MAX_WAIT_MS = 25_000;
/** A long poll shorter than this is not worth a request: a run backing off waits this much more. */
const MIN_WAIT_MS = 50;
/** Run ids a long poll passes over, at most (the API's limit). */
const MAX_IGNORED = 100;
const ERROR_CHARS = 500;

class TurnTimeout extends Error {
  override readonly name = 'TurnTimeout';
}

function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
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

/** How a turn ended: a reply to post, or nothing because the runtime stopped or lost the run. */
type TurnEnd =
  | { kind: 'reply'; text: string; citations?: SaidCitation[]; failure?: TurnFailure; limit?: string }
  | { kind: 'stopped' }
  | { kind: 'lost' };

/** The run's lease went to another runtime (it lapsed), or the run ended: the turn is not ours to answer. */
class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}

/**
 * The hosted runtime over the API at `apiUrl`.
 *
 * Leases (SPEC §7b): a claim holds the run for the API's lease (60 s by default); while the turn
 * works the runtime renews it every third of that (`runtime.renew`), and lets go when the turn is
 * answered or abandoned (`runtime.release`), so the run's next question is pending at once. A
 * renewal refused (`claimed`: the lease lapsed and another runtime took the run; `not_found`: the
 * run ended) aborts the turn: nothing is posted by a runtime that no longer holds the run.
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
  // Runs this runtime is answering now, by id: the pool's occupied places.
  const inFlight = new Map<string, Promise<RunReport>>();
  const backoff = new Map<string, { failures: number; notBefore: number }>();
  let loop: Promise<void> | null = null;

  /** How the turn ended. Never throws. */
  async function answerTurn(input: Omit<TurnInput, 'signal'>, lost: AbortSignal): Promise<TurnEnd> {
    const turn = new AbortController();
    const timer = setTimeout(() => turn.abort(new TurnTimeout()), turnTimeoutMs);
    const signal = AbortSignal.any([turn.signal, stopping.signal, lost]);
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
      const answer = await Promise.race([answering, aborted]);
      if (answer.text.trim() === '')
        return {
          kind: 'reply',
          text: failureReply(agent, 'it gave an empty reply'),
          failure: { kind: 'malformed' },
        };
      return {
        kind: 'reply',
        text: answer.text,
        ...(answer.citations ? { citations: answer.citations } : {}),
        ...(answer.failure ? { failure: answer.failure } : {}),
      };
    } catch (e) {
      if (stopping.signal.aborted) return { kind: 'stopped' };
      if (lost.aborted) return { kind: 'lost' };
      if (e instanceof TurnTimeout) {
        const limit = `it ran out of time (the limit is ${duration(turnTimeoutMs)} per turn)`;
        return { kind: 'reply', text: failureReply(agent, limit), limit };
      }
      const crash = `it failed (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`;
      return {
        kind: 'reply',
        text: failureReply(agent, crash.slice(0, ERROR_CHARS)),
        failure: { kind: 'crashed' },
      };
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
      // Another runtime claimed it between the listing and this claim, and answers it.
      if (reason === 'claimed') return report('claimed-elsewhere');
      return report('failed', { error: `claim: ${message}` });
    }
    const { mode, runToken } = claimed;
    const lease = { runId, runToken };
    const lost = new AbortController();
    const renew = async () => {
      try {
        await runtimeApi.renew.mutate(lease, { signal: callSignal() });
      } catch (e) {
        const { reason } = describe(e);
        if (reason === 'claimed' || reason === 'not_found') lost.abort(new LeaseLost());
        // Anything else (the API restarting, a slow answer) is tried again at the next renewal,
        // two of which still fall inside the lease.
      }
    };
    const renewing = setInterval(() => void renew(), (claimed.leaseSeconds * 1000) / 3);
    // Let go when done, unless the run was finished or is another runtime's now.
    let release = true;
    try {
      const run = clientFor(options, runToken).agent;
      const library = createLibraryTools({
        url: options.apiUrl,
        runToken,
        timeoutMs: callTimeoutMs,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      const tools = createMemoryTools({
        ...options.memory,
        url: options.apiUrl,
        runToken,
        // A note's data.source must quote a passage this run read.
        checkSources: (changes) => library.checkSources(changes),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      const [document, turns] = await Promise.all([
        run.document.query(undefined, { signal: callSignal() }),
        run.turns.query(undefined, { signal: callSignal() }),
      ]);
      const last = turns.at(-1);
      const waiting = mode === 'chat' ? last?.role === 'you' : !turns.some((t) => t.role === 'agent');
      if (waiting) {
        const end = await answerTurn(
          { document, history: turns.map(({ role, text }) => ({ role, text })), tools, library },
          lost.signal,
        );
        if (end.kind === 'stopped') return report('interrupted', { mode });
        if (end.kind === 'lost') {
          release = false;
          return report('superseded', { mode });
        }
        const text = end.text.slice(0, SPONGE_LIMITS.messageChars);
        const citations = end.citations?.slice(0, CITATIONS_MAX);
        // Not retried: a say whose answer was lost may have been posted, and a turn is answered once.
        await run.say.mutate(
          { text, ...(citations && citations.length > 0 ? { citations } : {}) },
          { signal: postSignal() },
        );
        if (mode === 'staged') {
          await runtimeApi.finish.mutate({ runId }, { signal: postSignal() });
          release = false;
        }
        if (end.failure)
          return report('failed', { mode, failure: { ...end.failure, message: text.slice(0, ERROR_CHARS) } });
        return report('answered', { mode, ...(end.limit ? { limit: end.limit } : {}) });
      }
      // A staged step answered by a runtime that stopped before finishing it.
      if (mode === 'staged') {
        await runtimeApi.finish.mutate({ runId }, { signal: postSignal() });
        release = false;
      }
      return report('already-answered', { mode });
    } catch (e) {
      if (stopping.signal.aborted) return report('interrupted', { mode });
      const { reason, message } = describe(e);
      // Our token was revoked: our lease lapsed, another runtime claimed the run and answers it.
      if (reason === 'unauthenticated') {
        release = false;
        return report('superseded', { mode });
      }
      return report('failed', { mode, error: message });
    } finally {
      clearInterval(renewing);
      // Best effort: a release that does not arrive costs the run's next question the rest of
      // the lease, after which the run is pending again anyway.
      if (release && !lost.signal.aborted)
        await runtimeApi.release.mutate(lease, { signal: postSignal() }).catch(() => {});
    }
  }

  async function attempt(runId: string, mode: 'chat' | 'staged'): Promise<RunReport> {
    const wait = backoff.get(runId);
    const report = await answerRun(runId, mode);
    // A failed turn was answered (its reply says what failed); a run the API refused is retried.
    if (report.outcome === 'failed' && report.error !== undefined) {
      const failures = (wait?.failures ?? 0) + 1;
      const delay = Math.min(MAX_RUN_BACKOFF_MS, pollMs * 2 ** failures);
      backoff.set(runId, { failures, notBefore: Date.now() + delay });
      report.retryInMs = delay;
    } else {
      backoff.delete(runId);
    }
    log({ type: 'run', report });
    return report;
  }

  /** A pending run this runtime may start now, or the `deferred` report of one still backing off. */
  function deferral(runId: string, mode: 'chat' | 'staged'): RunReport | null {
    const wait = backoff.get(runId);
    const now = Date.now();
    if (!wait || wait.notBefore <= now) return null;
    const report: RunReport = { runId, mode, outcome: 'deferred', ms: 0, retryInMs: wait.notBefore - now };
    log({ type: 'run', report });
    return report;
  }

  /** Starts answering a run in a place of the pool; the place frees when the run is done. */
  function launch(runId: string, mode: 'chat' | 'staged'): Promise<RunReport> {
    const job = attempt(runId, mode).finally(() => inFlight.delete(runId));
    inFlight.set(runId, job);
    return job;
  }

  /** Runs not to be tried again yet. */
  function backingOff(): string[] {
    const now = Date.now();
    return [...backoff].flatMap(([runId, b]) => (b.notBefore > now ? [runId] : []));
  }

  /**
   * The pending runs; with `waitMs`, a long poll that answers as soon as a run this runtime is
   * neither answering nor backing off from is pending.
   */
  async function listPending(waitMs = 0) {
    const pending =
      waitMs <= 0
        ? await runtimeApi.pending.query(undefined, { signal: callSignal() })
        : await runtimeApi.pending.query(
            {
              waitSeconds: waitMs / 1_000,
              ignore: [...inFlight.keys(), ...backingOff()].slice(0, MAX_IGNORED),
            },
            { signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(waitMs + callTimeoutMs)]) },
          );
    const listed = new Set(pending.map((p) => p.runId));
    for (const runId of backoff.keys()) if (!listed.has(runId)) backoff.delete(runId);
    return pending.filter((p) => !inFlight.has(p.runId));
  }

  async function runOnce(): Promise<RuntimeReport> {
    if (stopping.signal.aborted) throw new Error('the runtime has stopped');
    const pending = await listPending();
    const queue = [...pending];
    const runs: RunReport[] = [];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        runs.push(deferral(next.runId, next.mode) ?? (await launch(next.runId, next.mode)));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    return { pending: pending.length, runs };
  }

  /** One long poll of `runtime.pending`: starts what fits in the pool's free places, waits for none of it. */
  async function fill(): Promise<void> {
    // Not past the moment the first run backing off may be tried again.
    const now = Date.now();
    const waitMs = Math.min(
      options.waitMs ?? MAX_WAIT_MS,
      ...[...backoff.values()].map((b) => Math.max(0, b.notBefore - now)),
    );
    for (const next of await listPending(Math.max(waitMs, MIN_WAIT_MS))) {
      if (inFlight.size >= concurrency) return;
      if (!deferral(next.runId, next.mode)) void launch(next.runId, next.mode);
    }
  }

  async function poll(): Promise<void> {
    log({ type: 'started', apiUrl: options.apiUrl, agent: agent.name, concurrency });
    let failures = 0;
    let lastReason: string | null = null;
    const stopped = new Promise<void>((resolve) =>
      stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    while (!stopping.signal.aborted) {
      if (inFlight.size >= concurrency) {
        // No free place: wait for one (a run's job never rejects), not for the API.
        await Promise.race([...inFlight.values(), stopped]);
        continue;
      }
      try {
        await fill();
        if (failures > 0) log({ type: 'poll-recovered', failures });
        failures = 0;
        lastReason = null;
      } catch (e) {
        if (stopping.signal.aborted) break;
        failures++;
        // Not up yet (or restarting): wait longer each time, so a long outage costs little.
        const delay = Math.min(MAX_POLL_BACKOFF_MS, pollMs * 2 ** Math.min(failures, 10));
        const { reason, message } = describe(e);
        log({
          type: 'poll-failed',
          reason,
          error: message,
          retryInMs: delay,
          repeated: reason === lastReason,
        });
        lastReason = reason;
        await sleep(delay, undefined, { signal: stopping.signal }).catch(() => {});
      }
    }
    await Promise.all(inFlight.values());
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
      await Promise.all(inFlight.values());
    },
  };
}
