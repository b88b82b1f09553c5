/**
 * Sessions: opening, reading, listing and forgetting (SPEC §4, §6), and a session's log as the
 * transcript's memory cards show it. The state machine itself is
 * enforced by triggers (memory-schema.ts); this module maps rows to `SessionInfo` and judges
 * `expired` with the store's clock.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Row } from '@libsql/client';
import { deleteAllStatements, sessionContentTables } from './content.ts';
import { num, str, strOrNull } from './context.ts';
import type { StoreContext } from './context.ts';
import { checkpointWal } from './db/index.ts';
import { MemoryError, isUniqueViolation } from './errors.ts';
import { parseInput } from './validation.ts';
import type { AppliedChange, LogEntry, LogRange, OpenSessionInput, SessionInfo } from './types.ts';

const SESSION_COLUMNS =
  'id, owner_id, document_id, run_id, state, version, note_count, pinned_revision, started_at, expires_at, forgotten_at, purged_at';

/** A session row as stored (state without `expired`). */
export interface SessionRow {
  id: string;
  ownerId: string;
  documentId: string;
  runId: string;
  state: 'opening' | 'open' | 'forgotten' | 'purged' | 'empty';
  version: number;
  noteCount: number;
  pinnedRevision: number;
  startedAt: string;
  expiresAt: string;
  forgottenAt: string | null;
  purgedAt: string | null;
}

function toSessionRow(row: Row): SessionRow {
  return {
    id: str(row.id),
    ownerId: str(row.owner_id),
    documentId: str(row.document_id),
    runId: str(row.run_id),
    state: str(row.state) as SessionRow['state'],
    version: num(row.version),
    noteCount: num(row.note_count),
    pinnedRevision: num(row.pinned_revision),
    startedAt: str(row.started_at),
    expiresAt: str(row.expires_at),
    forgottenAt: strOrNull(row.forgotten_at),
    purgedAt: strOrNull(row.purged_at),
  };
}

/** `expired` is not stored: it is an open session whose expiry the clock has passed. */
function isExpired(row: SessionRow, now: Date): boolean {
  return row.state === 'open' && now.toISOString() >= row.expiresAt;
}

export function toSessionInfo(row: SessionRow, now: Date): SessionInfo {
  return {
    id: row.id,
    ownerId: row.ownerId,
    documentId: row.documentId,
    runId: row.runId,
    state: isExpired(row, now) ? 'expired' : row.state,
    version: row.version,
    pinnedRevision: row.pinnedRevision,
    startedAt: row.startedAt,
    expiresAt: row.expiresAt,
    forgottenAt: row.forgottenAt,
    purgedAt: row.purgedAt,
    noteCount: row.noteCount,
  };
}

export async function loadSession(
  ctx: Pick<StoreContext, 'client'>,
  sessionId: string,
): Promise<SessionRow | null> {
  const rs = await ctx.client.execute({
    sql: `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`,
    args: [sessionId],
  });
  const row = rs.rows[0];
  return row ? toSessionRow(row) : null;
}

export async function requireSession(
  ctx: Pick<StoreContext, 'client'>,
  sessionId: string,
): Promise<SessionRow> {
  const row = await loadSession(ctx, sessionId);
  if (!row) throw new MemoryError('not_found', `no session ${JSON.stringify(sessionId)}`);
  return row;
}

/** Every session-scoped agent call starts here: open and unexpired, or `session_closed`. */
export async function requireOpenSession(ctx: StoreContext, sessionId: string): Promise<SessionRow> {
  return checkOpen(ctx, sessionId, await loadSession(ctx, sessionId));
}

export function checkOpen(ctx: StoreContext, sessionId: string, row: SessionRow | null): SessionRow {
  if (!row) throw new MemoryError('session_closed', `session ${JSON.stringify(sessionId)} does not exist`);
  const now = ctx.now();
  if (row.state !== 'open' || isExpired(row, now)) {
    const state = isExpired(row, now) ? `expired at ${row.expiresAt}` : row.state;
    throw new MemoryError('session_closed', `session ${row.id} is ${state}; it accepts no agent calls`);
  }
  return row;
}

const idText = (field: string) =>
  z.string().min(1, `${field} is required`).max(200, `${field} is at most 200 characters`);
const openSessionSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'id is 1..128 characters of A-Z a-z 0-9 . _ : -')
    .optional(),
  ownerId: idText('ownerId'),
  documentId: idText('documentId'),
  runId: idText('runId'),
  pinnedRevision: z.number().int().min(0),
});

/**
 * Inserts the session as `opening` and moves it to `open` in the same batch: if the process dies
 * between the two (remote servers apply a batch atomically too, so this is about partial
 * deployments and manual inserts), the purge worker later marks the stuck row `empty`.
 */
export async function openSession(ctx: StoreContext, input: OpenSessionInput): Promise<SessionInfo> {
  const valid = parseInput(openSessionSchema, input, 'openSession input');
  const id = valid.id ?? randomUUID();
  const now = ctx.now();
  const startedAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + ctx.sessionTtlMs).toISOString();
  try {
    await ctx.client.batch(
      [
        {
          sql: `INSERT INTO sessions (id, owner_id, document_id, run_id, state, pinned_revision, started_at, expires_at)
                VALUES (?, ?, ?, ?, 'opening', ?, ?, ?)`,
          args: [
            id,
            valid.ownerId,
            valid.documentId,
            valid.runId,
            valid.pinnedRevision,
            startedAt,
            expiresAt,
          ],
        },
        { sql: `UPDATE sessions SET state = 'open' WHERE id = ? AND state = 'opening'`, args: [id] },
      ],
      'write',
    );
  } catch (error) {
    if (isUniqueViolation(error))
      throw new MemoryError('invalid_input', `a session with id ${JSON.stringify(id)} already exists`, {
        cause: error,
      });
    throw error;
  }
  const row = await requireSession(ctx, id);
  return toSessionInfo(row, ctx.now());
}

export async function getSession(ctx: StoreContext, sessionId: string): Promise<SessionInfo | null> {
  const row = await loadSession(ctx, sessionId);
  return row ? toSessionInfo(row, ctx.now()) : null;
}

export async function listSessions(ctx: StoreContext, documentId: string): Promise<SessionInfo[]> {
  const rs = await ctx.client.execute({
    sql: `SELECT ${SESSION_COLUMNS} FROM sessions WHERE document_id = ? ORDER BY started_at DESC, id DESC`,
    args: [documentId],
  });
  const now = ctx.now();
  return rs.rows.map((r) => toSessionInfo(toSessionRow(r), now));
}

export async function getSessions(
  ctx: StoreContext,
  sessionIds: string[],
): Promise<Map<string, SessionInfo>> {
  const out = new Map<string, SessionInfo>();
  if (sessionIds.length === 0) return out;
  const rs = await ctx.client.execute({
    sql: `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id IN (SELECT value FROM json_each(?))`,
    args: [JSON.stringify([...new Set(sessionIds)])],
  });
  const now = ctx.now();
  for (const r of rs.rows) {
    const info = toSessionInfo(toSessionRow(r), now);
    out.set(info.id, info);
  }
  return out;
}

/**
 * Forget now: in ONE batch the session becomes `forgotten` (so any later write is refused by the
 * log trigger) and every row of its content goes; then the WAL is checkpointed so the content is
 * not left in the -wal file either. Forgetting a closed session returns it unchanged.
 */
export async function forget(ctx: StoreContext, sessionId: string): Promise<SessionInfo> {
  const row = await requireSession(ctx, sessionId);
  // Only an open (possibly expired) session has content to forget; opening/empty never had any,
  // and forgotten/purged are already gone.
  if (row.state !== 'open') return toSessionInfo(row, ctx.now());
  const tables = await sessionContentTables(ctx.client);
  const at = ctx.now().toISOString();
  const results = await ctx.client.batch(
    [
      {
        sql: `UPDATE sessions SET state = 'forgotten', forgotten_at = ?, note_count = 0 WHERE id = ? AND state = 'open'`,
        args: [at, sessionId],
      },
      ...deleteAllStatements(tables, sessionId),
      {
        sql: `UPDATE sessions SET content_cleared = 1 WHERE id = ? AND state = 'forgotten'`,
        args: [sessionId],
      },
    ],
    'write',
  );
  if (results[0]?.rowsAffected) await checkpointWal(ctx.client, ctx.url);
  return toSessionInfo(await requireSession(ctx, sessionId), ctx.now());
}

/**
 * Every applied remember call, oldest first: who, when, which names (for transcript cards). With
 * a range, only the entries after `afterVersion` and up to `upToVersion`: a live view that has
 * read the log once reads only what was added since.
 */
export async function sessionLog(
  ctx: StoreContext,
  sessionId: string,
  range: LogRange = {},
): Promise<LogEntry[]> {
  const session = await requireSession(ctx, sessionId);
  const rs = await ctx.client.execute({
    sql: `SELECT version, request_id, author, at, result FROM log
           WHERE session_id = ? AND version > ? AND version <= ? ORDER BY version`,
    args: [session.id, range.afterVersion ?? 0, range.upToVersion ?? Number.MAX_SAFE_INTEGER],
  });
  return rs.rows.map((row) => ({
    version: num(row.version),
    requestId: str(row.request_id),
    author: str(row.author),
    at: str(row.at),
    applied: (JSON.parse(str(row.result)) as { applied: AppliedChange[] }).applied,
  }));
}
