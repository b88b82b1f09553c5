/**
 * How `agent.say` judges what a reply cites (SPEC §7b). A passage is `verified` when its quote
 * occurs in the stored text of one of the run owner's own live documents, on the cited page or
 * the page before or after it — compared on those pages' text joined, so a quote that runs over a
 * page break counts — ignoring case and how whitespace is spaced — and is long enough to mean
 * something there (`quoteTooShort`: 20 characters and 4 words at least); anything else is
 * `unverified`, whatever the reason (another owner's document, a removed one, a page it does not
 * have, a quote it does not hold, a quote too short), so the answer tells nothing about documents
 * the owner cannot see (the text check is `quoteOnPage`). A working note is `note` when the run's
 * session holds it, `unverified` when it does not (never held, or removed since). The status is
 * the server's alone: the input schema has no field for it.
 *
 * Whether a passage supports its sentence (`support`) is the hosted runtime's check with a model,
 * which the server cannot run again: it keeps the runtime's word only on a quote it verified
 * itself (`keptSupport`), `unchecked` on any other passage; a note has none.
 */
import type { LogEntry } from '@oh/memory';
import { keptSupport, quoteTooShort } from '@sponge/contract';
import type { CitationStatus, CitationSupport, SaidCitation } from '@sponge/contract';
import { quoteOnPage } from './quotes.ts';

/** A document as the judge reads it: the run owner's own and live, or null. */
interface CitableDocument {
  text: string;
  pageStarts: number[];
}

/**
 * A citation as stored: a passage with its document, page, quote and support, or a working note
 * by where the session's log holds its name (`version` of the entry, `index` of the change in
 * it), never by the name itself.
 */
export type StoredCitation =
  | {
      kind: 'passage';
      status: CitationStatus;
      support: CitationSupport;
      documentId: string;
      page: number;
      quote: string | null;
    }
  | { kind: 'note'; status: CitationStatus; logRef: { version: number; index: number } | null };

/** Where the session's log last wrote each name, and which names it holds now. */
function notesInLog(log: readonly LogEntry[]): {
  held: Map<string, { version: number; index: number }>;
  seen: Map<string, { version: number; index: number }>;
} {
  const held = new Map<string, { version: number; index: number }>();
  const seen = new Map<string, { version: number; index: number }>();
  for (const entry of [...log].sort((a, b) => a.version - b.version)) {
    entry.applied.forEach((change, index) => {
      const ref = { version: entry.version, index };
      seen.set(change.name, ref);
      if (change.op === 'remove') held.delete(change.name);
      else held.set(change.name, ref);
    });
  }
  return { held, seen };
}

/** The name the log holds at `ref`, if the log still exists. */
export function nameAt(
  log: readonly LogEntry[],
  ref: { version: number; index: number },
): string | undefined {
  return log.find((e) => e.version === ref.version)?.applied[ref.index]?.name;
}

/** A citation as sent, with the server's status and, on a passage, the support it kept. */
type JudgedCitation = SaidCitation & { status: CitationStatus };

/**
 * Judges every citation. `document` reads one of the run owner's own live documents (null for
 * anything else); `log` is the run's session log (null when memory is off for the run).
 */
export async function judgeCitations(
  citations: readonly SaidCitation[],
  document: (documentId: string) => Promise<CitableDocument | null>,
  log: () => Promise<readonly LogEntry[] | null>,
): Promise<{ answer: JudgedCitation[]; stored: StoredCitation[] }> {
  const documents = new Map<string, Promise<CitableDocument | null>>();
  let notes: ReturnType<typeof notesInLog> | undefined;
  const answer: JudgedCitation[] = [];
  const stored: StoredCitation[] = [];
  for (const c of citations) {
    if ('note' in c) {
      notes ??= notesInLog((await log()) ?? []);
      const held = notes.held.get(c.note);
      const status: CitationStatus = held ? 'note' : 'unverified';
      answer.push({ ...c, status });
      stored.push({ kind: 'note', status, logRef: held ?? notes.seen.get(c.note) ?? null });
      continue;
    }
    // A quote too short to prove anything is not looked for: its document is not even read.
    let found: CitableDocument | null = null;
    if (!quoteTooShort(c.quote)) {
      let doc = documents.get(c.documentId);
      if (!doc) documents.set(c.documentId, (doc = document(c.documentId)));
      found = await doc;
    }
    const status: CitationStatus =
      found && quoteOnPage(found.text, found.pageStarts, c.page, c.quote) ? 'verified' : 'unverified';
    const support = keptSupport(status, c.support);
    answer.push({ ...c, status, support });
    const { documentId, page, quote } = c;
    stored.push({ kind: 'passage', status, support, documentId, page, quote });
  }
  return { answer, stored };
}
