/**
 * The conflict graph of an answer (SPEC §5). Two rows conflict when a note and a reviewed record
 * have the same name and different digests, or when one has a contradicts link to the other, or
 * (issue 18) when a reviewed correction or retraction touches a reviewed record: the touched
 * record and the correction (or the retracted publication) are both marked, and neither hides
 * the other.
 * Every row in conflict is marked, and its counterpart is appended when it is not on the page, so
 * both rows of a conflict are always in the same answer.
 *
 * The graph reads nothing itself: the rows it needs come through `ConflictReads`, which
 * questions.ts answers as of the answer's version V (notes from the change history and the link
 * index, reviewed records from the pinned view).
 */
import { keyOf } from './answer-rows.ts';
import type { Candidate, Conflict, RowKey } from './answer-rows.ts';
import type { RevisionPair } from './reviewed-marks.ts';
import type { QueryRow } from './types.ts';

/** The rows the graph looks up as of V, each as a counterpart row (`why` is `counterpart`). */
export interface ConflictReads {
  /** The live notes among `names`, by name. */
  notes(names: string[]): Promise<Map<string, Candidate>>;
  /** The live notes with a contradicts link to any of `names`, with the name each links to. */
  notesContradicting(names: string[]): Promise<Array<{ to: string; from: Candidate }>>;
  /** The reviewed record named `name`, if in view. */
  reviewed(name: string): Candidate | undefined;
  /** The reviewed records in view with a contradicts link to `name`. */
  reviewedContradicting(name: string): Candidate[];
  /** The reviewed record `name`'s correction and retraction conflicts, each with the other row. */
  reviewedRevisions(name: string): Array<{ other: Candidate; conflict: Conflict }>;
}

export interface Answer {
  /** The page's rows, then the appended counterparts. */
  rows: Candidate[];
  /** For each row, the row numbers it conflicts with, ascending. */
  conflicts: number[][];
  /** For each row, the conflict behind each of its marks (same order as `conflicts`). */
  conflictReasons: Conflict[][];
  primaryCount: number;
}

interface Edges {
  partners: Map<string, Map<string, Conflict>>;
  pool: Map<string, Candidate>;
}

/** The graph of conflicts among the page rows and their counterparts. */
export interface ConflictGraph {
  primaries: Candidate[];
  edges: Edges;
}

function addEdge(edges: Edges, a: Candidate, b: Candidate, conflict: Conflict): void {
  const ka = keyOf(a);
  const kb = keyOf(b);
  if (ka === kb) return;
  if (!edges.pool.has(ka)) edges.pool.set(ka, a);
  if (!edges.pool.has(kb)) edges.pool.set(kb, b);
  const pa = edges.partners.get(ka) ?? new Map<string, Conflict>();
  const pb = edges.partners.get(kb) ?? new Map<string, Conflict>();
  if (!pa.has(kb)) pa.set(kb, conflict);
  if (!pb.has(ka)) pb.set(ka, conflict);
  edges.partners.set(ka, pa);
  edges.partners.set(kb, pb);
}

/** The conflict a correction or retraction makes between the record it touches and itself. */
export const revisionConflict = (pair: RevisionPair): Conflict => ({
  t: 'revised',
  from: { source: 'reviewed', name: pair.touched },
  to: { source: 'reviewed', name: pair.by },
  mark: pair.mark,
});

const contradicts = (from: RowKey, to: RowKey): Conflict => ({
  t: 'contradicts',
  from: { source: from.source, name: from.name },
  to: { source: to.source, name: to.name },
});

/** The conflicts of `rows`, in both directions, with the counterpart rows they involve. */
async function conflictEdges(reads: ConflictReads, rows: Candidate[], edges: Edges): Promise<void> {
  const live = rows.filter((r) => r.digest !== null);
  if (live.length === 0) return;
  const contradictsTargets = live.flatMap((r) =>
    r.links.filter((l) => l.rel === 'contradicts').map((l) => l.to),
  );
  const reviewedRowNames = live.filter((r) => r.source === 'reviewed').map((r) => r.name);
  const [notes, incoming] = await Promise.all([
    reads.notes([...reviewedRowNames, ...contradictsTargets]),
    reads.notesContradicting(live.map((r) => r.name)),
  ]);

  for (const row of live) {
    // Same name, different content: the note and the reviewed record disagree.
    if (row.source === 'note') {
      const record = reads.reviewed(row.name);
      if (record && record.digest !== row.digest) {
        addEdge(edges, row, record, {
          t: 'digest',
          name: row.name,
          noteDigest: row.digest!,
          reviewedDigest: record.digest!,
        });
      }
    } else {
      const note = notes.get(row.name);
      if (note && note.digest !== row.digest) {
        addEdge(edges, row, note, {
          t: 'digest',
          name: row.name,
          noteDigest: note.digest!,
          reviewedDigest: row.digest!,
        });
      }
    }
    // Outgoing contradicts: the target's rows (a note at V and/or a reviewed record in view).
    for (const l of row.links) {
      if (l.rel !== 'contradicts') continue;
      const ends: Candidate[] = [];
      const note = notes.get(l.to);
      if (note) ends.push(note);
      const record = reads.reviewed(l.to);
      if (record) ends.push(record);
      for (const end of ends) addEdge(edges, row, end, contradicts(row, end));
    }
  }
  // Incoming contradicts, from notes and from reviewed records.
  const byName = new Map<string, Candidate[]>();
  for (const row of live) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
  for (const { to, from } of incoming) {
    for (const row of byName.get(to) ?? []) addEdge(edges, from, row, contradicts(from, row));
  }
  for (const row of live) {
    for (const record of reads.reviewedContradicting(row.name))
      addEdge(edges, record, row, contradicts(record, row));
  }
  // Corrections and retractions: only between reviewed records.
  for (const row of live) {
    if (row.source !== 'reviewed') continue;
    for (const { other, conflict } of reads.reviewedRevisions(row.name)) addEdge(edges, row, other, conflict);
  }
}

/**
 * The conflicts of the page rows (`primaries`) and of the counterparts they bring in.
 *
 * @example
 * const answer = numberAnswer(await linkConflicts(reads, page.rows));
 */
export async function linkConflicts(reads: ConflictReads, primaries: Candidate[]): Promise<ConflictGraph> {
  const edges: Edges = { partners: new Map(), pool: new Map() };
  for (const row of primaries) edges.pool.set(keyOf(row), row);
  await conflictEdges(reads, primaries, edges);
  // Counterparts may conflict with each other too; learn those edges (without appending more).
  const onPage = new Set(primaries.map(keyOf));
  const appended = [...edges.pool.values()].filter((c) => !onPage.has(keyOf(c)));
  if (appended.length > 0) await conflictEdges(reads, appended, edges);
  return { primaries, edges };
}

/**
 * Numbers the rows of an answer made of the first `take` primaries: those rows, then each of
 * their counterparts not already present (first appearance order), with conflicts as row numbers.
 */
export function numberAnswer(graph: ConflictGraph, take = graph.primaries.length): Answer {
  const { edges } = graph;
  const rows = graph.primaries.slice(0, take);
  // A primary may itself be a counterpart of an earlier one; keep each (source, name) once.
  const seen = new Set<string>();
  const unique: Candidate[] = [];
  for (const row of rows) {
    if (!seen.has(keyOf(row))) {
      seen.add(keyOf(row));
      unique.push(row);
    }
  }
  const primaryCount = unique.length;
  for (let i = 0; i < primaryCount; i++) {
    for (const partner of edges.partners.get(keyOf(unique[i]!))?.keys() ?? []) {
      if (!seen.has(partner)) {
        seen.add(partner);
        unique.push(edges.pool.get(partner)!);
      }
    }
  }
  const index = new Map(unique.map((c, i) => [keyOf(c), i]));
  const conflicts: number[][] = [];
  const conflictReasons: Conflict[][] = [];
  for (const row of unique) {
    const marks = [...(edges.partners.get(keyOf(row)) ?? new Map<string, Conflict>()).entries()]
      .filter(([k]) => index.has(k))
      .map(([k, c]) => ({ n: index.get(k)!, c }))
      .sort((a, b) => a.n - b.n);
    conflicts.push(marks.map((m) => m.n));
    conflictReasons.push(marks.map((m) => m.c));
  }
  return { rows: unique, conflicts, conflictReasons, primaryCount };
}

/** The answer's rows as the agent sees them: names, digests and conflict marks, no content. */
export function toQueryRows(answer: Answer): QueryRow[] {
  return answer.rows.map((c, row) => ({
    row,
    source: c.source,
    kind: c.kind,
    name: c.name,
    digest: c.digest,
    conflicts: answer.conflicts[row]!,
  }));
}
