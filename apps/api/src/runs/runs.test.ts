/**
 * The run-token lookup (runByTokenHash) on every agent call: one point read of the application
 * database per call, and never an answer kept from an earlier call.
 */
import { openDatabase } from '@oh/memory';
import type { InStatement } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { TEST_RUNTIME_KEY, errorOf, startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';

let s: TestServer;
let ada: string;
beforeAll(async () => {
  s = await startTestServer();
  ada = await s.login('user-ada');
});
afterAll(() => s?.close());

const runtime = () => s.client(TEST_RUNTIME_KEY).runtime;
const isLookup = (stmt: unknown) =>
  typeof stmt === 'object' &&
  stmt !== null &&
  (stmt as InStatement & object).sql.includes('r.token_hash = ?');
const codeOf = async (p: Promise<unknown>) => {
  const e = await errorOf(p);
  return [e.code, e.reason];
};

describe("an agent's run token", () => {
  // On libSQL servers (TEST_DATABASES=sqld) there is no embedded connection: the lookup is a query.
  it.skipIf(process.env.TEST_DATABASES === 'sqld')(
    'is read with one point read per call (readRow), not a result set of Rows',
    async () => {
      const { runToken } = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
      const agent = s.client(runToken).agent;
      await agent.load.query();
      const app = s.app.app as typeof s.app.app & { readRow: (stmt: InStatement) => Promise<unknown> };
      const execute = vi.spyOn(app, 'execute');
      const readRow = vi.spyOn(app, 'readRow');
      try {
        for (let i = 0; i < 5; i++)
          await agent.remember.mutate({
            basedOn: i,
            requestId: `r${i}`,
            changes: [{ op: 'add', name: `lead:r${i}`, text: 'x' }],
          });
        expect(execute.mock.calls.filter(([stmt]) => isLookup(stmt))).toEqual([]);
        expect(readRow.mock.calls.filter(([stmt]) => isLookup(stmt))).toHaveLength(5);
      } finally {
        execute.mockRestore();
        readRow.mockRestore();
      }
    },
  );

  it('stops at once: revoked by a new claim, its run finished, its owner disabled from another connection, its session forgotten', async () => {
    const first = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const second = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const third = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    for (const run of [first, second, third]) await s.client(run.runToken).agent.load.query();

    // A new claim gives the run a new token: the old one opens nothing on the very next call.
    await runtime().release.mutate({ runId: first.runId, runToken: first.runToken });
    const reclaimed = await runtime().claim.mutate({ runId: first.runId });
    expect(await codeOf(s.client(first.runToken).agent.load.query())).toEqual([
      'UNAUTHORIZED',
      'unauthenticated',
    ]);
    expect((await s.client(reclaimed.runToken).agent.load.query()).session.id).toBe(first.sessionId);

    await runtime().finish.mutate({ runId: second.runId });
    expect((await codeOf(s.client(second.runToken).agent.load.query()))[0]).toBe('FORBIDDEN');

    // As `users disable` does, from a connection (a process) of its own: the server's own
    // connection must not answer from a read it kept open.
    const other = await openDatabase({ url: s.appUrl });
    try {
      await s.client(third.runToken).agent.load.query();
      await other.execute({
        sql: 'UPDATE users SET disabled_at = ? WHERE id = ?',
        args: [new Date().toISOString(), 'user-ada'],
      });
      expect(await codeOf(s.client(third.runToken).agent.load.query())).toEqual([
        'UNAUTHORIZED',
        'unauthenticated',
      ]);
      await other.execute({ sql: 'UPDATE users SET disabled_at = NULL WHERE id = ?', args: ['user-ada'] });
      expect((await s.client(third.runToken).agent.load.query()).session.id).toBe(third.sessionId);
    } finally {
      other.close();
    }

    await s.client(ada).memory.forget.mutate({ sessionId: third.sessionId! });
    expect(
      await codeOf(
        s.client(third.runToken).agent.remember.mutate({
          basedOn: 0,
          requestId: 'x',
          changes: [{ op: 'add', name: 'lead:x', text: 'x' }],
        }),
      ),
    ).toEqual(['PRECONDITION_FAILED', 'session_closed']);
  });
});
