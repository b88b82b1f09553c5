/**
 * query, explain and preload: the agent's read tools over the question menu (SPEC §5).
 *
 * A first page fixes the answer's version V (the session's version at that moment). Its cursor
 * and its explain token carry V, the pinned revision and the page position, HMAC-signed, so
 * later pages and explanations are computed as of V however far memory has moved on.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Candidate, Conflict } from './answer-rows.ts';
import type { StoreContext } from './context.ts';
import { MemoryError } from './errors.ts';
import { numberAnswer, toQueryRows } from './conflicts.ts';
import type { Answer } from './conflicts.ts';
import { computeAnswer, conflictGraph, computePage, positionSchema } from './questions.ts';
import type { AsOf, Position, QuestionParams } from './questions.ts';
import { shortDigest } from './records.ts';
import { describeMark } from './reviewed-marks.ts';
import { LIMITS, explainInputSchema, queryInputSchema } from '@oh/schema';
import { requireOpenSession } from './sessions.ts';
import type { SessionRow } from './sessions.ts';
import { signToken, verifyToken } from './tokens.ts';
import { parseInput } from './validation.ts';
import { QUESTIONS } from './types.ts';
import type { AgentContext, ExplainResult, Preload, QueryAnswer } from './types.ts';

const cursorPayload = z.strictObject({
  sid: z.string(),
  q: z.enum(QUESTIONS),
  n: z.string().nullable(),
  sv: z.number().int().nullable(),
  v: z.number().int().min(0),
  rev: z.number().int().min(0),
  pos: positionSchema,
});
type CursorPayload = z.infer<typeof cursorPayload>;

const explainPayload = cursorPayload.extend({
  aid: z.string(),
  lim: z.number().int().min(1).max(LIMITS.queryLimitMax),
  exp: z.number().int(),
});
type ExplainPayload = z.infer<typeof explainPayload>;

async function asOf(
  ctx: StoreContext,
  session: SessionRow,
  version: number,
  revision: number,
): Promise<AsOf> {
  return {
    sessionId: session.id,
    version,
    pinnedRevision: revision,
    view: await ctx.reviewed.get(session.documentId, revision),
  };
}

export async function query(ctx: StoreContext, agent: AgentContext, input: unknown): Promise<QueryAnswer> {
  const valid = parseInput(queryInputSchema, input, 'query input');
  const session = await requireOpenSession(ctx, agent.sessionId);
  const params: QuestionParams = {
    question: valid.question,
    name: valid.name ?? null,
    sinceVersion: valid.sinceVersion ?? null,
  };
  let version = session.version;
  let revision = session.pinnedRevision;
  let pos: Position = null;
  if (valid.cursor !== undefined) {
    const cursor = readCursor(ctx, valid.cursor);
    if (cursor.sid !== session.id)
      throw new MemoryError('invalid_input', 'cursor belongs to another session');
    if (cursor.q !== params.question || cursor.n !== params.name || cursor.sv !== params.sinceVersion) {
      throw new MemoryError(
        'invalid_input',
        `cursor belongs to another question; send the same question, name and sinceVersion as the first page (${cursor.q})`,
      );
    }
    ({ v: version, rev: revision, pos } = cursor);
  }
  const limit = valid.limit ?? LIMITS.queryLimitDefault;
  const at = await asOf(ctx, session, version, revision);
  const { answer, next } = await computeAnswer(ctx, at, params, pos, limit);

  const base: CursorPayload = {
    sid: session.id,
    q: params.question,
    n: params.name,
    sv: params.sinceVersion,
    v: version,
    rev: revision,
    pos,
  };
  const answerId = randomBytes(12).toString('base64url');
  const expiresAt = new Date(ctx.now().getTime() + ctx.explainTtlMs);
  const explainToken = signToken(ctx.tokenSecret, 'explain', {
    ...base,
    aid: answerId,
    lim: limit,
    exp: expiresAt.getTime(),
  } satisfies ExplainPayload);
  return {
    answerId,
    version,
    pinnedRevision: revision,
    rows: toQueryRows(answer),
    nextCursor:
      next === null
        ? null
        : signToken(ctx.tokenSecret, 'cursor', { ...base, pos: next } satisfies CursorPayload),
    explainToken,
    explainExpiresAt: expiresAt.toISOString(),
  };
}

function readCursor(ctx: StoreContext, cursor: string): CursorPayload {
  const parsed = cursorPayload.safeParse(verifyToken(ctx.tokenSecret, 'cursor', cursor));
  if (!parsed.success)
    throw new MemoryError(
      'invalid_input',
      'cursor is not one this store issued (or it was altered); start again without a cursor',
    );
  return parsed.data;
}

/**
 * current_notes on the agent's behalf at load: at most 24 rows and at most 4,000 characters of
 * `JSON.stringify(rows)`. A conflict is never split: a row and its appended counterpart go in or
 * out together, because the longest prefix of the page that fits is chosen with its counterparts.
 */
export async function preload(ctx: StoreContext, agent: AgentContext): Promise<Preload> {
  const session = await requireOpenSession(ctx, agent.sessionId);
  const at = await asOf(ctx, session, session.version, session.pinnedRevision);
  const page = await computePage(
    ctx,
    at,
    { question: 'current_notes', name: null, sinceVersion: null },
    null,
    LIMITS.preloadRows,
  );
  const graph = await conflictGraph(ctx, at, page.rows);
  for (let take = page.rows.length; take >= 0; take--) {
    const answer = numberAnswer(graph, take);
    const rows = toQueryRows(answer);
    if (rows.length <= LIMITS.preloadRows && JSON.stringify(rows).length <= LIMITS.preloadChars) {
      return { rows, truncated: take < page.rows.length || page.next !== null };
    }
  }
  return { rows: [], truncated: page.rows.length > 0 };
}

export async function explain(
  ctx: StoreContext,
  agent: AgentContext,
  input: unknown,
): Promise<ExplainResult> {
  const valid = parseInput(explainInputSchema, input, 'explain input');
  const session = await requireOpenSession(ctx, agent.sessionId);
  const parsed = explainPayload.safeParse(verifyToken(ctx.tokenSecret, 'explain', valid.token));
  if (!parsed.success)
    throw new MemoryError(
      'explain_token_invalid',
      'the explain token is not one this store issued, or it was altered',
    );
  const token = parsed.data;
  if (token.sid !== session.id)
    throw new MemoryError('explain_token_invalid', 'the explain token belongs to another session');
  if (ctx.now().getTime() >= token.exp) {
    throw new MemoryError(
      'explain_token_invalid',
      `the explain token expired at ${new Date(token.exp).toISOString()}; ask the question again`,
    );
  }
  const params: QuestionParams = { question: token.q, name: token.n, sinceVersion: token.sv };
  const at = await asOf(ctx, session, token.v, token.rev);
  const { answer } = await computeAnswer(ctx, at, params, token.pos, token.lim);
  const row = answer.rows[valid.row];
  if (!row) {
    const has =
      answer.rows.length === 0 ? 'no rows' : `${answer.rows.length} rows (0..${answer.rows.length - 1})`;
    throw new MemoryError('invalid_input', `row ${valid.row} is out of range: that answer has ${has}`);
  }
  const { reason, path } = describe(at, params, answer, valid.row, row);
  return {
    row: valid.row,
    name: row.name,
    source: row.source,
    question: params.question,
    reason,
    path,
    basis: { version: at.version, pinnedRevision: at.pinnedRevision },
  };
}

// ---------------------------------------------------------------------------------------------
// Sentences for people

function describe(
  at: AsOf,
  params: QuestionParams,
  answer: Answer,
  index: number,
  row: Candidate,
): { reason: string; path: string[] } {
  const why = row.why;
  switch (why.t) {
    case 'note': {
      const verb = why.op === 'add' ? 'added' : 'last changed';
      return {
        reason: `${row.name} is a working note at version ${at.version}, ${verb} at version ${why.version} by ${why.author}`,
        path: [row.name],
      };
    }
    case 'reviewed':
      return {
        reason: `${row.name} is reviewed knowledge at revision ${at.pinnedRevision} (accepted at revision ${why.record.revision} by ${why.record.reviewerId}, citing ${why.record.sourceDocumentId})`,
        path: [row.name],
      };
    case 'link': {
      const asked = params.name ?? '';
      const side = why.from === asked ? `${asked} links to it` : `it links to ${asked}`;
      return {
        reason: `${why.from} has a ${why.rel} link to ${why.to} at version ${at.version} (${side}; ${row.name} is ${sourceLabel(row)})`,
        path: [why.from, why.rel, why.to],
      };
    }
    case 'conflict':
      return conflictSentence(at, why.conflict);
    case 'changed': {
      const verb = why.op === 'add' ? 'added' : why.op === 'replace' ? 'replaced' : 'removed';
      return {
        reason: `${row.name} was ${verb} at version ${why.version} by ${why.author}, after version ${why.since} (answer at version ${at.version})`,
        path: [row.name],
      };
    }
    case 'counterpart': {
      // Name the page row that brought it in (a counterpart's first partner on the page).
      const marks = answer.conflicts[index] ?? [];
      const at0 = Math.max(
        0,
        marks.findIndex((n) => n < answer.primaryCount),
      );
      const partner = marks[at0];
      const conflict = answer.conflictReasons[index]?.[at0];
      if (partner === undefined || conflict === undefined)
        return { reason: `${row.name} is shown as the counterpart of a conflict`, path: [row.name] };
      const sentence = conflictSentence(at, conflict);
      return {
        reason: `${row.name} (${sourceLabel(row)}) is shown because it conflicts with row ${partner} (${answer.rows[partner]!.name}): ${sentence.reason}`,
        path: sentence.path,
      };
    }
  }
}

function sourceLabel(row: { source: 'note' | 'reviewed' }): string {
  return row.source === 'note' ? 'a working note' : 'reviewed knowledge';
}

function conflictSentence(at: AsOf, conflict: Conflict): { reason: string; path: string[] } {
  if (conflict.t === 'digest') {
    return {
      reason: `${conflict.name} is a working note (digest ${shortDigest(conflict.noteDigest)}) at version ${at.version} and reviewed knowledge (digest ${shortDigest(conflict.reviewedDigest)}) at revision ${at.pinnedRevision} with different content`,
      path: [conflict.name, 'differs_from', conflict.name],
    };
  }
  // A correction or retraction in view touching a reviewed record (issue 18).
  if (conflict.t === 'revised') return describeMark(conflict.from.name, conflict.mark);
  return {
    reason: `${conflict.from.name} (${sourceLabel(conflict.from)}) has a contradicts link to ${conflict.to.name} (${sourceLabel(conflict.to)})`,
    path: [conflict.from.name, 'contradicts', conflict.to.name],
  };
}
