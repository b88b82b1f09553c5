import type { Client, Value } from '@libsql/client';
import { readRow } from '@oh/memory';
import { documentSql, type DocumentOwner } from '@sponge/library';
import type { RunMode } from '@sponge/contract';
import { hashesEqual } from '../tokens.ts';

/** The run's document, as the library reads it, in the same statement as the run. */
const doc = documentSql('d');

type RunStatus = 'live' | 'finished';

export interface Run {
  id: string;
  documentId: string;
  ownerId: string;
  mode: RunMode;
  status: RunStatus;
  /** null when working memory is off for the run. */
  sessionId: string | null;
  acceptedAt: string;
  finishedAt: string | null;
}

const COLUMNS = 'id, document_id, owner_id, mode, status, session_id, accepted_at, finished_at';

function toRun(r: Record<string, Value>): Run {
  return {
    id: String(r.id),
    documentId: String(r.document_id),
    ownerId: String(r.owner_id),
    mode: String(r.mode) as RunMode,
    status: String(r.status) as RunStatus,
    sessionId: r.session_id === null ? null : String(r.session_id),
    acceptedAt: String(r.accepted_at),
    finishedAt: r.finished_at === null ? null : String(r.finished_at),
  };
}

/**
 * The run's owner may still use Sponge (SPEC §6c): a disabled account's runs are neither listed,
 * claimed nor opened by their tokens. Written against `runs` by name, for its UPDATEs.
 */
const OWNER_ENABLED = `EXISTS (SELECT 1 FROM users AS u WHERE u.id = runs.owner_id AND u.disabled_at IS NULL)`;

export async function insertRun(db: Client, run: Run, tokenHash: string): Promise<void> {
  await db.execute({
    sql: `INSERT INTO runs (${COLUMNS}, token_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [
      run.id,
      run.documentId,
      run.ownerId,
      run.mode,
      run.status,
      run.sessionId,
      run.acceptedAt,
      run.finishedAt,
      tokenHash,
    ],
  });
}

/**
 * A run the hosted runtime should take: a live chat run with an unanswered turn, or a live staged
 * run the agent has not spoken in yet, that no runtime's lease holds (a runtime that died after
 * its claim stops renewing, so the run comes back here when its lease lapses).
 */
export interface PendingRun {
  runId: string;
  documentId: string;
  mode: RunMode;
  waitingSince: string;
}

export async function listPendingRuns(db: Client, limit: number, now: Date): Promise<PendingRun[]> {
  // The newest message decides whether a chat run waits; runs whose document is gone or changed
  // hands, or whose owner is disabled, are left out (their tokens would be refused anyway).
  const rs = await db.execute({
    sql: `SELECT id, document_id, mode, waiting_since FROM (
            SELECT r.id, r.document_id, r.mode,
                   CASE WHEN r.mode = 'staged' THEN r.accepted_at ELSE last.at END AS waiting_since,
                   last.role AS last_role
              FROM runs AS r
              ${doc.joinLiveOwnedBy('r.document_id', 'r.owner_id')}
              JOIN users AS u ON u.id = r.owner_id AND u.disabled_at IS NULL
              LEFT JOIN transcript_messages AS last
                ON last.id = (SELECT MAX(m.id) FROM transcript_messages AS m WHERE m.run_id = r.id)
             WHERE r.status = 'live' AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= ?))
          WHERE (mode = 'staged' AND last_role IS NULL) OR (mode = 'chat' AND last_role = 'you')
          ORDER BY waiting_since, id
          LIMIT ?`,
    args: [now.toISOString(), limit],
  });
  return rs.rows.map((r) => ({
    runId: String(r.id),
    documentId: String(r.document_id),
    mode: String(r.mode) as RunMode,
    waitingSince: String(r.waiting_since),
  }));
}

/** Why a claim, a renewal or a release was refused (SPEC §7b). */
export type LeaseRefusal =
  /** Another claim holds the run (its lease until `leaseExpiresAt`, null when it let go). */
  | { kind: 'claimed'; leaseExpiresAt: string | null }
  /** No live run has that id. */
  | { kind: 'not_found' }
  /** The run's owner account is disabled: its runs are not answered. */
  | { kind: 'owner_disabled' };

/** The caller holds the run until `leaseExpiresAt`, or why not. */
export type LeaseResult = { kind: 'held'; leaseExpiresAt: string } | LeaseRefusal;

async function leaseRefusal(db: Client, runId: string): Promise<LeaseRefusal> {
  const rs = await db.execute({
    sql: `SELECT lease_expires_at, ${OWNER_ENABLED} AS owner_enabled FROM runs WHERE id = ? AND status = 'live'`,
    args: [runId],
  });
  const row = rs.rows[0];
  if (!row) return { kind: 'not_found' };
  if (Number(row.owner_enabled) !== 1) return { kind: 'owner_disabled' };
  return {
    kind: 'claimed',
    leaseExpiresAt: row.lease_expires_at === null ? null : String(row.lease_expires_at),
  };
}

/**
 * Gives a live run a fresh token and a lease until `now + leaseMs`, unless another claim's lease
 * still holds. The previous token (from accept, or an earlier claim whose lease lapsed) stops
 * working in the same statement, so of two runtimes racing for a run exactly one wins.
 * ISO-8601 strings of one format compare as the instants they name.
 */
export async function claimRun(
  db: Client,
  runId: string,
  tokenHash: string,
  now: Date,
  leaseMs: number,
): Promise<LeaseResult> {
  const leaseExpiresAt = new Date(now.getTime() + leaseMs).toISOString();
  const rs = await db.execute({
    sql: `UPDATE runs SET token_hash = ?, claimed_at = ?, lease_expires_at = ?
           WHERE id = ? AND status = 'live' AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
             AND ${OWNER_ENABLED}`,
    args: [tokenHash, now.toISOString(), leaseExpiresAt, runId, now.toISOString()],
  });
  return rs.rowsAffected === 1 ? { kind: 'held', leaseExpiresAt } : leaseRefusal(db, runId);
}

/**
 * Extends the lease of the claim whose token hashes to `tokenHash`, to `now + leaseMs`. A lapsed
 * lease nobody took over is renewed too: the token still being the run's proves no one did.
 */
export async function renewLease(
  db: Client,
  runId: string,
  tokenHash: string,
  now: Date,
  leaseMs: number,
): Promise<LeaseResult> {
  const leaseExpiresAt = new Date(now.getTime() + leaseMs).toISOString();
  const rs = await db.execute({
    sql: `UPDATE runs SET lease_expires_at = ?
           WHERE id = ? AND status = 'live' AND token_hash = ? AND ${OWNER_ENABLED}`,
    args: [leaseExpiresAt, runId, tokenHash],
  });
  return rs.rowsAffected === 1 ? { kind: 'held', leaseExpiresAt } : leaseRefusal(db, runId);
}

/**
 * Lets go of the run at once (the turn is answered, or the runtime stops): the next question in
 * it is pending again without waiting for the lease to lapse. The token keeps working until the
 * next claim revokes it.
 */
export async function releaseLease(
  db: Client,
  runId: string,
  tokenHash: string,
): Promise<{ kind: 'released' } | LeaseRefusal> {
  const rs = await db.execute({
    sql: `UPDATE runs SET lease_expires_at = NULL WHERE id = ? AND status = 'live' AND token_hash = ?`,
    args: [runId, tokenHash],
  });
  return rs.rowsAffected === 1 ? { kind: 'released' } : leaseRefusal(db, runId);
}

/**
 * The run a token opens and its document's ownership, read in one point read (`readRow`, issue 42)
 * on every agent call (agent.ts checks both), never cached: a revoked or finished run stops at once.
 * A disabled owner's run opens nothing (SPEC §6c): its token is as dead as an unknown one.
 */
export async function runByTokenHash(
  db: Client,
  tokenHash: string,
): Promise<{ run: Run; document: DocumentOwner | null } | null> {
  const r = await readRow(db, { sql: BY_TOKEN_HASH, args: [tokenHash] });
  if (!r || !hashesEqual(String(r.token_hash), tokenHash)) return null;
  return { run: toRun(r), document: doc.ownerOf(r) };
}

const BY_TOKEN_HASH = `SELECT ${COLUMNS.split(', ')
  .map((c) => `r.${c}`)
  .join(', ')}, r.token_hash, ${doc.ownerColumns}
            FROM runs AS r
            JOIN users AS u ON u.id = r.owner_id AND u.disabled_at IS NULL
            ${doc.leftJoin('r.document_id')}
           WHERE r.token_hash = ?`;

export async function getRun(db: Client, runId: string): Promise<Run | null> {
  const rs = await db.execute({ sql: `SELECT ${COLUMNS} FROM runs WHERE id = ?`, args: [runId] });
  const r = rs.rows[0];
  return r ? toRun(r) : null;
}

/** A document's runs, newest first. */
export async function listRuns(db: Client, documentId: string): Promise<Run[]> {
  const rs = await db.execute({
    sql: `SELECT ${COLUMNS} FROM runs WHERE document_id = ? ORDER BY accepted_at DESC, id DESC`,
    args: [documentId],
  });
  return rs.rows.map(toRun);
}

export async function finishRun(db: Client, runId: string, now: Date): Promise<void> {
  await db.execute({
    sql: `UPDATE runs SET status = 'finished', finished_at = ? WHERE id = ? AND status = 'live'`,
    args: [now.toISOString(), runId],
  });
}

export interface TranscriptMessage {
  role: 'you' | 'agent';
  text: string;
  at: string;
}

export async function insertMessage(db: Client, runId: string, msg: TranscriptMessage): Promise<void> {
  await db.execute({
    sql: 'INSERT INTO transcript_messages (run_id, at, role, text) VALUES (?, ?, ?, ?)',
    args: [runId, msg.at, msg.role, msg.text],
  });
}

export async function listMessages(db: Client, runId: string): Promise<TranscriptMessage[]> {
  const rs = await db.execute({
    sql: 'SELECT at, role, text FROM transcript_messages WHERE run_id = ? ORDER BY id',
    args: [runId],
  });
  return rs.rows.map((r) => ({
    at: String(r.at),
    role: String(r.role) as 'you' | 'agent',
    text: String(r.text),
  }));
}

export interface RecallEvent {
  sessionId: string;
  at: string;
  mode: 'shadow' | 'live';
  /** Rows shown to the agent (0 in shadow). */
  count: number;
  /** Similar notes the recall index found; null on a recall recorded before migration 024. */
  found: number | null;
}

export async function insertRecallEvent(db: Client, runId: string, ev: RecallEvent): Promise<void> {
  await db.execute({
    sql: 'INSERT INTO recall_events (run_id, session_id, at, mode, count, found) VALUES (?, ?, ?, ?, ?, ?)',
    args: [runId, ev.sessionId, ev.at, ev.mode, ev.count, ev.found],
  });
}

/** The run's recalls in commit order; with `afterId`, only those committed after that one. */
export async function listRecallEvents(
  db: Client,
  runId: string,
  afterId = 0,
): Promise<Array<RecallEvent & { id: number }>> {
  const rs = await db.execute({
    sql: 'SELECT id, session_id, at, mode, count, found FROM recall_events WHERE run_id = ? AND id > ? ORDER BY id',
    args: [runId, afterId],
  });
  return rs.rows.map((r) => ({
    id: Number(r.id),
    sessionId: String(r.session_id),
    at: String(r.at),
    mode: r.mode === 'live' ? 'live' : 'shadow',
    count: Number(r.count),
    found: r.found === null ? null : Number(r.found),
  }));
}
