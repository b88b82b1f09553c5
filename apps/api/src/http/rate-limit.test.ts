import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_MIGRATIONS } from '../migrations.ts';
import { LEASE_MS, SharedRateLimiter, leaseSize } from './rate-limit.ts';
import { applyMigrations } from '@oh/memory';
import { openAppDatabase } from '../stores.ts';

let dir: string;
let db: Client;
/** A second connection to the same file: another API process, as far as the limiter can tell. */
let other: Client;
let scope = 0;
/** Each test its own keys. */
const fresh = () => `t${++scope}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sponge-rate-limit-'));
  db = await openAppDatabase({ url: `file:${join(dir, 'sponge.db')}` });
  await applyMigrations(db, 'app', APP_MIGRATIONS);
  other = await openAppDatabase({ url: `file:${join(dir, 'sponge.db')}` });
});
afterAll(() => {
  db?.close();
  other?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Counts the writes a limiter makes (each take that reaches the database is one batch). */
function counted(client: Client): { client: Client; writes: () => number } {
  let writes = 0;
  const wrapped = new Proxy(client, {
    get(target, name, receiver) {
      if (name === 'batch') {
        return (...args: Parameters<Client['batch']>) => {
          writes++;
          return target.batch(...args);
        };
      }
      return Reflect.get(target, name, receiver) as unknown;
    },
  });
  return { client: wrapped, writes: () => writes };
}

describe('SharedRateLimiter', () => {
  it('lets a burst through, then one call per refill, and says how long to wait', async () => {
    const limiter = new SharedRateLimiter(db, fresh(), { burst: 3, refillSeconds: 2 });
    const t0 = 1_000_000;
    const take = (key: string, at: number) => limiter.take(key, at);
    expect([await take('a', t0), await take('a', t0), await take('a', t0)]).toEqual([0, 0, 0]);
    expect(await take('a', t0)).toBe(2);
    expect(await take('a', t0 + 1_000)).toBe(1);
    expect(await take('a', t0 + 2_000)).toBe(0);
    expect(await take('a', t0 + 2_000)).toBe(2);
    // Another key has its own bucket.
    expect(await take('b', t0 + 2_000)).toBe(0);
    // Refills up to the burst, never beyond.
    const later = t0 + 3_600_000;
    const four = [];
    for (let i = 0; i < 4; i++) four.push(await take('a', later));
    expect(four).toEqual([0, 0, 0, 2]);
  });

  it('is one bucket for every process on the database: two limiters never pass more than it holds', async () => {
    const rule = { burst: 64, refillSeconds: 60 };
    const scopeName = fresh();
    const a = new SharedRateLimiter(db, scopeName, rule);
    const b = new SharedRateLimiter(other, scopeName, rule);
    const t0 = 5_000_000;
    let passed = 0;
    for (let i = 0; i < 200; i++) if ((await (i % 3 === 0 ? b : a).take('key', t0)) === 0) passed++;
    expect(passed).toBeLessThanOrEqual(rule.burst);
    // Leases a process took but did not use come back once they lapse: nothing is lost for good.
    let later = 0;
    for (let i = 0; i < 200; i++) if ((await (i % 2 === 0 ? a : b).take('key', t0 + LEASE_MS)) === 0) later++;
    expect(passed + later).toBe(rule.burst);
  });

  it('writes the database once per lease, not once per call', async () => {
    const { client, writes } = counted(db);
    const limiter = new SharedRateLimiter(client, fresh(), { burst: 60, refillSeconds: 0.25 });
    const t0 = 9_000_000;
    for (let i = 0; i < 56; i++) expect(await limiter.take('agent', t0)).toBe(0);
    expect(leaseSize(60)).toBe(7);
    expect(writes()).toBe(56 / 7);
  });

  it('keeps what it knows in the database: a new limiter (a restart) starts where the last one stopped', async () => {
    const scopeName = fresh();
    const rule = { burst: 2, refillSeconds: 60 };
    const first = new SharedRateLimiter(db, scopeName, rule);
    expect([await first.take('k', 0), await first.take('k', 0)]).toEqual([0, 0]);
    expect(await new SharedRateLimiter(db, scopeName, rule).take('k', 1_000)).toBe(59);
  });
});
