/**
 * The log is the truth; notes are its projection (SPEC §4). `verify` replays a session's log from
 * version 1 in JavaScript, independently of the triggers that built the projection, and compares
 * the result digest by digest with the notes table. `log` serves the transcript's memory cards.
 */
import { num, str } from './context.ts';
import type { StoreContext } from './context.ts';
import { kindOf, parseStoredData, parseStoredLinks, recordDigest } from './records.ts';
import { requireSession } from './sessions.ts';
import type { AppliedChange, Change, LogEntry, VerifyReport } from './types.ts';

const PAGE = 500;

export async function verify(ctx: StoreContext, sessionId: string): Promise<VerifyReport> {
  const session = await requireSession(ctx, sessionId);
  const problems: string[] = [];
  const replayed = new Map<string, string>();
  let logEntries = 0;
  let expected = 1;

  for (let after = 0; ; ) {
    const rs = await ctx.client.execute({
      sql: 'SELECT version, ops FROM log WHERE session_id = ? AND version > ? ORDER BY version LIMIT ?',
      args: [session.id, after, PAGE],
    });
    for (const row of rs.rows) {
      const version = num(row.version);
      if (version !== expected) problems.push(`log jumps from version ${expected - 1} to ${version}`);
      expected = version + 1;
      logEntries++;
      for (const change of JSON.parse(str(row.ops)) as Change[]) {
        const exists = replayed.has(change.name);
        if (change.op === 'add' && exists) problems.push(`version ${version} adds ${change.name}, which already existed`);
        if (change.op !== 'add' && !exists) problems.push(`version ${version} ${change.op}s ${change.name}, which did not exist`);
        if (change.op === 'remove') replayed.delete(change.name);
        else replayed.set(change.name, recordDigest({ kind: kindOf(change.name), name: change.name, text: change.text, data: change.data, links: change.links }));
      }
      after = version;
    }
    if (rs.rows.length < PAGE) break;
  }
  // A forgotten or purged session keeps its version on the tombstone but no log.
  const contentGone = session.state === 'forgotten' || session.state === 'purged';
  if (!contentGone && expected - 1 !== session.version) {
    problems.push(`the log ends at version ${expected - 1} but the session is at version ${session.version}`);
  }

  const mismatches: VerifyReport['mismatches'] = [];
  const stored = new Set<string>();
  let noteCount = 0;
  for (let after = ''; ; ) {
    const rs = await ctx.client.execute({
      sql: 'SELECT name, kind, text, data, links, digest FROM notes WHERE session_id = ? AND name > ? ORDER BY name LIMIT ?',
      args: [session.id, after, PAGE],
    });
    for (const row of rs.rows) {
      const name = str(row.name);
      noteCount++;
      stored.add(name);
      const column = str(row.digest);
      // A row whose content no longer matches its own digest is reported with the content's digest.
      const content = recordDigest({ kind: str(row.kind), name, text: str(row.text), data: parseStoredData(row.data), links: parseStoredLinks(row.links) });
      const storedDigest = content === column ? column : content;
      const replayedDigest = replayed.get(name) ?? null;
      if (replayedDigest !== storedDigest) mismatches.push({ name, replayed: replayedDigest, stored: storedDigest });
      after = name;
    }
    if (rs.rows.length < PAGE) break;
  }
  for (const [name, digest] of replayed) if (!stored.has(name)) mismatches.push({ name, replayed: digest, stored: null });
  if (noteCount !== session.noteCount) problems.push(`the session counts ${session.noteCount} notes but ${noteCount} are stored`);

  return {
    ok: mismatches.length === 0 && problems.length === 0,
    sessionId: session.id,
    version: session.version,
    logEntries,
    notes: noteCount,
    mismatches,
    problems,
  };
}

/** Every applied remember call, oldest first: who, when, which names (for transcript cards). */
export async function log(ctx: StoreContext, sessionId: string): Promise<LogEntry[]> {
  const session = await requireSession(ctx, sessionId);
  const rs = await ctx.client.execute({
    sql: 'SELECT version, request_id, author, at, result FROM log WHERE session_id = ? ORDER BY version',
    args: [session.id],
  });
  return rs.rows.map((row) => ({
    version: num(row.version),
    requestId: str(row.request_id),
    author: str(row.author),
    at: str(row.at),
    applied: (JSON.parse(str(row.result)) as { applied: AppliedChange[] }).applied,
  }));
}
