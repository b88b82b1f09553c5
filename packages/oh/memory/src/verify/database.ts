/**
 * The operator's handle on a memory database (the `verify` command): list sessions, verify each
 * against its log (verify.ts), and repair what is derived.
 *
 * `repair` rebuilds only copies: notes (the log's projection), link_index, the note count of an
 * open session and recall vectors, from the log and the notes. It never writes the log, the change
 * history or a tombstone; a finding there stays a finding. It refuses to rebuild from a log that
 * fails its own checks. Every write is ONE batch guarded by the session's state and version, so a
 * remember that commits meanwhile (another process) makes the repair a no-op instead of undoing it.
 */
import type { Client, InStatement } from '@libsql/client';
import { num, str } from '../context.ts';
import { MemoryError, toMemoryError } from '../errors.ts';
import { openMemoryDatabase } from '../memory-schema.ts';
import {
  canonicalData,
  canonicalJson,
  digestInput,
  kindOf,
  parseStoredData,
  parseStoredLinks,
} from '../records.ts';
import { NOTE_VECTORS_TABLE, createRecallIndex } from '../recall/index.ts';
import type { EmbeddingAdapter } from '@oh/embeddings';
import type { RecallIndex } from '../recall/index.ts';
import { inspect } from './session.ts';
import type { RepairPlan, ReplayedNote, SessionVerification, VerifyContext } from './session.ts';
import type { Change } from '../types.ts';

export interface VerifierOptions {
  /** The memory database, as for `createMemoryStore`. */
  url: string;
  authToken?: string;
  now?: () => Date;
  /** The API's embedding adapter: vectors are compared with it and rebuilt by it. Without it, vectors of open sessions are not checked. */
  recall?: { adapter: EmbeddingAdapter };
}

export interface RepairReport {
  sessionId: string;
  /** Rows written or deleted, per table (`sessions` is the note count). */
  rebuilt: { notes: number; link_index: number; sessions: number; note_vectors: number };
  /** Why nothing (more) was rebuilt, or null. */
  skipped: string | null;
}

export interface MemoryVerifier {
  /** Session ids in id order: up to `limit` after `after` (page through them for a whole database). */
  sessionIds(after?: string, limit?: number): Promise<string[]>;
  /** Replays the session's log and compares everything derived from it. */
  verify(sessionId: string): Promise<SessionVerification>;
  /** Rebuilds the derived rows `verify` finds wrong; run `verify` again to confirm. */
  repair(sessionId: string): Promise<RepairReport>;
  close(): void;
}

/**
 * Opens a memory database for verification (migrating it as the store does).
 *
 * @example
 * const verifier = await openVerifier({ url: 'file:./data/memory.db', recall: { adapter } });
 * for (const id of await verifier.sessionIds()) if (!(await verifier.verify(id)).ok) await verifier.repair(id);
 */
export async function openVerifier(options: VerifierOptions): Promise<MemoryVerifier> {
  const now = options.now ?? (() => new Date());
  const client = await openMemoryDatabase({ url: options.url, authToken: options.authToken }, now);
  const ctx: VerifyContext = { client, now };
  const adapter = options.recall?.adapter;
  // Created on the first repair only: its init may create (or, for another dimension, recreate) the vector table.
  let recallIndex: RecallIndex | undefined;
  const guarded =
    <A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        throw toMemoryError(error, what);
      }
    };
  return {
    sessionIds: guarded('sessionIds', async (after = '', limit = 500) => {
      const rs = await client.execute({
        sql: 'SELECT id FROM sessions WHERE id > ? ORDER BY id LIMIT ?',
        args: [after, limit],
      });
      return rs.rows.map((r) => str(r.id));
    }),
    verify: guarded(
      'verify',
      async (sessionId: string) => (await inspect(ctx, sessionId, adapter ? { recall: adapter } : {})).report,
    ),
    repair: guarded('repair', async (sessionId: string) => {
      const { plan } = await inspect(ctx, sessionId, adapter ? { recall: adapter } : {});
      if (adapter && plan?.state === 'open' && (plan.vectorsBehind || plan.wrongVectors.length > 0)) {
        recallIndex ??= createRecallIndex({ client, adapter, now, onlyLiveNotes: true });
      }
      return repair(client, sessionId, plan, recallIndex);
    }),
    close() {
      recallIndex?.close();
      client.close();
    },
  };
}

/** Carries out a plan from `inspect` (exported for tests; the surface is `MemoryVerifier.repair`). */
export async function repair(
  client: Client,
  sessionId: string,
  plan: RepairPlan | null,
  recall: RecallIndex | undefined,
): Promise<RepairReport> {
  const report: RepairReport = {
    sessionId,
    rebuilt: { notes: 0, link_index: 0, sessions: 0, note_vectors: 0 },
    skipped: null,
  };
  if (!plan)
    return { ...report, skipped: 'the session kept changing while it was inspected; run repair again' };
  if (plan.state !== 'open') {
    await clearClosed(client, sessionId, plan, report);
    return report;
  }
  if (!plan.logSound)
    return { ...report, skipped: 'the log or its history fails its own checks: nothing is rebuilt from it' };

  const guard = `EXISTS (SELECT 1 FROM sessions WHERE id = ? AND state = 'open' AND version = ?)`;
  const g = [sessionId, plan.version];
  // Each statement, and the table whose rebuilt count its affected rows add to (deleting a row
  // that is written again right after is not counted twice).
  const steps: Array<{ statement: InStatement; counts?: 'notes' | 'link_index' | 'sessions' }> = [];
  const inNames = (names: string[]): InStatement => ({
    sql: `DELETE FROM notes WHERE session_id = ? AND name IN (SELECT value FROM json_each(?)) AND ${guard}`,
    args: [sessionId, JSON.stringify(names), ...g],
  });
  if (plan.dropNotes.length > 0) steps.push({ statement: inNames(plan.dropNotes), counts: 'notes' });
  if (plan.putNotes.length > 0) steps.push({ statement: inNames(plan.putNotes.map((n) => n.name)) });
  const rows = await noteRows(client, sessionId, plan.putNotes);
  for (let i = 0; i < rows.length; i += 500) {
    steps.push({
      counts: 'notes',
      statement: {
        sql: `INSERT INTO notes (session_id, name, kind, text, data, links, digest, author, created_at, updated_at, version, seq, created_version)
              SELECT ?, json_extract(j.value, '$.name'), json_extract(j.value, '$.kind'), json_extract(j.value, '$.text'), json_extract(j.value, '$.data'), json_extract(j.value, '$.links'),
                     json_extract(j.value, '$.digest'), json_extract(j.value, '$.author'), json_extract(j.value, '$.createdAt'), json_extract(j.value, '$.updatedAt'),
                     json_extract(j.value, '$.version'), json_extract(j.value, '$.seq'), json_extract(j.value, '$.createdVersion')
                FROM json_each(?) AS j WHERE ${guard}`,
        args: [sessionId, JSON.stringify(rows.slice(i, i + 500)), ...g],
      },
    });
  }
  const rewritten = new Set(plan.putLinks.map((l) => `${l.version}/${l.seq}/${l.idx}`));
  const inKeys = (keys: RepairPlan['dropLinks']): InStatement => ({
    sql: `DELETE FROM link_index WHERE session_id = ?
             AND (version, seq, idx) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?)) AND ${guard}`,
    args: [sessionId, JSON.stringify(keys), ...g],
  });
  const extra = plan.dropLinks.filter(([v, q, i]) => !rewritten.has(`${v}/${q}/${i}`));
  const replaced = plan.dropLinks.filter(([v, q, i]) => rewritten.has(`${v}/${q}/${i}`));
  if (extra.length > 0) steps.push({ statement: inKeys(extra), counts: 'link_index' });
  if (replaced.length > 0) steps.push({ statement: inKeys(replaced) });
  for (let i = 0; i < plan.putLinks.length; i += 500) {
    steps.push({
      counts: 'link_index',
      statement: {
        sql: `INSERT INTO link_index (session_id, version, seq, idx, from_name, rel, to_name)
              SELECT ?, json_extract(value, '$.version'), json_extract(value, '$.seq'), json_extract(value, '$.idx'), json_extract(value, '$.from'), json_extract(value, '$.rel'), json_extract(value, '$.to')
                FROM json_each(?) WHERE ${guard}`,
        args: [sessionId, JSON.stringify(plan.putLinks.slice(i, i + 500)), ...g],
      },
    });
  }
  if (steps.length > 0 || plan.noteCount) {
    const count = '(SELECT COUNT(*) FROM notes WHERE session_id = ?)';
    steps.push({
      counts: 'sessions',
      statement: {
        sql: `UPDATE sessions SET note_count = ${count} WHERE id = ? AND state = 'open' AND version = ? AND note_count <> ${count}`,
        args: [sessionId, sessionId, plan.version, sessionId],
      },
    });
    const results = await client.batch(
      [
        ...steps.map((s) => s.statement),
        { sql: 'SELECT version, state FROM sessions WHERE id = ?', args: [sessionId] },
      ],
      'write',
    );
    const after = results[results.length - 1]?.rows[0];
    if (num(after?.version) !== plan.version || str(after?.state) !== 'open') {
      return {
        ...report,
        skipped:
          'an agent wrote to the session before the repair could: nothing was changed; run repair again',
      };
    }
    for (const [i, step] of steps.entries())
      if (step.counts) report.rebuilt[step.counts] += results[i]?.rowsAffected ?? 0;
  }
  if (recall && (plan.vectorsBehind || plan.wrongVectors.length > 0))
    report.rebuilt.note_vectors = await rebuildVectors(client, sessionId, plan, recall);
  return report;
}

/** The notes table rows of these replayed notes, their content read back from the log entries holding it. */
async function noteRows(
  client: Client,
  sessionId: string,
  notes: ReplayedNote[],
): Promise<Array<Record<string, unknown>>> {
  if (notes.length === 0) return [];
  const versions = [...new Set(notes.map((n) => n.version))];
  const ops = new Map<number, Change[]>();
  for (let i = 0; i < versions.length; i += 500) {
    const rs = await client.execute({
      sql: 'SELECT version, ops FROM log WHERE session_id = ? AND version IN (SELECT value FROM json_each(?))',
      args: [sessionId, JSON.stringify(versions.slice(i, i + 500))],
    });
    for (const r of rs.rows) ops.set(num(r.version), JSON.parse(str(r.ops)) as Change[]);
  }
  return notes.map((n) => {
    const change = ops.get(n.version)?.[n.seq];
    if (!change || change.op === 'remove' || change.name !== n.name) {
      throw new MemoryError(
        'integrity',
        `log entry ${n.version} no longer holds ${n.name} as change ${n.seq}`,
      );
    }
    const content = digestInput({
      kind: kindOf(n.name),
      name: n.name,
      text: change.text,
      data: change.data,
      links: change.links,
    });
    return {
      name: n.name,
      kind: n.kind,
      text: content.text,
      data: canonicalData(content.data),
      links: canonicalJson(content.links),
      digest: n.digest,
      author: n.author,
      createdAt: n.createdAt,
      updatedAt: n.updatedAt,
      version: n.version,
      seq: n.seq,
      createdVersion: n.createdVersion,
    };
  });
}

/** Drops vectors not computed from their note's content, then catches up whatever is missing, stale or orphaned. */
async function rebuildVectors(
  client: Client,
  sessionId: string,
  plan: RepairPlan,
  recall: RecallIndex,
): Promise<number> {
  let changed = 0;
  if (plan.wrongVectors.length > 0) {
    const rs = await client.execute({
      sql: `DELETE FROM ${NOTE_VECTORS_TABLE} WHERE session_id = ?
               AND (name, digest) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
      args: [sessionId, JSON.stringify(plan.wrongVectors)],
    });
    changed += rs.rowsAffected;
  }
  const current = await client.execute({
    sql: 'SELECT name, digest FROM notes WHERE session_id = ?',
    args: [sessionId],
  });
  const digests = new Map(current.rows.map((r) => [str(r.name), str(r.digest)]));
  const { indexed, removed } = await recall.catchUp(sessionId, {
    digests,
    async load(names) {
      const rs = await client.execute({
        sql: `SELECT name, kind, text, data, links, digest FROM notes WHERE session_id = ? AND name IN (SELECT value FROM json_each(?))`,
        args: [sessionId, JSON.stringify(names)],
      });
      return rs.rows.map((r) => ({
        name: str(r.name),
        kind: str(r.kind),
        text: str(r.text),
        data: parseStoredData(r.data),
        links: parseStoredLinks(r.links),
        digest: str(r.digest),
      }));
    },
  });
  return changed + indexed + removed;
}

/** A closed session: its derived rows go (history and records are the purge worker's to delete). */
async function clearClosed(
  client: Client,
  sessionId: string,
  plan: RepairPlan,
  report: RepairReport,
): Promise<void> {
  if (plan.closedTables.length === 0) return;
  const results = await client.batch(
    plan.closedTables.map((table) => ({
      sql: `DELETE FROM ${table} WHERE session_id = ? AND EXISTS (SELECT 1 FROM sessions WHERE id = ? AND state = ?)`,
      args: [sessionId, sessionId, plan.state],
    })),
    'write',
  );
  for (const [i, table] of plan.closedTables.entries()) {
    const key = table as keyof RepairReport['rebuilt'];
    report.rebuilt[key] += results[i]?.rowsAffected ?? 0;
  }
}
