/**
 * The round loop both fault suites share: agents write, a fault lands at a random moment of the
 * load, the agents retry until every one of them gets through again, the load stops, and the
 * database is checked (checks.ts). Every few rounds a new cohort of runs takes over, so each
 * round verifies a bounded history; every run ever started is still checked every round.
 *
 * A suite is taken a cohort at a time (`rounds`), each in a test of its own, so that no test runs
 * for minutes; the seed, the runs and the tally go on from one to the next, and `finish` runs the
 * `verify` command over the whole database at the end.
 */
import { createClient } from '@libsql/client';
import { expect } from 'vitest';
import { seeded, startAgents, startLoad, suiteSeed } from '@sponge/testing/fault-agents';
import type { Agent, Failure } from '@sponge/testing/fault-agents';
import { checkRound, openSessionVerifier, readSessions, verifyCommand } from './checks.ts';
import type { ApiProcess, Cluster } from './processes.ts';
import { Tally } from './tally.ts';

export interface FaultRounds {
  /** Printed with the seed and the totals, e.g. `server kill`. */
  name: string;
  /** Agents per cohort, each with a run of its own. */
  agents: number;
  /** Rounds a cohort of runs writes before the next one takes over. */
  cohortRounds: number;
  cluster: Cluster;
  apis: ApiProcess[];
  retryable: (failure: Failure) => boolean;
  /** On no answer, an agent moves to the next API. */
  moveOnNoAnswer: boolean;
  /**
   * Does the damage while the load runs, and resolves once clients can get through again. What
   * it resolves to is awaited after the round's checks (e.g. a killed API process starting again).
   */
  fault: (random: () => number) => Promise<{ settled: Promise<void> }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FaultSuite {
  /** Runs the next `count` rounds (a cohort's worth, cohortRounds), checking each. */
  rounds(count: number): Promise<void>;
  /** The `verify` command over the whole database; closes the suite's connections. */
  finish(): Promise<Tally>;
}

export async function startFaultRounds(o: FaultRounds): Promise<FaultSuite> {
  const seed = suiteSeed();
  const random = seeded(seed);
  console.log(`${o.name}: seed ${seed} (FAULT_SEED=${seed} repeats the schedule)`);
  const raw = createClient({ url: o.cluster.memory.url });
  const verifier = await openSessionVerifier(o.cluster.env);
  const tally = new Tally();
  const everyone: Agent[] = [];
  let cohort: Agent[] = [];
  let opened = new Map<string, never>() as Awaited<ReturnType<typeof readSessions>>;
  let done = 0;
  const close = () => {
    verifier.close();
    raw.close();
  };

  async function round(i: number): Promise<void> {
    const at = `${o.name}, round ${i + 1} (seed ${seed})`;
    if (i % o.cohortRounds === 0) {
      cohort = await startAgents(o.apis[0]!.port, o.agents, o.apis.length, everyone.length);
      everyone.push(...cohort);
      opened = await readSessions(raw);
    }
    // Every API is up at the start of a round: agents go back to their own.
    for (const agent of cohort) agent.target = agent.index % o.apis.length;
    const load = startLoad(cohort, {
      urls: o.apis.map((api) => api.url),
      retryable: o.retryable,
      moveOnNoAnswer: o.moveOnNoAnswer,
    });
    // The fault lands while calls are on their way, at a random moment: mid-batch, between
    // calls, during a commit.
    await load.flowing();
    await sleep(random() * 300);
    const { settled } = await o.fault(random);
    // Every agent gets through again (its call in flight retried) before the round ends.
    await load.ackedSince(Date.now());
    const counts = await load.stop();

    for (const api of o.apis) expect(api.crashed(), at).toBeNull();
    const logged = o.apis.map((api) => api.output()).join('\n');
    expect(counts.problems, `${at}: answers no retry explains; the APIs logged:\n${logged}`).toEqual([]);
    const check = await checkRound(raw, verifier, everyone, opened, cohort);
    expect(check.problems, at).toEqual([]);
    const added = tally.add(counts, check);
    expect({ lost: added.lost, doubled: added.doubled }, at).toEqual({ lost: 0, doubled: 0 });
    await settled;
  }

  return {
    async rounds(count) {
      try {
        for (const end = done + count; done < end; done++) await round(done);
      } catch (err) {
        close();
        throw err;
      }
    },
    async finish() {
      try {
        const verified = await verifyCommand(o.cluster.env);
        expect(verified.code, `${o.name}: verify says:\n${verified.report}`).toBe(0);
      } finally {
        close();
      }
      return tally;
    },
  };
}
