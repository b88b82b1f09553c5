/**
 * The log side of verify: reading the log and the history written with it in pages, and checking
 * one log entry against itself (request hash, stored result), against its `note_changes` rows and
 * against its `link_index` rows. Pure apart from the reads; verify.ts applies the entry to the
 * replay and turns the problems into findings.
 */
import type { Client, Row } from '@libsql/client';
import { num, str } from '../context.ts';
import { canonicalData, canonicalJson, digestInput, kindOf, recordDigest, sha256Hex } from '../records.ts';
import type { AppliedChange, Change } from '../types.ts';

export interface LogRow {
  version: number;
  requestHash: string;
  author: string;
  at: string;
  ops: string;
  result: string;
}

export interface LinkRow {
  version: number;
  seq: number;
  idx: number;
  from: string;
  rel: string;
  to: string;
}

/** What one entry says, and where it disagrees with itself or with the rows written with it. */
export interface EntryCheck {
  /** null when the ops are not a list of well-formed changes (nothing else is checked then). */
  changes: Change[] | null;
  /** The digest of each change's content (null for a remove). */
  digests: Array<string | null>;
  problems: Array<{ table: 'log' | 'note_changes'; message: string }>;
  missingLinks: LinkRow[];
  extraLinks: LinkRow[];
}

/** Up to `limit` log entries after version `after`, none past `upTo` (writes racing the check are not its business). */
export async function readLog(
  client: Client,
  sessionId: string,
  after: number,
  upTo: number,
  limit: number,
): Promise<LogRow[]> {
  const rs = await client.execute({
    sql: `SELECT version, request_hash, author, at, ops, result FROM log
           WHERE session_id = ? AND version > ? AND version <= ? ORDER BY version LIMIT ?`,
    args: [sessionId, after, upTo, limit],
  });
  return rs.rows.map((r) => ({
    version: num(r.version),
    requestHash: str(r.request_hash),
    author: str(r.author),
    at: str(r.at),
    ops: str(r.ops),
    result: str(r.result),
  }));
}

/** The note_changes and link_index rows of versions (after, end], by version. Both are append-only, so no snapshot is needed. */
export async function readHistory(
  client: Client,
  sessionId: string,
  after: number,
  end: number,
): Promise<{ changes: Map<number, Row[]>; links: Map<number, LinkRow[]> }> {
  const [changesRs, linksRs] = await client.batch(
    [
      {
        sql: `SELECT version, seq, op, name, kind, text, data, links, digest, author, at FROM note_changes
               WHERE session_id = ? AND version > ? AND version <= ? ORDER BY version, seq`,
        args: [sessionId, after, end],
      },
      {
        sql: `SELECT version, seq, idx, from_name, rel, to_name FROM link_index
               WHERE session_id = ? AND version > ? AND version <= ? ORDER BY version, seq, idx`,
        args: [sessionId, after, end],
      },
    ],
    'read',
  );
  const changes = new Map<number, Row[]>();
  for (const row of changesRs?.rows ?? []) push(changes, num(row.version), row);
  const links = new Map<number, LinkRow[]>();
  for (const r of linksRs?.rows ?? []) {
    push(links, num(r.version), {
      version: num(r.version),
      seq: num(r.seq),
      idx: num(r.idx),
      from: str(r.from_name),
      rel: str(r.rel),
      to: str(r.to_name),
    });
  }
  return { changes, links };
}

/** Checks one log entry: its own hash and result, its history rows and its link rows. */
export function checkEntry(entry: LogRow, history: Row[], links: LinkRow[]): EntryCheck {
  const v = entry.version;
  const changes = parseOps(entry.ops);
  if (!changes) {
    return {
      changes: null,
      digests: [],
      problems: [{ table: 'log', message: `log entry ${v}: its ops are not a list of changes` }],
      missingLinks: [],
      extraLinks: [],
    };
  }
  const problems: EntryCheck['problems'] = [];
  if (entry.requestHash !== sha256Hex(canonicalJson({ basedOn: v - 1, changes }))) {
    problems.push({ table: 'log', message: `log entry ${v}: its request hash does not match its ops` });
  }
  const digests = changes.map((c) =>
    c.op === 'remove'
      ? null
      : recordDigest({ kind: kindOf(c.name), name: c.name, text: c.text, data: c.data, links: c.links }),
  );
  if (!resultMatches(entry, changes, digests)) {
    problems.push({ table: 'log', message: `log entry ${v}: its stored result does not match its ops` });
  }
  const wrong = historyProblems(entry, changes, digests, history);
  if (wrong.length > 0) {
    problems.push({
      table: 'note_changes',
      message: `note_changes of version ${v} do not match the log: ${wrong.join('; ')}`,
    });
  }
  return { changes, digests, problems, ...compareLinks(v, changes, links) };
}

function resultMatches(entry: LogRow, changes: Change[], digests: Array<string | null>): boolean {
  let result: { version?: unknown; applied?: AppliedChange[] };
  try {
    result = JSON.parse(entry.result) as typeof result;
  } catch {
    return false;
  }
  const applied = Array.isArray(result.applied) ? result.applied : [];
  return (
    result.version === entry.version &&
    applied.length === changes.length &&
    changes.every(
      (c, i) => applied[i]?.op === c.op && applied[i]?.name === c.name && applied[i]?.digest === digests[i],
    )
  );
}

/** note_changes rows of one entry: seq 0..n-1, each the change as logged (as remember.ts writes it). */
function historyProblems(
  entry: LogRow,
  changes: Change[],
  digests: Array<string | null>,
  rows: Row[],
): string[] {
  const bySeq = new Map(rows.map((r) => [num(r.seq), r]));
  const wrong: string[] = [];
  for (const [seq, c] of changes.entries()) {
    const row = bySeq.get(seq);
    bySeq.delete(seq);
    if (!row) {
      wrong.push(`change ${seq} (${c.name}) is missing`);
      continue;
    }
    const content =
      c.op === 'remove'
        ? null
        : digestInput({ kind: kindOf(c.name), name: c.name, text: c.text, data: c.data, links: c.links });
    const expected: Record<string, unknown> = {
      op: c.op,
      name: c.name,
      kind: kindOf(c.name),
      text: content ? content.text : null,
      data: content ? canonicalData(content.data) : null,
      links: content ? canonicalJson(content.links) : '[]',
      digest: digests[seq],
      author: entry.author,
      at: entry.at,
    };
    const differs = Object.keys(expected).filter((k) => (row[k] ?? null) !== expected[k]);
    if (differs.length > 0) wrong.push(`change ${seq} (${c.name}) differs in ${differs.join(', ')}`);
  }
  for (const seq of bySeq.keys()) wrong.push(`change ${seq} is not in the log`);
  return wrong;
}

/** The links every change carried, against the link_index rows of the entry. */
function compareLinks(
  version: number,
  changes: Change[],
  stored: LinkRow[],
): { missingLinks: LinkRow[]; extraLinks: LinkRow[] } {
  const expected = new Map<string, LinkRow>();
  for (const [seq, c] of changes.entries()) {
    if (c.op === 'remove') continue;
    for (const [idx, l] of (c.links ?? []).entries())
      expected.set(`${seq}/${idx}`, { version, seq, idx, from: c.name, rel: l.rel, to: l.to });
  }
  const extraLinks: LinkRow[] = [];
  for (const row of stored) {
    const key = `${row.seq}/${row.idx}`;
    const want = expected.get(key);
    if (want && want.from === row.from && want.rel === row.rel && want.to === row.to) expected.delete(key);
    else extraLinks.push(row);
  }
  return { missingLinks: [...expected.values()], extraLinks };
}

/** The ops of a log entry, or null when they are not a list of well-formed changes. */
function parseOps(ops: string): Change[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(ops);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const ok = parsed.every((c: unknown) => {
    if (typeof c !== 'object' || c === null) return false;
    const { op, name, text, links } = c as Record<string, unknown>;
    if (typeof name !== 'string') return false;
    if (op === 'remove') return true;
    return (
      (op === 'add' || op === 'replace') &&
      typeof text === 'string' &&
      (links === undefined || Array.isArray(links))
    );
  });
  return ok ? (parsed as Change[]) : null;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
