/**
 * The load of the fault suites (apps/api/src/faults): agents, each with a run of its own, writing
 * `agent.remember` calls in a loop over plain HTTP, the way an outside runtime does. A call that
 * gets no answer or an answer that means "try again" is sent again unchanged (same requestId, same
 * basedOn) until it is acknowledged; any other answer is a failure the suite reports.
 *
 * Agent i's call k goes from version k-1 to k with requestId `a<i>-<k>` and four changes at once
 * (as in @oh/memory's crash test), so a lost, doubled or half-applied call shows in the notes:
 * after call k the session holds step:v1..v<k>, exactly one pair note (pair:v<k>) and a counter
 * reading k.
 */
import { changesFor } from '@oh/memory/testing';
import { acceptChatRun, loginOwner } from './api.ts';

export { changesFor };

export interface Agent {
  index: number;
  runId: string;
  sessionId: string;
  runToken: string;
  /** The last acknowledged version; the next call is version + 1. */
  version: number;
  /** The API it sends to: an index into the load's URLs. */
  target: number;
  /** When the attempt behind the last acknowledgement was sent (ms since the epoch). */
  lastAckSentAt: number;
}

export const requestIdOf = (agent: Agent, k: number) => `a${agent.index}-${k}`;

/** The notes (name → text) a session holds after `v` acknowledged calls. */
export function expectedNotes(v: number): Map<string, string> {
  const notes = new Map<string, string>();
  if (v === 0) return notes;
  for (let k = 1; k <= v; k++) notes.set(`step:v${k}`, `call ${k}`);
  notes.set(`pair:v${v}`, `pair of call ${v}`);
  notes.set('counter:main', String(v));
  return notes;
}

/**
 * Logs in a demo owner and has `count` chat runs accepted and claimed, one per agent, numbered
 * from `first`; agent i starts on API i mod `apis`.
 */
export async function startAgents(port: number, count: number, apis: number, first = 0): Promise<Agent[]> {
  const owner = await loginOwner(port);
  const agents: Agent[] = [];
  for (let index = first; index < first + count; index++) {
    const run = await acceptChatRun(port, owner);
    agents.push({ index, ...run, version: 0, target: index % apis, lastAckSentAt: 0 });
  }
  return agents;
}

/** What a client saw instead of an acknowledgement. */
export type Failure =
  | { kind: 'answer'; status: number; code: string; reason: string; message: string }
  | { kind: 'no answer'; cause: string };

export const describeFailure = (f: Failure) =>
  f.kind === 'answer' ? `HTTP ${f.status} ${f.code} ${f.reason}: ${f.message}` : `no answer (${f.cause})`;

type Outcome = { ok: true; version: number; replayed: boolean } | { ok: false; failure: Failure };

/** A tRPC answer on the wire (no transformer), as far as the agents read it. */
interface WireAnswer {
  result?: { data?: { version: number; replayed: boolean } };
  error?: { message?: string; data?: { code?: string; reason?: string } };
}

async function remember(url: string, agent: Agent, input: unknown): Promise<Outcome> {
  try {
    const res = await fetch(`${url}/trpc/agent.remember`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${agent.runToken}` },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let body: WireAnswer;
    try {
      body = JSON.parse(text) as WireAnswer;
    } catch {
      body = {};
    }
    if (body.result?.data) return { ok: true, ...body.result.data };
    return {
      ok: false,
      failure: {
        kind: 'answer',
        status: res.status,
        code: String(body.error?.data?.code),
        reason: String(body.error?.data?.reason),
        message: body.error?.message ?? text.slice(0, 200),
      },
    };
  } catch (error) {
    // fetch's TypeError says only "fetch failed"; the reason is on its cause.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      ok: false,
      failure: { kind: 'no answer', cause: cause?.code ?? cause?.message ?? String(error) },
    };
  }
}

export interface RoundCounts {
  /** Calls acknowledged. */
  acked: number;
  /** Acknowledged calls that needed at least one retry. */
  retried: number;
  /** Acknowledged with `replayed: true`: the first attempt had been applied, its answer lost. */
  replayed: number;
  /** Every failed attempt, by what the client saw. */
  seen: Map<string, number>;
  /** Answers no retry explains (a refusal, a wrong version): each one fails the suite. */
  problems: string[];
}

export interface LoadOptions {
  /** The APIs, by the agents' `target`. */
  urls: string[];
  /** Whether a failure is one to send again unchanged. */
  retryable: (failure: Failure) => boolean;
  /** On no answer, move to the next API (a balancer taking a dead process out). */
  moveOnNoAnswer: boolean;
}

export interface Load {
  /** Resolves once a call of this load was acknowledged: calls are on their way. */
  flowing(timeoutMs?: number): Promise<void>;
  /** Resolves once every agent has an acknowledged call whose attempt was sent after `since`. */
  ackedSince(since: number, timeoutMs?: number): Promise<void>;
  /** Lets every agent finish its call in flight (retrying it until acknowledged), then stops. */
  stop(): Promise<RoundCounts>;
}

/** Gives up on a call no retry gets through after this long: the suite then fails, not hangs. */
const CALL_DEADLINE_MS = 30_000;

export function startLoad(agents: Agent[], options: LoadOptions): Load {
  const counts: RoundCounts = { acked: 0, retried: 0, replayed: 0, seen: new Map(), problems: [] };
  let stopping = false;

  async function drive(agent: Agent): Promise<void> {
    while (!stopping) {
      const k = agent.version + 1;
      const input = { basedOn: k - 1, requestId: requestIdOf(agent, k), changes: changesFor(k) };
      const first = Date.now();
      for (let attempt = 0; ; attempt++) {
        const sentAt = Date.now();
        const outcome = await remember(options.urls[agent.target]!, agent, input);
        if (outcome.ok) {
          if (outcome.version !== k || (attempt === 0 && outcome.replayed)) {
            counts.problems.push(
              `agent ${agent.index} call ${k}: answered version ${outcome.version}, replayed ${outcome.replayed} on attempt ${attempt + 1}`,
            );
            return;
          }
          counts.acked++;
          if (attempt > 0) counts.retried++;
          if (outcome.replayed) counts.replayed++;
          agent.version = k;
          agent.lastAckSentAt = sentAt;
          break;
        }
        const seen = describeFailure(outcome.failure);
        counts.seen.set(seen, (counts.seen.get(seen) ?? 0) + 1);
        if (!options.retryable(outcome.failure)) {
          counts.problems.push(`agent ${agent.index} call ${k}, attempt ${attempt + 1}: ${seen}`);
          return;
        }
        if (Date.now() - first > CALL_DEADLINE_MS) {
          counts.problems.push(
            `agent ${agent.index} call ${k}: still failing after ${CALL_DEADLINE_MS} ms: ${seen}`,
          );
          return;
        }
        if (outcome.failure.kind === 'no answer' && options.moveOnNoAnswer)
          agent.target = (agent.target + 1) % options.urls.length;
        // A short, jittered pause: the agents do not retry in lockstep.
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
      }
    }
  }

  const driving = Promise.all(agents.map(drive));
  const until = async (done: () => boolean, timeoutMs: number, what: () => string) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (counts.problems.length > 0) return; // an agent stopped; the round's check says why
      if (Date.now() > deadline) throw new Error(`${what()} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return {
    flowing: (timeoutMs = 30_000) =>
      until(
        () => counts.acked > 0,
        timeoutMs,
        () => 'no call acknowledged',
      ),
    ackedSince: (since, timeoutMs = 30_000) =>
      until(
        () => agents.every((a) => a.lastAckSentAt >= since),
        timeoutMs,
        () =>
          `agents ${agents
            .filter((a) => a.lastAckSentAt < since)
            .map((a) => a.index)
            .join(', ')} got no acknowledgement`,
      ),
    async stop() {
      stopping = true;
      await driving;
      return counts;
    },
  };
}

/** A small seeded generator (mulberry32): the suites log their seed so a schedule can be repeated. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FAULT_SEED from the environment, or a fresh one. */
export function suiteSeed(): number {
  const fromEnv = Number(process.env.FAULT_SEED);
  return Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31) + 1;
}
