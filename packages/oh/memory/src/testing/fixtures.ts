/**
 * What every test of the store shares: the token secret and purge key, a movable clock, temp
 * folders that are always removed, a store on a real libSQL file, what a refused call said, and
 * the raw-file helpers the on-disk tests need. The unit tests' harness (harness.ts) builds on it.
 *
 * Everything goes through the package's public entry (`../index.ts`), so the reliability tests
 * and the child processes exercise exactly what the API uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { createMemoryStore, openPurger } from '../index.ts';
import type {
  AgentContext,
  MemoryStore,
  OpenSessionInput,
  Purger,
  ReviewedKnowledgeReader,
  SessionInfo,
} from '../index.ts';
import { rowsMentioning } from './on-disk.ts';

export { databaseFiles, fileUrl, findMarkersOnDisk, rawClient, rowsMentioning } from './on-disk.ts';

export const TOKEN_SECRET = 'reliability-test-secret-0123456789abcdef';
export const PURGE_KEY = 'reliability-purge-key-0123456789abcdef';

/** Reviewed knowledge is not under test here: a document without any reviewed record. */
const noReviewed: ReviewedKnowledgeReader = {
  latestRevision: async () => 0,
  recordsAt: async () => [],
};

export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `sponge-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A mutable clock: tests move it to expire sessions without waiting a day. */
export function testClock(start = Date.now()): {
  now: () => Date;
  set: (ms: number) => void;
  advance: (ms: number) => void;
} {
  let t = start;
  return { now: () => new Date(t), set: (ms) => void (t = ms), advance: (ms) => void (t += ms) };
}

export async function openStore(
  url: string,
  options: { now?: () => Date; explainTtlSeconds?: number; sessionTtlSeconds?: number } = {},
): Promise<MemoryStore> {
  return await createMemoryStore({ url, tokenSecret: TOKEN_SECRET, reviewed: noReviewed, ...options });
}

/**
 * Opens the `n`th session of a test (owner `user:o`, document `doc:d`, run `run:<n>`, revision 0
 * unless `input` says otherwise) and the agent context that writes in it. The store's harness and
 * the tests of an application's reviewed knowledge (@sponge/reviewed) open theirs alike.
 */
export async function openTestSession(
  store: MemoryStore,
  n: number,
  input: Partial<OpenSessionInput> = {},
): Promise<{ info: SessionInfo; ctx: AgentContext }> {
  const info = await store.openSession({
    ownerId: 'user:o',
    documentId: 'doc:d',
    runId: `run:${n}`,
    pinnedRevision: 0,
    ...input,
  });
  return { info, ctx: { sessionId: info.id, author: `agent:run-${n}` } };
}

/** Closes what a test opened, last first; closing is best effort, so the folder goes anyway. */
export function closeAll(closers: Array<() => void>): void {
  for (const close of closers.splice(0).reverse()) {
    try {
      close();
    } catch {
      // one failed close must not keep the others open
    }
  }
}

export async function openTestPurger(url: string, now?: () => Date): Promise<Purger> {
  return await openPurger({ url, purgeKey: PURGE_KEY, ...(now ? { now } : {}) });
}

/** Rows referring to a session id, counted per table. */
export async function rowsPerTable(db: Client, needle: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const hit of await rowsMentioning(db, [needle]))
    counts.set(hit.table, (counts.get(hit.table) ?? 0) + 1);
  return counts;
}

/** The store's stable error reason, whatever the error class is called. */
export function reasonOf(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'reason' in err) return String(err.reason);
  if (err && typeof err === 'object' && 'code' in err) return String(err.code);
  return undefined;
}

/** Resolves to the reason a promise was refused with, or `'ok'` when it resolved. */
export async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return reasonOf(err) ?? `unexpected: ${String(err)}`;
  }
}
