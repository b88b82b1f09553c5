/**
 * remember(basedOn, requestId, changes): the only way working notes change (SPEC §4, §5).
 *
 * One call is ONE `client.batch([...], 'write')`: the log row, one `note_changes` row per change
 * and, when the call carries links, a final link check. The database triggers decide; this
 * module validates, prepares the rows, and turns a refused batch into the right MemoryError.
 * No interactive transaction is used, so the same code is correct on a remote libSQL server.
 */
import type { InStatement } from '@libsql/client';
import { num, str } from './context.ts';
import type { StoreContext } from './context.ts';
import { MemoryError, raisedReason, toMemoryError } from './errors.ts';
import { canonicalData, canonicalJson, digestInput, kindOf, sha256Hex } from './records.ts';
import { checkOpen, loadSession, requireOpenSession, requireSession } from './sessions.ts';
import type { SessionRow } from './sessions.ts';
import { rememberInputOf } from './validation.ts';
import type { AgentContext, AppliedChange, Change, RememberResult } from './types.ts';

interface PreparedChange {
  seq: number;
  change: Change;
  kind: string;
  text: string | null;
  data: string | null;
  links: string;
  digest: string | null;
}

/** Apply order inside the batch: removes free quota first. Names are distinct, so order within a call does not change the outcome. */
const APPLY_ORDER: Record<Change['op'], number> = { remove: 0, replace: 1, add: 2 };

export async function remember(
  ctx: StoreContext,
  agent: AgentContext,
  input: unknown,
): Promise<RememberResult> {
  const valid = rememberInputOf(input);
  if (typeof agent.author !== 'string' || agent.author.length === 0) {
    throw new MemoryError('invalid_input', 'the agent context has no author');
  }
  const changes = valid.changes;
  const prepared = prepareChanges(changes);
  // Canonical, so a retry that merely orders keys differently is still "the identical payload".
  const ops = canonicalJson(changes);
  const requestHash = requestHashOf(valid.basedOn, ops);

  // No read first: the batch itself is the check. The log row's trigger refuses a closed, expired
  // or unknown session and a stale basedOn; a reused request id fails its UNIQUE constraint or
  // the version check, and only then is the earlier call looked up (settleRefusal).
  const sessionId = agent.sessionId;
  const version = valid.basedOn + 1;
  const at = ctx.now().toISOString();
  const applied: AppliedChange[] = prepared.map((p) => ({
    op: p.change.op,
    name: p.change.name,
    digest: p.digest,
  }));
  const result = { version, applied };

  // All changes in ONE multi-row INSERT, so one cached statement per change count; the triggers
  // fire per row, in VALUES order (removes first, see APPLY_ORDER).
  const ordered = [...prepared].sort(
    (a, b) => APPLY_ORDER[a.change.op] - APPLY_ORDER[b.change.op] || a.seq - b.seq,
  );
  const statements: InStatement[] = [
    {
      sql: `INSERT INTO log (session_id, version, request_id, request_hash, author, at, ops, result)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      args: [sessionId, version, valid.requestId, requestHash, agent.author, at, ops, canonicalJson(result)],
    },
    {
      sql: `INSERT INTO note_changes (session_id, version, seq, op, name, kind, text, data, links, digest, author, at)
            VALUES ${ordered.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      args: ordered.flatMap((p) => [
        sessionId,
        version,
        p.seq,
        p.change.op,
        p.change.name,
        p.kind,
        p.text,
        p.data,
        p.links,
        p.digest,
        agent.author,
        at,
      ]),
    },
  ];

  const targets = linkTargets(changes);
  if (targets.size > 0) {
    // Reviewed targets are resolved here against the pinned revision (immutable), which needs the
    // session; note targets are checked by the database after the whole call applied.
    const session = await requireOpenSession(ctx, sessionId);
    const view = await ctx.reviewed.get(session.documentId, session.pinnedRevision);
    const reviewedTargets = [...targets].filter((t) => view.byName.has(t));
    statements.push({
      sql: 'INSERT INTO call_checks (session_id, version, reviewed_targets) VALUES (?, ?, ?)',
      args: [sessionId, version, JSON.stringify(reviewedTargets)],
    });
  }

  try {
    await ctx.writes.submit(statements);
    return { version, applied, replayed: false };
  } catch (error) {
    const outcome = await settleRefusal(ctx, sessionId, valid.requestId, requestHash, changes, error);
    if (outcome instanceof MemoryError) throw outcome;
    return outcome;
  }
}

/**
 * sha256 of the canonical JSON of `{ basedOn, changes }`, built around the changes' canonical JSON
 * already made (`ops`) instead of canonicalising them a second time (issue 42): the keys sort
 * `basedOn` before `changes`, so the text is the same, and so is every stored request hash.
 */
export function requestHashOf(basedOn: number, ops: string): string {
  return sha256Hex(`{"basedOn":${canonicalJson(basedOn)},"changes":${ops}}`);
}

function prepareChanges(changes: Change[]): PreparedChange[] {
  return changes.map((change, seq) => {
    const kind = kindOf(change.name);
    if (change.op === 'remove')
      return { seq, change, kind, text: null, data: null, links: '[]', digest: null };
    // libSQL stores U+0000 but its driver reads text only up to it, so such a note could never be
    // read back intact (its digest would fail): refuse it up front.
    if (change.text.includes('\u0000')) {
      throw new MemoryError(
        'invalid_input',
        `changes[${seq}].text cannot contain the NUL character (U+0000)`,
      );
    }
    const data = canonicalData(change.data, `changes[${seq}].data`);
    const content = digestInput({
      kind,
      name: change.name,
      text: change.text,
      data: change.data,
      links: change.links,
    });
    let digest: string;
    try {
      digest = sha256Hex(canonicalJson(content));
    } catch (error) {
      throw new MemoryError(
        'invalid_input',
        `changes[${seq}] cannot be canonicalised: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return { seq, change, kind, text: change.text, data, links: canonicalJson(content.links), digest };
  });
}

function linkTargets(changes: Change[]): Set<string> {
  const targets = new Set<string>();
  for (const c of changes) if (c.op !== 'remove') for (const l of c.links ?? []) targets.add(l.to);
  return targets;
}

interface StoredRequest {
  requestHash: string;
  result: { version: number; applied: AppliedChange[] };
}

async function findRequest(
  ctx: StoreContext,
  sessionId: string,
  requestId: string,
): Promise<StoredRequest | null> {
  const rs = await ctx.client.execute({
    sql: 'SELECT request_hash, result FROM log WHERE session_id = ? AND request_id = ?',
    args: [sessionId, requestId],
  });
  const row = rs.rows[0];
  if (!row) return null;
  return {
    requestHash: str(row.request_hash),
    result: JSON.parse(str(row.result)) as StoredRequest['result'],
  };
}

function answerRepeat(earlier: StoredRequest, requestHash: string, requestId: string): RememberResult {
  if (earlier.requestHash !== requestHash) {
    throw new MemoryError(
      'request_id_reused',
      `requestId ${JSON.stringify(requestId)} was already used with a different payload (at version ${earlier.result.version}); use a new requestId`,
    );
  }
  const applied = earlier.result.applied.map((a) => ({ op: a.op, name: a.name, digest: a.digest }));
  return { version: earlier.result.version, applied, replayed: true };
}

/**
 * The batch was refused. A closed, expired or unknown session is said as such (checkOpen's words)
 * before anything else, as if it had been read first. Then: was this request id used before
 * (a retry, or a concurrent identical call that won: a replay; another payload: refused)?
 * Otherwise map the trigger's reason and say, for a person, which change or link was at fault.
 */
async function settleRefusal(
  ctx: StoreContext,
  sessionId: string,
  requestId: string,
  requestHash: string,
  changes: Change[],
  error: unknown,
): Promise<RememberResult | MemoryError> {
  const raised = raisedReason(error);
  if (raised?.reason === 'session_closed') {
    try {
      checkOpen(ctx, sessionId, await loadSession(ctx, sessionId));
    } catch (closed) {
      return toMemoryError(closed);
    }
    // Not reachable in practice (a session never reopens and the clock only moves on): report the refusal as raised.
    return toMemoryError(error, 'remember');
  }
  let earlier: StoredRequest | null = null;
  try {
    earlier = await findRequest(ctx, sessionId, requestId);
  } catch {
    // Could not look: report the original refusal below.
  }
  if (earlier) {
    try {
      return answerRepeat(earlier, requestHash, requestId);
    } catch (refusal) {
      return toMemoryError(refusal);
    }
  }
  if (!raised) return toMemoryError(error, 'remember');
  switch (raised.reason) {
    case 'stale_version': {
      const current = await currentVersion(ctx, sessionId);
      return new MemoryError(
        'stale_version',
        `memory is at version ${current}, not the basedOn given; read it again and retry with basedOn ${current}`,
        {
          currentVersion: current,
          cause: error,
        },
      );
    }
    case 'name_exists': {
      const existing = await existingNames(
        ctx,
        sessionId,
        changes.filter((c) => c.op === 'add').map((c) => c.name),
      );
      const names = existing.length ? existing.join(', ') : 'a note added';
      return new MemoryError(
        'name_exists',
        `${names} already exists; nothing was written (use replace to change a note)`,
        { cause: error },
      );
    }
    case 'no_such_note': {
      return new MemoryError(
        'no_such_note',
        await describeMissing(ctx, await requireSession(ctx, sessionId), changes),
        { cause: error },
      );
    }
    default:
      return toMemoryError(error, 'remember');
  }
}

async function currentVersion(ctx: StoreContext, sessionId: string): Promise<number> {
  const rs = await ctx.client.execute({
    sql: 'SELECT version FROM sessions WHERE id = ?',
    args: [sessionId],
  });
  return num(rs.rows[0]?.version);
}

async function existingNames(ctx: StoreContext, sessionId: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rs = await ctx.client.execute({
    sql: 'SELECT name FROM notes WHERE session_id = ? AND name IN (SELECT value FROM json_each(?)) ORDER BY name',
    args: [sessionId, JSON.stringify(names)],
  });
  return rs.rows.map((r) => str(r.name));
}

/** Which replace/remove named a missing note, or which link had no target. */
async function describeMissing(ctx: StoreContext, session: SessionRow, changes: Change[]): Promise<string> {
  const touched = changes.filter((c) => c.op !== 'add').map((c) => c.name);
  const present = new Set(await existingNames(ctx, session.id, touched));
  const missing = touched.filter((n) => !present.has(n));
  if (missing.length > 0)
    return `no note named ${missing.join(', ')} to replace or remove; nothing was written`;

  // Otherwise a link: a target that is neither a note after this call nor reviewed in view.
  const afterCall = new Set(await existingNames(ctx, session.id, [...linkTargets(changes)]));
  for (const c of changes) {
    if (c.op === 'remove') afterCall.delete(c.name);
    else afterCall.add(c.name);
  }
  const view = await ctx.reviewed.get(session.documentId, session.pinnedRevision);
  for (const c of changes) {
    if (c.op === 'remove') continue;
    const bad = (c.links ?? []).find((l) => !afterCall.has(l.to) && !view.byName.has(l.to));
    if (bad)
      return `${c.name} links (${bad.rel}) to ${bad.to}, which is neither a note once this call applies nor a reviewed record in view; nothing was written`;
  }
  return 'a change names a note that does not exist; nothing was written';
}
