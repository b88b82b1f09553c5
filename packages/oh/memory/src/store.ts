/**
 * createMemoryStore: wires the modules into the `MemoryStore` interface and makes sure nothing
 * but a `MemoryError` ever leaves it.
 */
import type { Row } from '@libsql/client';
import { explain, preload, query } from './answers.ts';
import type { StoreContext } from './context.ts';
import { MemoryError, toMemoryError } from './errors.ts';
import { openMemoryDatabase } from './memory-schema.ts';
import { notes, read, reviewedInView } from './read.ts';
import { remember } from './remember.ts';
import { ReviewedViews } from './reviewed-view.ts';
import { forget, getSession, getSessions, listSessions, openSession, sessionLog } from './sessions.ts';
import { verify } from './verify/session.ts';
import { createWriteQueue } from './db/index.ts';
import { NOTE_VECTORS_TABLE, createRecallIndex } from './recall/recall-index.ts';
import type { RecallIndex } from './recall/recall-index.ts';
import type { RecallNote } from './recall/render.ts';
import { EmbeddingError } from '@oh/embeddings';
import { warnWhenGivenUp } from './recall/queue.ts';
import { isLockError } from './db/index.ts';
import { kindOf, parseStoredData, parseStoredLinks } from './records.ts';
import { recallInputSchema } from '@oh/schema';
import { requireOpenSession, requireSession } from './sessions.ts';
import { parseInput } from './validation.ts';
import type {
  AgentContext,
  Change,
  MemoryStore,
  MemoryStoreOptions,
  RecallRecord,
  RecallResult,
  RecallToolMode,
  RememberResult,
} from './types.ts';

const DEFAULT_SESSION_TTL_SECONDS = 86_400;
const DEFAULT_EXPLAIN_TTL_SECONDS = 600;
const MAX_EXPLAIN_TTL_SECONDS = 600;
const MIN_TOKEN_SECRET_CHARS = 32;

function checkOptions(options: MemoryStoreOptions): { sessionTtlMs: number; explainTtlMs: number } {
  if (typeof options.tokenSecret !== 'string' || options.tokenSecret.length < MIN_TOKEN_SECRET_CHARS) {
    throw new MemoryError(
      'invalid_input',
      `tokenSecret must be at least ${MIN_TOKEN_SECRET_CHARS} characters`,
    );
  }
  const sessionTtl = options.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
  if (!Number.isFinite(sessionTtl) || sessionTtl <= 0)
    throw new MemoryError('invalid_input', 'sessionTtlSeconds must be a positive number of seconds');
  const explainTtl = options.explainTtlSeconds ?? DEFAULT_EXPLAIN_TTL_SECONDS;
  if (!Number.isFinite(explainTtl) || explainTtl <= 0 || explainTtl > MAX_EXPLAIN_TTL_SECONDS) {
    throw new MemoryError(
      'invalid_input',
      `explainTtlSeconds must be between 1 and ${MAX_EXPLAIN_TTL_SECONDS} seconds`,
    );
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
 * // reviewed: the application's ReviewedKnowledgeReader (Sponge's reads its sponge.db)
 * const store = await createMemoryStore({ url: 'file:./data/memory.db', tokenSecret, reviewed });
 * const session = await store.openSession({ ownerId, documentId, runId, pinnedRevision: await reviewed.latestRevision(documentId) });
 * const ctx = { sessionId: session.id, author: `agent:${runId}` };
 * await store.remember(ctx, { basedOn: 0, requestId: 'r-1', changes: [{ op: 'add', name: 'lead:x', text: '…' }] });
 */
export async function createMemoryStore(options: MemoryStoreOptions): Promise<MemoryStore> {
  const { sessionTtlMs, explainTtlMs } = checkOptions(options);
  const now = options.now ?? (() => new Date());
  const client = await openMemoryDatabase(
    {
      url: options.url,
      authToken: options.authToken,
      synchronous: options.synchronous,
      thread: options.thread,
    },
    now,
  );

  const ctx: StoreContext = {
    client,
    writes: createWriteQueue(client),
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

  const onRecallError = options.recall?.onBackgroundError ?? warnWhenGivenUp;
  /** A failure of background recall work after a remember: reported, never thrown at the agent. */
  const reportRecall = (error: unknown, sessionId: string) => {
    try {
      onRecallError(error, { sessionId, attempt: 1, gaveUp: true });
    } catch {
      // a throwing listener must not fail a remember that is already committed
    }
  };
  const recallIndex: RecallIndex | undefined = options.recall
    ? createRecallIndex({
        client: ctx.client,
        adapter: options.recall.adapter,
        onBackgroundError: onRecallError,
        now,
        onlyLiveNotes: true,
        // Background vectors join the notes' group commit (issue 19: shadow indexing under load).
        write: (statements) => ctx.writes.submit(statements),
        missingNotes: (sessionId, model, limit) => missingRecallNotes(sessionId, model, limit),
      })
    : undefined;
  if (recallIndex) {
    // Recall's own migrations (its vector column is sized by the adapter) run at open too, so a
    // schema problem fails the open instead of the first remember's background indexing.
    try {
      await recallIndex.init();
    } catch (error) {
      client.close();
      throw toMemoryError(error, 'migrating the recall tables');
    }
  }

  /**
   * After a successful, non-replayed remember: queue added/replaced notes, drop removed ones.
   * Never throws (the remember is committed): a failure is reported instead.
   */
  function afterRemember(agent: AgentContext, input: unknown, result: RememberResult): void {
    if (!recallIndex || result.replayed) return;
    try {
      const changes = (input as { changes: Change[] }).changes;
      const byName = new Map(changes.map((c) => [c.name, c]));
      const toIndex: RecallNote[] = [];
      const removed: string[] = [];
      for (const a of result.applied) {
        const c = byName.get(a.name);
        if (a.op === 'remove' || a.digest === null || !c || c.op === 'remove') {
          removed.push(a.name);
          continue;
        }
        toIndex.push({
          name: c.name,
          digest: a.digest,
          kind: kindOf(c.name),
          text: c.text,
          data: c.data ?? null,
          links: c.links ?? [],
        });
      }
      if (toIndex.length > 0) recallIndex.indexLater(agent.sessionId, toIndex);
      if (removed.length > 0) {
        // A vector left behind is only stale (search drops names without a current digest), so
        // another process's lock is no reason to say anything; any other failure is.
        recallIndex.remove(agent.sessionId, removed).catch((error: unknown) => {
          if (!isLockError(error)) reportRecall(error, agent.sessionId);
        });
      }
    } catch (error) {
      // Recall is derived data (the next recall catches up), but a failure here is a bug to see.
      reportRecall(error, agent.sessionId);
    }
  }

  async function currentDigests(sessionId: string): Promise<Map<string, string>> {
    const rs = await ctx.client.execute({
      sql: 'SELECT name, digest FROM notes WHERE session_id = ?',
      args: [sessionId],
    });
    return new Map(rs.rows.map((r) => [String(r.name), String(r.digest)]));
  }

  async function loadRecallNotes(sessionId: string, names: string[]): Promise<RecallNote[]> {
    const rs = await ctx.client.execute({
      sql: `SELECT name, kind, text, data, links, digest FROM notes
            WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
      args: [sessionId, JSON.stringify(names)],
    });
    return rs.rows.map(toRecallNote);
  }

  /** A session's notes with no vector at their digest under this model (background catch-up). */
  async function missingRecallNotes(sessionId: string, model: string, limit: number): Promise<RecallNote[]> {
    const rs = await ctx.client.execute({
      sql: `SELECT n.name, n.kind, n.text, n.data, n.links, n.digest FROM notes n
            LEFT JOIN ${NOTE_VECTORS_TABLE} v ON v.session_id = n.session_id AND v.name = n.name
            WHERE n.session_id = ? AND (v.name IS NULL OR v.digest <> n.digest OR v.model <> ?)
            LIMIT ?`,
      args: [sessionId, model, limit],
    });
    return rs.rows.map(toRecallNote);
  }

  function toRecallNote(r: Row): RecallNote {
    return {
      name: String(r.name),
      kind: String(r.kind),
      text: String(r.text),
      data: parseStoredData(r.data),
      links: parseStoredLinks(r.links),
      digest: String(r.digest),
    };
  }

  async function recall(
    _: StoreContext,
    agent: AgentContext,
    input: unknown,
    mode: RecallToolMode,
  ): Promise<RecallResult> {
    const session = await requireOpenSession(ctx, agent.sessionId);
    const valid = parseInput(recallInputSchema, input, 'recall input');
    if (mode === 'off') return { mode: 'off', rows: [], found: 0 };
    if (mode !== 'shadow' && mode !== 'live')
      throw new MemoryError('invalid_input', 'recall mode must be shadow, live or off');
    if (!recallIndex) return { mode, rows: [], found: 0 };
    let rows: Array<{ name: string; digest: string; score: number }>;
    try {
      const digests = await currentDigests(session.id);
      await recallIndex.catchUp(session.id, { digests, load: (names) => loadRecallNotes(session.id, names) });
      const hits = await recallIndex.search(session.id, valid.text, {
        currentDigests: digests,
        ...(valid.limit !== undefined ? { limit: valid.limit } : {}),
      });
      rows = hits.map((h) => ({ name: h.name, digest: h.digest, score: h.score }));
    } catch (error) {
      // In shadow mode the agent never sees recall, so an embedding outage must not fail the tool.
      if (mode === 'shadow' && error instanceof EmbeddingError) return { mode: 'shadow', rows: [], found: 0 };
      throw error;
    }
    await recallIndex.recordRecall(session.id, { mode, text: valid.text, results: rows });
    const found = rows.length;
    return mode === 'live' ? { mode: 'live', rows, found } : { mode: 'shadow', rows: [], found };
  }

  async function recentRecalls(_: StoreContext, sessionId: string, limit = 20): Promise<RecallRecord[]> {
    const session = await requireSession(ctx, sessionId);
    if (!recallIndex || session.state !== 'open') return [];
    const events = await recallIndex.recentRecalls(session.id, limit);
    return events.map((e) => ({
      at: e.at,
      mode: e.mode,
      results: e.results.map((h) => ({ name: h.name, digest: h.digest, score: h.score })),
    }));
  }

  async function forgetWithRecall(c: StoreContext, sessionId: string) {
    const info = await forget(c, sessionId);
    // forget already deleted the rows in its batch; this also cancels queued indexing.
    if (recallIndex && (info.state === 'forgotten' || info.state === 'purged'))
      await recallIndex.deleteSession(sessionId);
    return info;
  }

  const rememberGuarded = guarded('remember', remember);

  let closed = false;
  return {
    openSession: guarded('openSession', openSession),
    getSession: guarded('getSession', getSession),
    listSessions: guarded('listSessions', listSessions),
    getSessions: guarded('getSessions', getSessions),
    forget: guarded('forget', forgetWithRecall),
    async remember(agent, input) {
      const result = await rememberGuarded(agent, input);
      afterRemember(agent, input, result);
      return result;
    },
    recall: guarded('recall', recall),
    recentRecalls: guarded('recentRecalls', recentRecalls),
    drainRecall: () => recallIndex?.drain() ?? Promise.resolve(0),
    query: guarded('query', query),
    read: guarded('read', read),
    explain: guarded('explain', explain),
    preload: guarded('preload', preload),
    notes: guarded('notes', notes),
    reviewedInView: guarded('reviewedInView', reviewedInView),
    log: guarded('log', sessionLog),
    verify: guarded('verify', verify),
    close() {
      if (closed) return;
      closed = true;
      recallIndex?.close();
      client.close();
    },
  };
}
