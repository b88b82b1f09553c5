/**
 * Reading content: the agent's `read` tool and the owner's views of notes and reviewed knowledge.
 *
 * Content leaves the store only after its digest was recomputed from the stored fields and found
 * equal to the stored digest; a mismatch is an `integrity` error, never a silent answer.
 */
import type { Row } from '@libsql/client';
import { num, str } from './context.ts';
import type { StoreContext } from './context.ts';
import { MemoryError } from './errors.ts';
import { parseStoredData, parseStoredLinks, recordDigest } from './records.ts';
import { readInputSchema } from '@oh/schema';
import { requireOpenSession, requireSession } from './sessions.ts';
import { parseInput } from './validation.ts';
import type { AgentContext, NoteView, ReadResult, ReviewedRecord } from './types.ts';

const NOTE_COLUMNS = 'name, kind, text, data, links, digest, author, created_at, updated_at, version';

/** A stored note with its digest checked against its content. */
function verifiedNote(row: Row): NoteView {
  const note: NoteView = {
    kind: str(row.kind),
    name: str(row.name),
    digest: str(row.digest),
    text: str(row.text),
    data: parseStoredData(row.data),
    links: parseStoredLinks(row.links),
    author: str(row.author),
    createdAt: str(row.created_at),
    updatedAt: str(row.updated_at),
    version: num(row.version),
  };
  const recomputed = recordDigest(note);
  if (recomputed !== note.digest) {
    throw new MemoryError(
      'integrity',
      `note ${note.name} failed its integrity check: stored digest ${note.digest.slice(0, 12)}… but its content digests to ${recomputed.slice(0, 12)}…`,
    );
  }
  return note;
}

function verifiedReviewed(record: ReviewedRecord): ReviewedRecord {
  const recomputed = recordDigest(record);
  if (recomputed !== record.digest) {
    throw new MemoryError(
      'integrity',
      `reviewed record ${record.name} (revision ${record.revision}) failed its integrity check: stored digest ${record.digest.slice(0, 12)}… but its content digests to ${recomputed.slice(0, 12)}…`,
    );
  }
  return record;
}

export async function read(ctx: StoreContext, agent: AgentContext, input: unknown): Promise<ReadResult> {
  const valid = parseInput(readInputSchema, input, 'read input');
  const session = await requireOpenSession(ctx, agent.sessionId);

  let result: ReadResult | null = null;
  if (valid.source !== 'reviewed') {
    const rs = await ctx.client.execute({
      sql: `SELECT ${NOTE_COLUMNS} FROM notes WHERE session_id = ? AND name = ?`,
      args: [session.id, valid.name],
    });
    const row = rs.rows[0];
    if (row) {
      const note = verifiedNote(row);
      result = {
        source: 'note',
        kind: note.kind,
        name: note.name,
        text: note.text,
        data: note.data,
        links: note.links,
        digest: note.digest,
        version: note.version,
        author: note.author,
        createdAt: note.createdAt,
        updatedAt: note.updatedAt,
      };
    }
  }
  if (!result && valid.source !== 'note') {
    const view = await ctx.reviewed.get(session.documentId, session.pinnedRevision);
    const found = view.byName.get(valid.name);
    if (found) {
      const record = verifiedReviewed(found);
      result = {
        source: 'reviewed',
        kind: record.kind,
        name: record.name,
        text: record.text,
        data: record.data,
        links: record.links,
        digest: record.digest,
        revision: session.pinnedRevision,
        author: record.reviewerId,
        createdAt: record.createdAt,
        updatedAt: record.createdAt,
      };
    }
  }
  if (!result) {
    const where =
      valid.source === 'note'
        ? 'among the working notes'
        : valid.source === 'reviewed'
          ? 'in the reviewed knowledge in view'
          : 'among the working notes or the reviewed knowledge in view';
    throw new MemoryError('no_such_note', `no record named ${valid.name} ${where}`);
  }
  if (valid.digest !== undefined && valid.digest !== result.digest) {
    throw new MemoryError(
      'stale_digest',
      `${valid.name} no longer has digest ${valid.digest.slice(0, 4)}...; it is now ${result.digest.slice(0, 4)}...; read it again without a digest`,
    );
  }
  return result;
}

/** The owner's panel: a session's notes with content, newest change first. Empty once forgotten or purged. */
export async function notes(ctx: StoreContext, sessionId: string): Promise<NoteView[]> {
  const session = await requireSession(ctx, sessionId);
  if (session.state === 'forgotten' || session.state === 'purged' || session.state === 'empty') return [];
  const rs = await ctx.client.execute({
    sql: `SELECT ${NOTE_COLUMNS} FROM notes WHERE session_id = ? ORDER BY version DESC, seq DESC`,
    args: [session.id],
  });
  return rs.rows.map(verifiedNote);
}

/** The reviewed records the session sees at its pinned revision. Empty once forgotten or purged. */
export async function reviewedInView(ctx: StoreContext, sessionId: string): Promise<ReviewedRecord[]> {
  const session = await requireSession(ctx, sessionId);
  if (session.state === 'forgotten' || session.state === 'purged' || session.state === 'empty') return [];
  const view = await ctx.reviewed.get(session.documentId, session.pinnedRevision);
  return view.records.map(verifiedReviewed);
}
