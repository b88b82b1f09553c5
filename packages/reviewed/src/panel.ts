/**
 * Reviewed knowledge beside a session's working notes, as the owner's Memory panel shows them
 * (SPEC §6, §7): each reviewed record in view with its provenance (the source's title while it
 * stands, the reviewer's name) and every conflict between the two kinds of rows — a note and a
 * reviewed record of one name with different content, a `contradicts` link either way, and the
 * corrections and retractions marked on the reviewed records (marks.ts). Conflicts are shown,
 * never resolved away.
 */
import type { Client } from '@libsql/client';
import type { Link, NoteView, ReviewedRecord } from '@oh/memory';
import { liveTitles } from '@sponge/library';
import { userNames } from './people.ts';

/** Why two panel rows conflict. Conflicts are shown, never resolved away. */
export interface PanelConflict {
  source: 'note' | 'reviewed';
  name: string;
  /**
   * - `different_content`: a note and a reviewed record share a name with different digests;
   * - `contradicts`: one row has a contradicts link to the other;
   * - `corrected` / `retracted`: the reviewed record `name` — a correction, or a publication
   *   marked retracted (then possibly this very row) — corrects or retracts this record, or, with
   *   `via`, the record this one depends on;
   * - `corrects`: this row is a correction of the reviewed record `name`.
   */
  reason: 'different_content' | 'contradicts' | 'corrected' | 'retracted' | 'corrects';
  /** The record corrected or retracted, when the mark reaches this row through its links. */
  via?: string;
}

/** The store's note view plus the conflicts the panel marks (derived, so the two never drift). */
export interface WorkingNoteRow extends NoteView {
  conflicts: PanelConflict[];
}

/** A reviewed record in view as the panel shows it: its content and provenance, named and titled. */
export interface ReviewedRow extends Pick<
  ReviewedRecord,
  | 'kind'
  | 'name'
  | 'digest'
  | 'text'
  | 'data'
  | 'links'
  | 'revision'
  | 'passage'
  | 'reviewerId'
  | 'comment'
  | 'createdAt'
> {
  /** The library document the cited passage comes from (title null if it is gone). */
  source: { documentId: string; title: string | null };
  /** The reviewer's name, for "reviewed by … · rev N" (null if the user is gone). */
  reviewerName: string | null;
  /** Only accepted reviews make a revision, so every record in view was accepted. */
  decision: 'accept';
  conflicts: PanelConflict[];
}

type Row = {
  source: 'note' | 'reviewed';
  name: string;
  digest: string;
  links: Link[];
  conflicts: PanelConflict[];
};

function addConflict(row: Row, c: PanelConflict): void {
  if (
    !row.conflicts.some(
      (x) => x.source === c.source && x.name === c.name && x.reason === c.reason && x.via === c.via,
    )
  )
    row.conflicts.push(c);
}

type Mark = NonNullable<ReviewedRecord['marks']>[number];

/** A correction or retraction mark (marks.ts) on a record in view, as the panel shows it. */
function markConflict(name: string, mark: Mark): PanelConflict {
  if (mark.reason === 'corrects') return { source: 'reviewed', name: mark.target, reason: 'corrects' };
  return {
    source: 'reviewed',
    name: mark.by,
    reason: mark.reason,
    ...(mark.target === name ? {} : { via: mark.target }),
  };
}

/**
 * Marks conflicts on both rows: a note and a reviewed record with the same name and different
 * digests, and every `contradicts` link between two rows in view. (Corrections and retractions
 * come marked on the reviewed records by the store.)
 */
function markConflicts(notes: Row[], reviewed: Row[]): void {
  const reviewedByName = new Map(reviewed.map((r) => [r.name, r]));
  const notesByName = new Map(notes.map((n) => [n.name, n]));
  for (const n of notes) {
    const r = reviewedByName.get(n.name);
    if (r && r.digest !== n.digest) {
      addConflict(n, { source: 'reviewed', name: r.name, reason: 'different_content' });
      addConflict(r, { source: 'note', name: n.name, reason: 'different_content' });
    }
  }
  for (const from of [...notes, ...reviewed]) {
    for (const link of from.links) {
      if (link.rel !== 'contradicts') continue;
      // A note's link resolves to the note first, then the reviewed record (as `read` does);
      // a reviewed record's link can only reach reviewed records.
      const target =
        (from.source === 'note' ? notesByName.get(link.to) : undefined) ?? reviewedByName.get(link.to);
      if (!target || target === from) continue;
      addConflict(from, { source: target.source, name: target.name, reason: 'contradicts' });
      addConflict(target, { source: from.source, name: from.name, reason: 'contradicts' });
    }
  }
}

/** The title of each record's source document while it stands (null once removed or gone). */
async function sourceTitles(db: Client, records: ReviewedRecord[]): Promise<Map<string, string | null>> {
  const ids = new Set(records.map((r) => r.sourceDocumentId));
  const titles = await liveTitles(db, ids);
  return new Map([...ids].map((id) => [id, titles.get(id) ?? null]));
}

function noteRow(n: NoteView): WorkingNoteRow {
  return {
    kind: n.kind,
    name: n.name,
    digest: n.digest,
    text: n.text,
    data: n.data,
    links: n.links,
    author: n.author,
    createdAt: n.createdAt,
    updatedAt: n.updatedAt,
    version: n.version,
    conflicts: [],
  };
}

function reviewedRow(
  r: ReviewedRecord,
  titles: Map<string, string | null>,
  names: Map<string, string>,
): ReviewedRow {
  return {
    kind: r.kind,
    name: r.name,
    digest: r.digest,
    text: r.text,
    data: r.data,
    links: r.links,
    revision: r.revision,
    source: { documentId: r.sourceDocumentId, title: titles.get(r.sourceDocumentId) ?? null },
    passage: r.passage,
    reviewerId: r.reviewerId,
    reviewerName: names.get(r.reviewerId) ?? null,
    decision: 'accept',
    comment: r.comment,
    createdAt: r.createdAt,
    // A corrected record stays as accepted; what corrects or retracts it is marked here.
    conflicts: (r.marks ?? []).map((m) => markConflict(r.name, m)),
  };
}

/**
 * The panel's two lists: the working notes and the reviewed records in view, each row with its
 * conflicts (both rows of a conflict are marked).
 */
export async function panelRows(
  db: Client,
  notes: NoteView[],
  reviewed: ReviewedRecord[],
): Promise<{ workingNotes: WorkingNoteRow[]; reviewedInView: ReviewedRow[] }> {
  const [titles, names] = await Promise.all([
    sourceTitles(db, reviewed),
    userNames(
      db,
      reviewed.map((r) => r.reviewerId),
    ),
  ]);
  const workingNotes = notes.map(noteRow);
  const reviewedInView = reviewed.map((r) => reviewedRow(r, titles, names));
  // Wrappers share each row's `conflicts` array, so marking fills the rows themselves.
  markConflicts(
    workingNotes.map((n) => ({
      source: 'note' as const,
      name: n.name,
      digest: n.digest,
      links: n.links,
      conflicts: n.conflicts,
    })),
    reviewedInView.map((r) => ({
      source: 'reviewed' as const,
      name: r.name,
      digest: r.digest,
      links: r.links,
      conflicts: r.conflicts,
    })),
  );
  return { workingNotes, reviewedInView };
}
