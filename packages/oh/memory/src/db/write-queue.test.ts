import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createClient, LibsqlBatchError } from '@libsql/client';
import type { Client, InStatement } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalClient } from './local-client.ts';
import type { GroupOutcome } from './local-client.ts';
import { createWriteQueue } from './write-queue.ts';
import { adds, withHarness } from '../testing/harness.ts';
import { outcome } from '../testing/fixtures.ts';

let dir: string;
const clients: Client[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(os.tmpdir(), 'sponge-write-queue-'));
});
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  rmSync(dir, { recursive: true, force: true });
});

async function table(client: Client): Promise<Client> {
  clients.push(client);
  await client.execute('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL CHECK (v >= 0))');
  return client;
}
const put = (k: string, v: number): InStatement => ({
  sql: 'INSERT INTO kv (k, v) VALUES (?, ?)',
  args: [k, v],
});
const keys = async (c: Client) =>
  (await c.execute('SELECT k FROM kv ORDER BY k')).rows.map((r) => String(r.k));
const settle = (ps: Array<Promise<unknown>>) => Promise.allSettled(ps);

describe('write queue (group commit)', () => {
  it('commits the calls of one tick together, each all-or-nothing, later ones seeing earlier ones', async () => {
    const client = await table(new LocalClient(`file:${join(dir, 'a.db')}`));
    const queue = createWriteQueue(client);
    const outcomes = await settle([
      queue.submit([put('a1', 1), put('a2', 2)]),
      // Its first row would be fine; its second breaks the CHECK: neither may stay.
      queue.submit([put('b1', 1), put('b2', -1)]),
      queue.submit([put('c1', 1)]),
      // Sees c1 from the call before it in the same transaction: a duplicate key.
      queue.submit([put('d1', 1), put('c1', 5)]),
      queue.submit([put('e1', 1)]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const b = (outcomes[1] as PromiseRejectedResult).reason as LibsqlBatchError;
    expect(b).toBeInstanceOf(LibsqlBatchError);
    expect(b.statementIndex).toBe(1);
    expect(b.code).toBe('SQLITE_CONSTRAINT');
    expect(await keys(client)).toEqual(['a1', 'a2', 'c1', 'e1']);
    expect(queue.stats).toEqual({ commits: 1, calls: 5, largestGroup: 5 });
  });

  it('caps a commit at maxCalls and commits the rest next', async () => {
    const client = await table(new LocalClient(`file:${join(dir, 'b.db')}`));
    const queue = createWriteQueue(client, 4);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => queue.submit([put(`k${String(i).padStart(2, '0')}`, i)])),
    );
    expect(queue.stats).toEqual({ commits: 3, calls: 10, largestGroup: 4 });
    expect(await keys(client)).toHaveLength(10);
  });

  it('when the group fails as a whole, runs each call alone, in order', async () => {
    class FailingGroups extends LocalClient {
      override async batchGroup(): Promise<GroupOutcome[]> {
        throw new Error('disk I/O error (simulated)');
      }
    }
    const client = await table(new FailingGroups(`file:${join(dir, 'c.db')}`));
    const queue = createWriteQueue(client);
    const outcomes = await settle([
      queue.submit([put('x', 1)]),
      queue.submit([put('x', 2)]),
      queue.submit([put('y', 1)]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await client.execute('SELECT v FROM kv WHERE k = ?', ['x'])).rows[0]!.v).toBe(1);
  });

  it('gives a client that is not embedded (a server) one batch per call', async () => {
    const client = await table(createClient({ url: `file:${join(dir, 'd.db')}` }));
    const queue = createWriteQueue(client);
    await Promise.all([queue.submit([put('p', 1)]), queue.submit([put('q', 1)])]);
    expect(queue.stats).toEqual({ commits: 2, calls: 2, largestGroup: 1 });
  });
});

describe.each(['main', 'worker'] as const)('remember under group commit (thread: %s)', (thread) => {
  it('many sessions in one tick: each call applied or refused on its own, exactly as if alone', () =>
    withHarness(
      async (h) => {
        const sessions = await Promise.all(Array.from({ length: 30 }, () => h.session()));
        await h.store.remember(sessions[0]!.ctx, { basedOn: 0, requestId: 'seed', changes: adds('seed', 1) });
        const calls = [
          ...sessions
            .slice(1)
            .map(({ ctx }, i) =>
              h.store.remember(ctx, { basedOn: 0, requestId: `r${i}`, changes: adds(`n${i}`, 3) }),
            ),
          // Two racing calls on one session with the same basedOn, in the same commit: one wins.
          h.store.remember(sessions[0]!.ctx, { basedOn: 1, requestId: 'race-a', changes: adds('a', 1) }),
          h.store.remember(sessions[0]!.ctx, { basedOn: 1, requestId: 'race-b', changes: adds('b', 1) }),
          // An add of a name that exists: refused, nothing of it written.
          h.store.remember(sessions[1]!.ctx, {
            basedOn: 1,
            requestId: 'dup',
            changes: [...adds('fresh', 1), ...adds('n0', 1)],
          }),
        ];
        const outcomes = await Promise.allSettled(calls);
        const reasons = await Promise.all(calls.map((c) => outcome(c).catch(() => 'ok')));
        expect(outcomes.slice(0, 29).every((o) => o.status === 'fulfilled')).toBe(true);
        expect(reasons.slice(29, 31).sort()).toEqual(['ok', 'stale_version']);
        // The dup call was based on version 1, which the r0 call of the same tick had just made.
        expect(reasons[31]).toBe('name_exists');
        expect((await h.store.notes(sessions[1]!.info.id)).map((n) => n.name)).not.toContain('lead:fresh-0');
        for (const s of sessions) {
          const report = await h.store.verify(s.info.id);
          expect(report.ok, s.info.id).toBe(true);
        }
        expect((await h.store.getSession(sessions[0]!.info.id))?.version).toBe(2);
      },
      { thread },
    ));

  it('16 calls racing on one basedOn: exactly one applies, and a retry of it replays', () =>
    withHarness(
      async (h) => {
        const { ctx } = await h.session();
        const calls = Array.from({ length: 16 }, (_, i) =>
          h.store.remember(ctx, { basedOn: 0, requestId: `race-${i}`, changes: adds(`race${i}`, 2) }),
        );
        const reasons = await Promise.all(calls.map((c) => outcome(c).catch(() => 'ok')));
        expect(reasons.filter((r) => r === 'ok')).toHaveLength(1);
        expect(reasons.filter((r) => r === 'stale_version')).toHaveLength(15);
        const winner = reasons.indexOf('ok');
        const again = await h.store.remember(ctx, {
          basedOn: 0,
          requestId: `race-${winner}`,
          changes: adds(`race${winner}`, 2),
        });
        expect(again).toMatchObject({ version: 1, replayed: true });
        expect((await h.store.notes(ctx.sessionId)).map((n) => n.name).sort()).toEqual([
          `lead:race${winner}-0`,
          `lead:race${winner}-1`,
        ]);
      },
      { thread },
    ));
});
