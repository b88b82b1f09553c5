/**
 * Test harness for the store's unit tests: real libSQL files in a temp folder, a movable clock,
 * reviewed knowledge on its own application database, and ONE place that closes everything and
 * removes the folder, whatever the test did. Not exported from the package.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { MemoryError } from './errors.ts';
import { createReviewedKnowledge } from './reviewed.ts';
import { createMemoryStore } from './store.ts';
import { openPurger } from './purger.ts';
import type {
  AgentContext,
  MemoryStore,
  MemoryStoreOptions,
  OpenSessionInput,
  Purger,
  ReviewedKnowledge,
  SessionInfo,
} from './types.ts';

export const TEST_SECRET = 'unit-test-token-secret-0123456789abcdef';
export const TEST_PURGE_KEY = 'unit-test-purge-key-0123456789';

export interface Clock {
  now: () => Date;
  advance: (ms: number) => void;
  set: (date: Date) => void;
}

export function movableClock(start = new Date()): Clock {
  let t = start.getTime();
  return { now: () => new Date(t), advance: (ms) => void (t += ms), set: (d) => void (t = d.getTime()) };
}

export interface Harness {
  dir: string;
  memoryPath: string;
  memoryUrl: string;
  appUrl: string;
  clock: Clock;
  reviewed: ReviewedKnowledge;
  store: MemoryStore;
  /** Another store on the same memory file (another "process" in-process: its own connection). */
  openStore(options?: Partial<MemoryStoreOptions>): Promise<MemoryStore>;
  openPurger(options?: { purgeKey?: string; now?: () => Date }): Promise<Purger>;
  /** A raw connection to the memory file, for going behind the store's back. */
  raw(): Client;
  /** Opens a session (owner o, document d) and returns it with an agent context. */
  session(
    input?: Partial<OpenSessionInput>,
    store?: MemoryStore,
  ): Promise<{ info: SessionInfo; ctx: AgentContext }>;
}

/**
 * Runs `fn` against a fresh memory database: a file in a temp folder, or the database at
 * `memoryUrl` (a libSQL server, see testing/sqld.ts; `memoryPath` is then empty). Reviewed
 * knowledge stays in a local file either way.
 */
export async function withHarness<T>(
  fn: (h: Harness) => Promise<T>,
  options: Partial<MemoryStoreOptions> = {},
  where: { memoryUrl?: string } = {},
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-memory-'));
  const closers: Array<() => void> = [];
  const memoryPath = where.memoryUrl === undefined ? join(dir, 'memory.db') : '';
  const memoryUrl = where.memoryUrl ?? `file:${memoryPath}`;
  const appUrl = `file:${join(dir, 'sponge.db')}`;
  const clock = movableClock();
  try {
    const reviewed = await createReviewedKnowledge({ url: appUrl, now: clock.now });
    closers.push(() => reviewed.close());
    const openStore = async (extra: Partial<MemoryStoreOptions> = {}) => {
      const store = await createMemoryStore({
        url: memoryUrl,
        tokenSecret: TEST_SECRET,
        reviewed,
        now: clock.now,
        ...options,
        ...extra,
      });
      closers.push(() => store.close());
      return store;
    };
    const store = await openStore();
    let runs = 0;
    const harness: Harness = {
      dir,
      memoryPath,
      memoryUrl,
      appUrl,
      clock,
      reviewed,
      store,
      openStore,
      async openPurger(opts = {}) {
        const purger = await openPurger({
          url: memoryUrl,
          purgeKey: opts.purgeKey ?? TEST_PURGE_KEY,
          now: opts.now ?? clock.now,
        });
        closers.push(() => purger.close());
        return purger;
      },
      raw() {
        const client = createClient({ url: memoryUrl });
        closers.push(() => client.close());
        return client;
      },
      async session(input = {}, on = store) {
        runs++;
        const info = await on.openSession({
          ownerId: 'user:o',
          documentId: 'doc:d',
          runId: `run:${runs}`,
          pinnedRevision: 0,
          ...input,
        });
        return { info, ctx: { sessionId: info.id, author: `agent:run-${runs}` } };
      },
    };
    return await fn(harness);
  } finally {
    for (const close of closers.reverse()) {
      try {
        close();
      } catch {
        // closing is best effort; the folder goes anyway
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The reason a promise was refused with ('ok' when it resolved). */
export async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    return typeof reason === 'string' ? reason : `raw: ${String(error)}`;
  }
}

/** `count` add changes named `<kind>:<prefix>-<i>`. */
export function adds(
  prefix: string,
  count: number,
  kind = 'lead',
): Array<{ op: 'add'; name: string; text: string }> {
  return Array.from({ length: count }, (_, i) => ({
    op: 'add' as const,
    name: `${kind}:${prefix}-${i}`,
    text: `${prefix} ${i}`,
  }));
}

/** The MemoryError a call was refused with; fails the test when the call succeeded. */
export async function failure(promise: Promise<unknown>): Promise<MemoryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MemoryError) return error;
    throw new Error(`expected a MemoryError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to be refused, but it succeeded');
}
