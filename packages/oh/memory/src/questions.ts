/**
 * The question menu (SPEC §5), computed AS OF a memory version V.
 *
 * Everything here reads `note_changes` (the per-change history) instead of the current `notes`:
 * a note "at V" is the latest change of that name with version ≤ V, unless that change is a
 * remove. History rows up to V never change, so the same code answers a first page, a later page
 * (pinned to the first page's V by its cursor) and an explain call made after memory moved on.
 *
 * Every read is an index range on (session, version, seq), (session, name, version) or the link
 * index, plus a liveness probe per row; none scans a session. Pages are keyset-based: a position
 * is "after (version, seq)" for change-ordered questions and "after name" for name-ordered ones.
 */
import { z } from 'zod';
import { keyOf } from './answer-rows.ts';
import type { Candidate, Conflict, Why } from './answer-rows.ts';
import { linkConflicts, numberAnswer, revisionConflict } from './conflicts.ts';
import type { Answer, ConflictGraph, ConflictReads } from './conflicts.ts';
import { num, str } from './context.ts';
import type { StoreContext } from './context.ts';
import { kindOf, parseStoredLinks } from './records.ts';
import { compareNames } from './reviewed-view.ts';
import type { ReviewedView } from './reviewed-view.ts';
import type { Link, LinkRel, Question, ReviewedRecord } from './types.ts';

/** What a question is computed against: one session at one version and one reviewed revision. */
export interface AsOf {
  sessionId: string;
  version: number;
  pinnedRevision: number;
  view: ReviewedView;
}

export interface QuestionParams {
  question: Question;
  name: string | null;
  sinceVersion: number | null;
}

/** Where a page starts (exclusive). `null` is the first page. */
export type Position =
  | null
  | { p: 'c'; v: number; s: number } // change-ordered notes: after (version, seq), descending
  | { p: 'n'; name: string } // name-ordered notes: after name
  | { p: 'r'; name: string }; // reviewed records by name: after name ('' = from the first)

export const positionSchema: z.ZodType<Position> = z.union([
  z.null(),
  z.strictObject({ p: z.literal('c'), v: z.number().int().min(0), s: z.number().int().min(0) }),
  z.strictObject({ p: z.literal('n'), name: z.string().max(200) }),
  z.strictObject({ p: z.literal('r'), name: z.string().max(200) }),
]);

/** A note as of V: the change that made it what it is. */
interface NoteAt {
  name: string;
  kind: string;
  op: 'add' | 'replace' | 'remove';
  digest: string | null;
  links: Link[];
  version: number;
  seq: number;
  author: string;
}

export interface Page {
  rows: Candidate[];
  next: Position;
}

const CHANGE_COLUMNS = 'c.version, c.seq, c.op, c.name, c.kind, c.digest, c.links, c.author';

/** "No later change of this name up to V": the liveness probe, an index seek on note_changes_name. */
const LATEST_AT_V = (alias: string, nameExpr: string, versionExpr: string) =>
  `NOT EXISTS (SELECT 1 FROM note_changes AS d WHERE d.session_id = ${alias}.session_id AND d.name = ${nameExpr}
                AND d.version > ${versionExpr} AND d.version <= ?)`;

function toNoteAt(row: Record<string, unknown>): NoteAt {
  return {
    name: str(row.name),
    kind: str(row.kind),
    op: str(row.op) as NoteAt['op'],
    digest: row.digest === null ? null : str(row.digest),
    links: parseStoredLinks(row.links),
    version: num(row.version),
    seq: num(row.seq),
    author: str(row.author),
  };
}

function noteCandidate(note: NoteAt, why: Why): Candidate {
  return { source: 'note', kind: note.kind, name: note.name, digest: note.digest, links: note.links, why };
}

function reviewedCandidate(record: ReviewedRecord, why: Why): Candidate {
  return {
    source: 'reviewed',
    kind: record.kind,
    name: record.name,
    digest: record.digest,
    links: record.links,
    why,
  };
}

// ---------------------------------------------------------------------------------------------
// Index-driven reads as of V

/** Latest change per name, newest first, strictly after `after`, down to (not including) `since`. */
async function changesPage(
  ctx: StoreContext,
  at: AsOf,
  after: { v: number; s: number },
  limit: number,
  options: { since: number; includeRemoved: boolean },
): Promise<NoteAt[]> {
  const rs = await ctx.client.execute({
    sql: `SELECT ${CHANGE_COLUMNS} FROM note_changes AS c
           WHERE c.session_id = ? AND c.version <= ? AND c.version > ? AND (c.version, c.seq) < (?, ?)
             ${options.includeRemoved ? '' : "AND c.op <> 'remove'"}
             AND ${LATEST_AT_V('c', 'c.name', 'c.version')}
           ORDER BY c.version DESC, c.seq DESC
           LIMIT ?`,
    args: [at.sessionId, at.version, options.since, after.v, after.s, at.version, limit],
  });
  return rs.rows.map((r) => toNoteAt(r as unknown as Record<string, unknown>));
}

/** The live notes among `names` as of V. */
async function notesAsOf(ctx: StoreContext, at: AsOf, names: Iterable<string>): Promise<Map<string, NoteAt>> {
  const list = [...new Set(names)];
  const out = new Map<string, NoteAt>();
  if (list.length === 0) return out;
  const rs = await ctx.client.execute({
    // CROSS JOIN fixes the loop order: the few names outside, an index seek per name inside.
    sql: `SELECT ${CHANGE_COLUMNS} FROM json_each(?) AS j
           CROSS JOIN note_changes AS c ON c.session_id = ? AND c.name = j.value
            AND c.version = (SELECT MAX(m.version) FROM note_changes AS m
                              WHERE m.session_id = c.session_id AND m.name = j.value AND m.version <= ?)`,
    args: [JSON.stringify(list), at.sessionId, at.version],
  });
  for (const r of rs.rows) {
    const note = toNoteAt(r);
    if (note.op !== 'remove') out.set(note.name, note);
  }
  return out;
}

/** Live notes (as of V) with a link to `to`, by name after `afterName`, one row per note. */
async function incomingNotes(
  ctx: StoreContext,
  at: AsOf,
  to: string,
  rel: LinkRel | null,
  afterName: string,
  limit: number,
): Promise<NoteAt[]> {
  const rs = await ctx.client.execute({
    // The link index in name order drives (keyset on from_name); one PK seek per row for content.
    sql: `SELECT ${CHANGE_COLUMNS} FROM link_index AS l INDEXED BY link_index_to
           CROSS JOIN note_changes AS c ON c.session_id = l.session_id AND c.version = l.version AND c.seq = l.seq
           WHERE l.session_id = ? AND l.to_name = ? AND l.from_name > ? AND l.from_name <> ? AND l.version <= ?
             ${rel ? 'AND l.rel = ?' : ''}
             AND ${LATEST_AT_V('l', 'l.from_name', 'l.version')}
           GROUP BY l.from_name
           ORDER BY l.from_name
           LIMIT ?`,
    args: [at.sessionId, to, afterName, to, at.version, ...(rel ? [rel] : []), at.version, limit],
  });
  return rs.rows.map((r) => toNoteAt(r as unknown as Record<string, unknown>));
}

/** Live notes (as of V) with a contradicts link to any of `names`. */
async function incomingContradicts(
  ctx: StoreContext,
  at: AsOf,
  names: Iterable<string>,
): Promise<Array<{ to: string; from: NoteAt }>> {
  const list = [...new Set(names)];
  if (list.length === 0) return [];
  const rs = await ctx.client.execute({
    sql: `SELECT DISTINCT l.to_name AS to_name, ${CHANGE_COLUMNS} FROM json_each(?) AS j
           CROSS JOIN link_index AS l INDEXED BY link_index_contradicts
             ON l.session_id = ? AND l.to_name = j.value AND l.rel = 'contradicts' AND l.version <= ?
           CROSS JOIN note_changes AS c ON c.session_id = l.session_id AND c.version = l.version AND c.seq = l.seq
           WHERE ${LATEST_AT_V('l', 'l.from_name', 'l.version')}
           ORDER BY l.to_name, l.from_name`,
    args: [JSON.stringify(list), at.sessionId, at.version, at.version],
  });
  return rs.rows.map((r) => ({
    to: str(r.to_name),
    from: toNoteAt(r as unknown as Record<string, unknown>),
  }));
}

/** Every live contradicts link of the session's notes as of V (the partial index holds only these). */
async function allContradicts(ctx: StoreContext, at: AsOf): Promise<Array<{ to: string; from: NoteAt }>> {
  const rs = await ctx.client.execute({
    sql: `SELECT DISTINCT l.to_name AS to_name, ${CHANGE_COLUMNS} FROM link_index AS l INDEXED BY link_index_contradicts
           CROSS JOIN note_changes AS c ON c.session_id = l.session_id AND c.version = l.version AND c.seq = l.seq
           WHERE l.session_id = ? AND l.rel = 'contradicts' AND l.version <= ?
             AND ${LATEST_AT_V('l', 'l.from_name', 'l.version')}
           ORDER BY l.from_name, l.to_name`,
    args: [at.sessionId, at.version, at.version],
  });
  return rs.rows.map((r) => ({
    to: str(r.to_name),
    from: toNoteAt(r as unknown as Record<string, unknown>),
  }));
}

// ---------------------------------------------------------------------------------------------
// Pages

export async function computePage(
  ctx: StoreContext,
  at: AsOf,
  params: QuestionParams,
  pos: Position,
  limit: number,
): Promise<Page> {
  switch (params.question) {
    case 'current_notes':
      return currentNotesPage(ctx, at, pos, limit);
    case 'changed_since':
      return changedSincePage(ctx, at, params.sinceVersion ?? 0, pos, limit);
    case 'related_to':
      return linkedPage(ctx, at, params.name ?? '', null, pos, limit);
    case 'supports':
      return linkedPage(ctx, at, params.name ?? '', 'supports', pos, limit);
    case 'conflicts':
      return conflictsPage(ctx, at, pos, limit);
  }
}

/**
 * The live notes at V, newest change first, in ONE statement (one snapshot):
 *   - a note whose latest change is ≤ V has not changed since V, so the `notes` projection holds
 *     exactly its state at V: an index range on (session_id, version, seq), no history;
 *   - only the names changed after V need history: their latest change ≤ V, unless a remove.
 * The two sets never overlap (a name changed after V has notes.version > V or no row), so the
 * cost is the page plus the changes made since V, never the depth of superseded history. At the
 * session's current version the second set is empty.
 */
async function liveNotesPage(
  ctx: StoreContext,
  at: AsOf,
  after: { v: number; s: number },
  limit: number,
): Promise<NoteAt[]> {
  const rs = await ctx.client.execute({
    // In "moved", the inner LIMIT -1 keeps a range on the primary key (session_id, version) over
    // the changes after V only, instead of a DISTINCT walk of the whole session by name.
    sql: `WITH moved AS (
            SELECT DISTINCT name FROM (SELECT name FROM note_changes WHERE session_id = ?1 AND version > ?2 LIMIT -1)
          ),
          history AS (
            SELECT c.version, c.seq, c.op, c.name, c.kind, c.digest, c.links, c.author
              FROM moved CROSS JOIN note_changes AS c
                ON c.session_id = ?1 AND c.name = moved.name
               AND c.version = (SELECT MAX(m.version) FROM note_changes AS m
                                 WHERE m.session_id = ?1 AND m.name = moved.name AND m.version <= ?2)
             WHERE c.op <> 'remove' AND (c.version, c.seq) < (?3, ?4)
          ),
          unchanged AS (
            SELECT version, seq, CASE WHEN created_version = version THEN 'add' ELSE 'replace' END AS op,
                   name, kind, digest, links, author
              FROM notes
             WHERE session_id = ?1 AND version <= ?2 AND (version, seq) < (?3, ?4)
             ORDER BY version DESC, seq DESC
             LIMIT ?5
          )
          SELECT * FROM history UNION ALL SELECT * FROM unchanged
          ORDER BY version DESC, seq DESC
          LIMIT ?5`,
    args: [at.sessionId, at.version, after.v, after.s, limit],
  });
  return rs.rows.map((r) => toNoteAt(r as unknown as Record<string, unknown>));
}

/** Notes newest change first, then the reviewed records in view by name. */
async function currentNotesPage(ctx: StoreContext, at: AsOf, pos: Position, limit: number): Promise<Page> {
  const rows: Candidate[] = [];
  if (pos === null || pos.p === 'c') {
    const after = pos ?? { v: at.version + 1, s: 0 };
    const notes = await liveNotesPage(ctx, at, after, limit + 1);
    for (const note of notes.slice(0, limit)) {
      rows.push(
        noteCandidate(note, {
          t: 'note',
          version: note.version,
          op: note.op as 'add' | 'replace',
          author: note.author,
        }),
      );
    }
    if (notes.length > limit) {
      const last = notes[limit - 1]!;
      return { rows, next: { p: 'c', v: last.version, s: last.seq } };
    }
  }
  const afterName = pos?.p === 'r' ? pos.name : '';
  return fillReviewed(
    rows,
    at.view.records.filter((r) => compareNames(r.name, afterName) > 0),
    limit,
    (r) => ({ t: 'reviewed', record: r }),
  );
}

/** Appends reviewed records (already filtered and ordered) until the page is full. */
function fillReviewed(
  rows: Candidate[],
  records: ReviewedRecord[],
  limit: number,
  why: (r: ReviewedRecord) => Why,
): Page {
  const room = limit - rows.length;
  const taken = records.slice(0, Math.max(0, room));
  for (const record of taken) rows.push(reviewedCandidate(record, why(record)));
  if (records.length > taken.length) {
    const last = taken.at(-1);
    return { rows, next: { p: 'r', name: last ? last.name : '' } };
  }
  return { rows, next: null };
}

async function changedSincePage(
  ctx: StoreContext,
  at: AsOf,
  since: number,
  pos: Position,
  limit: number,
): Promise<Page> {
  const after = pos?.p === 'c' ? pos : { v: at.version + 1, s: 0 };
  const changes = await changesPage(ctx, at, after, limit + 1, { since, includeRemoved: true });
  const rows = changes
    .slice(0, limit)
    .map((c) =>
      noteCandidate(
        { ...c, kind: c.kind || kindOf(c.name), links: c.op === 'remove' ? [] : c.links },
        { t: 'changed', version: c.version, op: c.op, author: c.author, since },
      ),
    );
  if (changes.length > limit) {
    const last = changes[limit - 1]!;
    return { rows, next: { p: 'c', v: last.version, s: last.seq } };
  }
  return { rows, next: null };
}

/**
 * related_to (rel null: links either way) and supports (rel 'supports': links TO the name).
 * Notes by name first, then reviewed records by name; the name itself is never its own row.
 */
async function linkedPage(
  ctx: StoreContext,
  at: AsOf,
  name: string,
  rel: LinkRel | null,
  pos: Position,
  limit: number,
): Promise<Page> {
  const rows: Candidate[] = [];
  // Outgoing links of the name itself (only for related_to): from its note at V and its reviewed record.
  const outgoing: Array<{ from: string; rel: LinkRel; to: string }> = [];
  if (rel === null) {
    const self = (await notesAsOf(ctx, at, [name])).get(name);
    for (const l of self?.links ?? []) outgoing.push({ from: name, rel: l.rel, to: l.to });
    for (const l of at.view.byName.get(name)?.links ?? [])
      outgoing.push({ from: name, rel: l.rel, to: l.to });
  }
  const outgoingNotes =
    rel === null
      ? await notesAsOf(
          ctx,
          at,
          outgoing.map((o) => o.to).filter((t) => t !== name),
        )
      : new Map<string, NoteAt>();

  if (pos === null || pos.p === 'n') {
    const afterName = pos?.p === 'n' ? pos.name : '';
    const byName = new Map<string, Candidate>();
    for (const o of outgoing) {
      const note = outgoingNotes.get(o.to);
      if (note && compareNames(note.name, afterName) > 0 && !byName.has(note.name)) {
        byName.set(note.name, noteCandidate(note, { t: 'link', from: o.from, rel: o.rel, to: o.to }));
      }
    }
    const incoming = await incomingNotes(ctx, at, name, rel, afterName, limit + 1);
    for (const note of incoming) {
      if (byName.has(note.name)) continue;
      const link = note.links.find((l) => l.to === name && (rel === null || l.rel === rel));
      byName.set(
        note.name,
        noteCandidate(note, { t: 'link', from: note.name, rel: link?.rel ?? rel ?? 'depends_on', to: name }),
      );
    }
    // `incoming` is complete only up to its last fetched name; anything after it waits for the next page.
    const horizon = incoming.length > limit ? incoming[limit]!.name : null;
    const merged = [...byName.values()]
      .filter((c) => horizon === null || compareNames(c.name, horizon) <= 0)
      .sort((a, b) => compareNames(a.name, b.name));
    rows.push(...merged.slice(0, limit));
    if (merged.length > limit) return { rows, next: { p: 'n', name: rows.at(-1)!.name } };
  }

  const afterName = pos?.p === 'r' ? pos.name : '';
  const reviewed = new Map<string, { record: ReviewedRecord; why: Why }>();
  for (const o of outgoing) {
    const record = at.view.byName.get(o.to);
    if (record && record.name !== name && !reviewed.has(record.name))
      reviewed.set(record.name, { record, why: { t: 'link', ...o } });
  }
  for (const l of at.view.incoming.get(name) ?? []) {
    if (rel !== null && l.rel !== rel) continue;
    const record = at.view.byName.get(l.from);
    if (record && record.name !== name && !reviewed.has(record.name)) {
      reviewed.set(record.name, { record, why: { t: 'link', from: l.from, rel: l.rel, to: name } });
    }
  }
  const ordered = [...reviewed.values()]
    .filter((r) => compareNames(r.record.name, afterName) > 0)
    .sort((a, b) => compareNames(a.record.name, b.record.name));
  const whyOf = new Map(ordered.map((r) => [r.record.name, r.why]));
  return fillReviewed(
    rows,
    ordered.map((r) => r.record),
    limit,
    (r) => whyOf.get(r.name)!,
  );
}

/**
 * Every row involved in a conflict as of V: a note and a reviewed record with the same name and
 * different digests, or both ends of a contradicts link. Notes by name, then reviewed by name.
 * The set is bounded by the reviewed records in view and the contradicts links, not the session.
 */
async function conflictsPage(ctx: StoreContext, at: AsOf, pos: Position, limit: number): Promise<Page> {
  const involved = new Map<string, Candidate>();
  const add = (c: Candidate) => {
    if (!involved.has(keyOf(c))) involved.set(keyOf(c), c);
  };
  const sameName = await notesAsOf(ctx, at, at.view.byName.keys());
  for (const [name, note] of sameName) {
    const record = at.view.byName.get(name)!;
    if (record.digest === note.digest) continue;
    const conflict: Conflict = { t: 'digest', name, noteDigest: note.digest!, reviewedDigest: record.digest };
    add(noteCandidate(note, { t: 'conflict', conflict }));
    add(reviewedCandidate(record, { t: 'conflict', conflict }));
  }
  const links: Array<{ from: Candidate; to: string }> = [];
  for (const { from, to } of await allContradicts(ctx, at))
    links.push({ from: noteCandidate(from, { t: 'counterpart' }), to });
  for (const record of at.view.records) {
    for (const l of record.links)
      if (l.rel === 'contradicts')
        links.push({ from: reviewedCandidate(record, { t: 'counterpart' }), to: l.to });
  }
  const targets = await notesAsOf(
    ctx,
    at,
    links.map((l) => l.to),
  );
  for (const { from, to } of links) {
    const ends: Candidate[] = [];
    const note = targets.get(to);
    if (note) ends.push(noteCandidate(note, { t: 'counterpart' }));
    const record = at.view.byName.get(to);
    if (record) ends.push(reviewedCandidate(record, { t: 'counterpart' }));
    for (const end of ends) {
      if (keyOf(end) === keyOf(from)) continue;
      const conflict: Conflict = {
        t: 'contradicts',
        from: { source: from.source, name: from.name },
        to: { source: end.source, name: end.name },
      };
      add({ ...from, why: { t: 'conflict', conflict } });
      add({ ...end, why: { t: 'conflict', conflict } });
    }
  }
  // Corrections and retractions: both ends, reviewed records in view.
  for (const pairs of at.view.revisions.values()) {
    for (const pair of pairs) {
      const conflict = revisionConflict(pair);
      for (const end of [pair.touched, pair.by]) {
        const record = at.view.byName.get(end);
        if (record) add(reviewedCandidate(record, { t: 'conflict', conflict }));
      }
    }
  }
  const all = [...involved.values()];
  const notes = all.filter((c) => c.source === 'note').sort((a, b) => compareNames(a.name, b.name));
  const reviewed = all.filter((c) => c.source === 'reviewed').sort((a, b) => compareNames(a.name, b.name));
  const ordered = [...notes, ...reviewed];
  const after = (list: Candidate[], name: string) => {
    const i = list.findIndex((c) => compareNames(c.name, name) > 0);
    return i < 0 ? list.length : i;
  };
  const start =
    pos?.p === 'n' ? after(notes, pos.name) : pos?.p === 'r' ? notes.length + after(reviewed, pos.name) : 0;
  const rows = ordered.slice(start, start + limit);
  if (start + limit >= ordered.length) return { rows, next: null };
  const last = rows.at(-1)!;
  return { rows, next: last.source === 'note' ? { p: 'n', name: last.name } : { p: 'r', name: last.name } };
}

// ---------------------------------------------------------------------------------------------
// Conflicts: the graph (conflicts.ts) over the rows as of V

/** What the conflict graph looks up, answered as of V. */
function conflictReads(ctx: StoreContext, at: AsOf): ConflictReads {
  const reviewed = (name: string) => {
    const record = at.view.byName.get(name);
    return record ? reviewedCandidate(record, { t: 'counterpart' }) : undefined;
  };
  return {
    async notes(names) {
      const notes = await notesAsOf(ctx, at, names);
      return new Map([...notes].map(([name, note]) => [name, noteCandidate(note, { t: 'counterpart' })]));
    },
    async notesContradicting(names) {
      const links = await incomingContradicts(ctx, at, names);
      return links.map(({ to, from }) => ({ to, from: noteCandidate(from, { t: 'counterpart' }) }));
    },
    reviewed,
    reviewedContradicting: (name) =>
      (at.view.incoming.get(name) ?? []).flatMap((l) => {
        const record = l.rel === 'contradicts' ? reviewed(l.from) : undefined;
        return record ? [record] : [];
      }),
    reviewedRevisions: (name) =>
      (at.view.revisions.get(name) ?? []).flatMap((pair) => {
        const other = reviewed(pair.touched === name ? pair.by : pair.touched);
        return other ? [{ other, conflict: revisionConflict(pair) }] : [];
      }),
  };
}

/** The conflicts of the page rows as of V, with the counterparts they bring in. */
export function conflictGraph(ctx: StoreContext, at: AsOf, primaries: Candidate[]): Promise<ConflictGraph> {
  return linkConflicts(conflictReads(ctx, at), primaries);
}

export async function computeAnswer(
  ctx: StoreContext,
  at: AsOf,
  params: QuestionParams,
  pos: Position,
  limit: number,
): Promise<{ answer: Answer; next: Position }> {
  const page = await computePage(ctx, at, params, pos, limit);
  const graph = await conflictGraph(ctx, at, page.rows);
  return { answer: numberAnswer(graph), next: page.next };
}
