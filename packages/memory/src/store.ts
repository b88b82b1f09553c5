/**
 * createMemoryStore: wires the modules into the `MemoryStore` interface and makes sure nothing
 * but a `MemoryError` ever leaves it.
 */
import { explain, preload, query } from './answers.ts';
import type { StoreContext } from './context.ts';
import { openDatabase } from './db.ts';
import { MemoryError, toMemoryError } from './errors.ts';
import { MEMORY_MIGRATIONS, MEMORY_NAMESPACE } from './memory-schema.ts';
import { applyMigrations } from './migrations.ts';
import { notes, read, reviewedInView } from './read.ts';
import { remember } from './remember.ts';
import { ReviewedViews } from './reviewed-view.ts';
import { forget, getSession, getSessions, listSessions, openSession } from './sessions.ts';
import { log, verify } from './verify.ts';
import type { MemoryStore, MemoryStoreOptions } from './types.ts';

export const DEFAULT_SESSION_TTL_SECONDS = 86_400;
export const DEFAULT_EXPLAIN_TTL_SECONDS = 600;
export const MAX_EXPLAIN_TTL_SECONDS = 600;
export const MIN_TOKEN_SECRET_CHARS = 32;

function checkOptions(options: MemoryStoreOptions): { sessionTtlMs: number; explainTtlMs: number } {
  if (typeof options.tokenSecret !== 'string' || options.tokenSecret.length < MIN_TOKEN_SECRET_CHARS) {
    throw new MemoryError('invalid_input', `tokenSecret must be at least ${MIN_TOKEN_SECRET_CHARS} characters`);
  }
  const sessionTtl = options.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
  if (!Number.isFinite(sessionTtl) || sessionTtl <= 0) throw new MemoryError('invalid_input', 'sessionTtlSeconds must be a positive number of seconds');
  const explainTtl = options.explainTtlSeconds ?? DEFAULT_EXPLAIN_TTL_SECONDS;
  if (!Number.isFinite(explainTtl) || explainTtl <= 0 || explainTtl > MAX_EXPLAIN_TTL_SECONDS) {
    throw new MemoryError('invalid_input', `explainTtlSeconds must be between 1 and ${MAX_EXPLAIN_TTL_SECONDS} seconds`);
  }
  if (!options.reviewed || typeof options.reviewed.recordsAt !== 'function') {
    throw new MemoryError('invalid_input', 'reviewed (a ReviewedKnowledgeReader) is required');
  }
  return { sessionTtlMs: Math.round(sessionTtl * 1000), explainTtlMs: Math.round(explainTtl * 1000) };
}

/**
 * Opens (creating and migrating if needed) the working-memory database.
 *
 * @example
 * const reviewed = await createReviewedKnowledge({ url: 'file:./data/sponge.db' });
 * const store = await createMemoryStore({ url: 'file:./data/memory.db', tokenSecret, reviewed });
 * const session = await store.openSession({ ownerId, documentId, runId, pinnedRevision: await reviewed.latestRevision(documentId) });
 * const ctx = { sessionId: session.id, author: `agent:${runId}` };
 * await store.remember(ctx, { basedOn: 0, requestId: 'r-1', changes: [{ op: 'add', name: 'lead:x', text: '…' }] });
 */
export async function createMemoryStore(options: MemoryStoreOptions): Promise<MemoryStore> {
  const { sessionTtlMs, explainTtlMs } = checkOptions(options);
  const now = options.now ?? (() => new Date());
  let client;
  try {
    client = await openDatabase({ url: options.url, authToken: options.authToken });
  } catch (error) {
    throw toMemoryError(error, 'opening the memory database');
  }
  try {
    await applyMigrations(client, MEMORY_NAMESPACE, MEMORY_MIGRATIONS, now);
  } catch (error) {
    client.close();
    throw toMemoryError(error, 'migrating the memory database');
  }

  const ctx: StoreContext = {
    client,
    url: options.url,
    now,
    sessionTtlMs,
    explainTtlMs,
    tokenSecret: options.tokenSecret,
    reviewed: new ReviewedViews(options.reviewed),
  };

  // Every method funnels its failures through toMemoryError: raw SQL errors never escape.
  const guarded =
    <A extends unknown[], R>(what: string, fn: (ctx: StoreContext, ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(ctx, ...args);
      } catch (error) {
        throw toMemoryError(error, what);
      }
    };

  let closed = false;
  return {
    openSession: guarded('openSession', openSession),
    getSession: guarded('getSession', getSession),
    listSessions: guarded('listSessions', listSessions),
    getSessions: guarded('getSessions', getSessions),
    forget: guarded('forget', forget),
    remember: guarded('remember', remember),
    query: guarded('query', query),
    read: guarded('read', read),
    explain: guarded('explain', explain),
    preload: guarded('preload', preload),
    notes: guarded('notes', notes),
    reviewedInView: guarded('reviewedInView', reviewedInView),
    log: guarded('log', log),
    verify: guarded('verify', verify),
    close() {
      if (closed) return;
      closed = true;
      client.close();
    },
  };
}
