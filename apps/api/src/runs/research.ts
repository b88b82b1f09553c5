/**
 * The research assistant's rows (migration 015): a card for every library call a run's agent made,
 * and the citations of its replies as `agent.say` judged them.
 */
import type { Client, InStatement } from '@libsql/client';
import { keptSupport, quoteTooShort } from '@sponge/contract';
import type { CitationStatus } from '@sponge/contract';
import type { StoredCitation } from '@sponge/library';

export type LibraryEvent =
  | { action: 'searched'; at: string; query: string; count: number; documentId?: string }
  | { action: 'read'; at: string; documentId: string; page: number; start: number; end: number };

/** A stored card with its row id, which grows in commit order (what a live view reads after). */
export type StoredLibraryEvent = LibraryEvent & { id: number };

export async function insertLibraryEvent(db: Client, runId: string, ev: LibraryEvent): Promise<void> {
  await db.execute({
    sql: `INSERT INTO run_library_events (run_id, at, action, query, count, document_id, page, span_start, span_end)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args:
      ev.action === 'searched'
        ? [runId, ev.at, ev.action, ev.query, ev.count, ev.documentId ?? null, null, null, null]
        : [runId, ev.at, ev.action, null, null, ev.documentId, ev.page, ev.start, ev.end],
  });
}

/** The run's library cards in commit order; with `afterId`, only those committed after that one. */
export async function listLibraryEvents(
  db: Client,
  runId: string,
  afterId = 0,
): Promise<StoredLibraryEvent[]> {
  const rs = await db.execute({
    sql: `SELECT id, at, action, query, count, document_id, page, span_start, span_end
            FROM run_library_events WHERE run_id = ? AND id > ? ORDER BY id`,
    args: [runId, afterId],
  });
  return rs.rows.map((r): StoredLibraryEvent => {
    const id = Number(r.id);
    const at = String(r.at);
    if (r.action === 'searched')
      return {
        id,
        action: 'searched',
        at,
        query: String(r.query),
        count: Number(r.count),
        ...(r.document_id === null ? {} : { documentId: String(r.document_id) }),
      };
    return {
      id,
      action: 'read',
      at,
      documentId: String(r.document_id),
      page: Number(r.page),
      start: Number(r.span_start),
      end: Number(r.span_end),
    };
  });
}

/** The agent's reply and its citations, in one batch. */
export async function insertAgentMessage(
  db: Client,
  runId: string,
  msg: { text: string; at: string; citations: StoredCitation[]; noteSpans: Array<[number, number]> },
): Promise<void> {
  const message = '(SELECT max(id) FROM transcript_messages WHERE run_id = ?)';
  const spans = msg.noteSpans.length === 0 ? null : JSON.stringify(msg.noteSpans);
  const statements: InStatement[] = [
    {
      sql: `INSERT INTO transcript_messages (run_id, at, role, text, note_spans) VALUES (?, ?, 'agent', ?, ?)`,
      args: [runId, msg.at, msg.text, spans],
    },
    ...msg.citations.map((c, position): InStatement => ({
      sql: `INSERT INTO message_citations (message_id, position, status, document_id, page, quote, note_version, note_index, support)
              VALUES (${message}, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args:
        c.kind === 'passage'
          ? [runId, position, c.status, c.documentId, c.page, c.quote, null, null, c.support]
          : [
              runId,
              position,
              c.status,
              null,
              null,
              null,
              c.logRef?.version ?? null,
              c.logRef?.index ?? null,
              null,
            ],
    })),
  ];
  await db.batch(statements, 'write');
}

export interface MessageWithCitations {
  /** The row id, which grows in commit order (what a live view reads after). */
  id: number;
  role: 'you' | 'agent';
  text: string;
  at: string;
  /** Only on agent messages that cited something. */
  citations: StoredCitation[];
  /** Where an agent message names its session's notes (`noteMentions`). */
  noteSpans: Array<[number, number]>;
}

/**
 * The run's messages, oldest first, each with its citations in the order given; with `afterId`,
 * only those committed after that one.
 */
export async function listMessagesWithCitations(
  db: Client,
  runId: string,
  afterId = 0,
): Promise<MessageWithCitations[]> {
  const messages = await db.execute({
    sql: 'SELECT id, at, role, text, note_spans FROM transcript_messages WHERE run_id = ? AND id > ? ORDER BY id',
    args: [runId, afterId],
  });
  if (messages.rows.length === 0) return [];
  // Citations of a reply written after the read above belong to no message read: left out.
  const citations = await db.execute({
    sql: `SELECT c.message_id, c.status, c.document_id, c.page, c.quote, c.note_version, c.note_index, c.support
            FROM message_citations c JOIN transcript_messages m ON m.id = c.message_id
           WHERE m.run_id = ? AND m.id > ? ORDER BY c.message_id, c.position`,
    args: [runId, afterId],
  });
  const byMessage = new Map<number, StoredCitation[]>();
  for (const r of citations.rows) {
    const id = Number(r.message_id);
    const quote = r.quote === null ? null : String(r.quote);
    // Stored before short quotes stopped counting (SPEC §7b): never shown as verified either.
    const stored = String(r.status) as CitationStatus;
    const status = stored === 'verified' && quote !== null && quoteTooShort(quote) ? 'unverified' : stored;
    const c: StoredCitation =
      r.document_id !== null
        ? {
            kind: 'passage',
            status,
            // NULL before migration 026: nothing was checked then.
            support: keptSupport(status, r.support),
            documentId: String(r.document_id),
            page: Number(r.page),
            quote,
          }
        : {
            kind: 'note',
            status,
            logRef:
              r.note_version === null
                ? null
                : { version: Number(r.note_version), index: Number(r.note_index) },
          };
    const list = byMessage.get(id);
    if (list) list.push(c);
    else byMessage.set(id, [c]);
  }
  return messages.rows.map((r) => ({
    id: Number(r.id),
    at: String(r.at),
    role: String(r.role) as 'you' | 'agent',
    text: String(r.text),
    citations: byMessage.get(Number(r.id)) ?? [],
    noteSpans: r.note_spans === null ? [] : (JSON.parse(String(r.note_spans)) as Array<[number, number]>),
  }));
}

/**
 * A removed document's quotes leave the citations that held them, as its text leaves the
 * database (its id, page and status stay, like the runs that point at it).
 */
export function clearQuotesStatement(documentId: string): InStatement {
  return {
    sql: 'UPDATE message_citations SET quote = NULL WHERE document_id = ? AND quote IS NOT NULL',
    args: [documentId],
  };
}
