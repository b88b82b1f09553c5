/**
 * Test harness for reviewed knowledge: the application database and the memory database as
 * libSQL files in a temp folder (or libSQL servers of their own, with TEST_DATABASES=sqld), a
 * movable clock, Sponge's reviewed knowledge on the one and Oh's notebook store reading it on the
 * other, and ONE place that closes everything, stops the servers and removes the folder, whatever
 * the test did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore, isMemoryError } from '@oh/memory';
import { closeAll, openTestSession } from '@oh/memory/testing';
import type { AgentContext, MemoryError, MemoryStore, OpenSessionInput, SessionInfo } from '@oh/memory';
import { isReviewError } from '../errors.ts';
import type { ReviewError } from '../errors.ts';
import { createReviewedKnowledge } from '../knowledge.ts';
import type { ReviewedKnowledge } from '../types.ts';
import { freshDatabase } from './database.ts';
import type { FreshDatabase } from './database.ts';

const TEST_SECRET = 'reviewed-test-token-secret-0123456789abcdef';

interface Clock {
  now: () => Date;
  advance: (ms: number) => void;
}

export interface ReviewedHarness {
  /** The application database (sponge.db), where reviewed knowledge lives. */
  appUrl: string;
  /** Another fresh, empty database, closed with the rest. */
  database(name: string): Promise<string>;
  clock: Clock;
  reviewed: ReviewedKnowledge;
  /** Oh's store on its own memory database, reading `reviewed`. */
  store: MemoryStore;
  /** Opens a session (owner o, document d) and returns it with an agent context. */
  session(input?: Partial<OpenSessionInput>): Promise<{ info: SessionInfo; ctx: AgentContext }>;
}

export async function withReviewed<T>(fn: (h: ReviewedHarness) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-reviewed-'));
  const databases: FreshDatabase[] = [];
  const database = async (name: string) => {
    const fresh = await freshDatabase(dir, name);
    databases.push(fresh);
    return fresh.url;
  };
  const closers: Array<() => void> = [];
  let t = Date.now();
  const clock: Clock = { now: () => new Date(t), advance: (ms) => void (t += ms) };
  try {
    const appUrl = await database('sponge');
    const reviewed = await createReviewedKnowledge({ url: appUrl, now: clock.now });
    closers.push(() => reviewed.close());
    const store = await createMemoryStore({
      url: await database('memory'),
      tokenSecret: TEST_SECRET,
      reviewed,
      now: clock.now,
    });
    closers.push(() => store.close());
    let runs = 0;
    return await fn({
      appUrl,
      database,
      clock,
      reviewed,
      store,
      session: (input = {}) => openTestSession(store, ++runs, input),
    });
  } finally {
    // The clients first, then their servers.
    closeAll(closers);
    await Promise.allSettled(databases.map((d) => d.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The refusal a call ended with — reviewed knowledge's `ReviewError` or Oh's store's `MemoryError`,
 * each with its reason; fails the test when the call succeeded or failed otherwise.
 */
export async function failure(promise: Promise<unknown>): Promise<ReviewError | MemoryError> {
  try {
    await promise;
  } catch (error) {
    if (isReviewError(error) || isMemoryError(error)) return error;
    throw new Error(`expected a ReviewError or a MemoryError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to be refused, but it succeeded');
}
