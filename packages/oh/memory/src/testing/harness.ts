/**
 * The store's unit tests' harness: real libSQL files in a temp folder, a movable clock, reviewed
 * knowledge in memory (the application keeps the real one: Oh only reads it), and ONE place that
 * closes everything and removes the folder, whatever the test did. Not exported from the package.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { MemoryError } from '../errors.ts';
import { kindOf, recordDigest } from '../records.ts';
import { compareNames } from '../reviewed-view.ts';
import { createMemoryStore } from '../store.ts';
import { openPurger } from '../purger.ts';
import type {
  AgentContext,
  JsonValue,
  Link,
  MemoryStore,
  MemoryStoreOptions,
  OpenSessionInput,
  Purger,
  ReviewedKnowledgeReader,
  ReviewedRecord,
  SessionInfo,
} from '../types.ts';
import { PURGE_KEY, TOKEN_SECRET, closeAll, openTestSession, testClock } from './fixtures.ts';

/** What `TestReviewed.accept` takes: a record's content and, optionally, its provenance. */
interface AcceptedRecord {
  name: string;
  text: string;
  data?: JsonValue;
  links?: Link[];
  reviewerId?: string;
  sourceDocumentId?: string;
  passage?: string;
}

/** Reviewed knowledge for the store's tests: a `ReviewedKnowledgeReader` whose records a test accepts. */
interface TestReviewed extends ReviewedKnowledgeReader {
  /**
   * Accepts a record into a document's reviewed knowledge: the document's next revision holds
   * it, and an earlier version of the same name is in view only before that revision.
   * Resolves with the new revision.
   */
  accept(documentId: string, record: AcceptedRecord): Promise<number>;
}

/**
 * In-memory reviewed knowledge, as the application's behaves: every accept is the next revision
 * of its document, each record is valid over a revision range [from, to), so what is in view at
 * a revision never changes once it exists. It attaches no marks (no record is a correction).
 */
function memoryReviewed(now: () => Date = () => new Date()): TestReviewed {
  const latest = new Map<string, number>();
  const held = new Map<string, Array<{ record: ReviewedRecord; to: number | null }>>();
  let decisions = 0;
  return {
    async latestRevision(documentId) {
      return latest.get(documentId) ?? 0;
    },
    async recordsAt(documentId, revision) {
      if (!Number.isInteger(revision) || revision < 0)
        throw new MemoryError('invalid_input', 'revision is a whole number ≥ 0');
      return (held.get(documentId) ?? [])
        .filter((r) => r.record.revision <= revision && (r.to === null || r.to > revision))
        .map((r) => ({ ...r.record, links: r.record.links.map((l) => ({ ...l })) }))
        .sort((a, b) => compareNames(a.name, b.name));
    },
    async accept(documentId, input) {
      const revision = (latest.get(documentId) ?? 0) + 1;
      const records = held.get(documentId) ?? [];
      for (const r of records) if (r.record.name === input.name && r.to === null) r.to = revision;
      const kind = kindOf(input.name);
      const content = {
        kind,
        name: input.name,
        text: input.text,
        data: input.data ?? null,
        links: input.links ?? [],
      };
      records.push({
        record: {
          ...content,
          digest: recordDigest(content),
          documentId,
          revision,
          sourceDocumentId: input.sourceDocumentId ?? 'doc:paper',
          passage: input.passage ?? `the passage for ${input.name}`,
          reviewerId: input.reviewerId ?? 'user:rev',
          decisionId: `decision-${++decisions}`,
          comment: 'checked against the source',
          createdAt: now().toISOString(),
        },
        to: null,
      });
      held.set(documentId, records);
      latest.set(documentId, revision);
      return revision;
    },
  };
}

export interface Harness {
  dir: string;
  memoryPath: string;
  memoryUrl: string;
  clock: ReturnType<typeof testClock>;
  reviewed: TestReviewed;
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
 * `memoryUrl` (a libSQL server, see sqld.ts; `memoryPath` is then empty). Reviewed
 * knowledge is in memory either way (`memoryReviewed`).
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
  const clock = testClock();
  try {
    const reviewed = memoryReviewed(clock.now);
    const openStore = async (extra: Partial<MemoryStoreOptions> = {}) => {
      const store = await createMemoryStore({
        url: memoryUrl,
        tokenSecret: TOKEN_SECRET,
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
      clock,
      reviewed,
      store,
      openStore,
      async openPurger(opts = {}) {
        const purger = await openPurger({
          url: memoryUrl,
          purgeKey: opts.purgeKey ?? PURGE_KEY,
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
      session: (input = {}, on = store) => openTestSession(on, ++runs, input),
    };
    return await fn(harness);
  } finally {
    closeAll(closers);
    rmSync(dir, { recursive: true, force: true });
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
