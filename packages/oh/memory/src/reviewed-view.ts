/**
 * The reviewed knowledge a session sees: the records of its document at its pinned revision,
 * read through the `ReviewedKnowledgeReader` the API injects, indexed for the question menu.
 *
 * A revision is immutable once it exists, so a view is cached per (document, revision) and
 * never refetched. A revision that does not exist yet is not cached (it could still change).
 */
import { revisionPairs } from './reviewed-marks.ts';
import type { RevisionPair } from './reviewed-marks.ts';
import type { LinkRel, ReviewedKnowledgeReader, ReviewedRecord } from './types.ts';

export interface ReviewedView {
  documentId: string;
  revision: number;
  /** Ordered by name (UTF-16 code units, the same order SQLite's BINARY collation uses). */
  records: ReviewedRecord[];
  byName: Map<string, ReviewedRecord>;
  /** to-name → the reviewed records linking to it. */
  incoming: Map<string, Array<{ from: string; rel: LinkRel }>>;
  /** name → the correction and retraction conflicts its marks make it one end of (reviewed-marks.ts). */
  revisions: Map<string, RevisionPair[]>;
}

export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export class ReviewedViews {
  readonly #reader: ReviewedKnowledgeReader;
  readonly #max: number;
  readonly #cache = new Map<string, Promise<ReviewedView>>();

  constructor(reader: ReviewedKnowledgeReader, maxEntries = 256) {
    this.#reader = reader;
    this.#max = maxEntries;
  }

  get(documentId: string, revision: number): Promise<ReviewedView> {
    const key = `${documentId}\u0000${revision}`;
    const hit = this.#cache.get(key);
    if (hit) {
      // Refresh recency (Map keeps insertion order, so this is a tiny LRU).
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return hit;
    }
    const loading = this.#load(documentId, revision);
    this.#cache.set(key, loading);
    // A failed load or a revision that did not exist yet must not stick.
    loading.then(
      (view) => {
        if (isEphemeral(view) && this.#cache.get(key) === loading) this.#cache.delete(key);
      },
      () => {
        if (this.#cache.get(key) === loading) this.#cache.delete(key);
      },
    );
    while (this.#cache.size > this.#max) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
    return loading;
  }

  async #load(documentId: string, revision: number): Promise<ReviewedView> {
    if (revision === 0) return buildView(documentId, 0, []);
    const [latest, records] = await Promise.all([
      this.#reader.latestRevision(documentId),
      this.#reader.recordsAt(documentId, revision),
    ]);
    const view = buildView(documentId, revision, records);
    // Not immutable yet: serve it once, do not keep it.
    if (revision > latest) markEphemeral(view);
    return view;
  }
}

const EPHEMERAL_VIEWS = new WeakSet<ReviewedView>();
function markEphemeral(view: ReviewedView): void {
  EPHEMERAL_VIEWS.add(view);
}

function buildView(documentId: string, revision: number, records: ReviewedRecord[]): ReviewedView {
  // The marks are the reader's (ReviewedKnowledgeReader.recordsAt); a record without any has none.
  const sorted = records
    .map((r) => ({ ...r, marks: r.marks ?? [] }))
    .sort((a, b) => compareNames(a.name, b.name));
  const byName = new Map<string, ReviewedRecord>();
  const incoming = new Map<string, Array<{ from: string; rel: LinkRel }>>();
  for (const record of sorted) {
    byName.set(record.name, record);
    for (const link of record.links) {
      const list = incoming.get(link.to) ?? [];
      list.push({ from: record.name, rel: link.rel });
      incoming.set(link.to, list);
    }
  }
  const revisions = revisionPairs(new Map(sorted.map((r) => [r.name, r.marks])));
  return { documentId, revision, records: sorted, byName, incoming, revisions };
}

/** Is this view only valid for one call (its revision did not exist yet when it was read)? */
function isEphemeral(view: ReviewedView): boolean {
  return EPHEMERAL_VIEWS.has(view);
}
