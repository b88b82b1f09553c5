/**
 * The extraction queue's rules across API processes (SPEC §6b "Fair and bounded", §6c), kept on
 * each upload's `extraction_jobs` row (migration 021): whose PDF it is, and whether it waits for
 * its turn or is being read. Each process still reads PDFs on its own threads in its own order
 * (upload-queue.ts); the ledger adds what one process alone cannot see:
 *
 * - an owner with a file being read and one waiting, in any process, is refused `busy`;
 * - the files waiting are counted over all processes (UPLOAD_QUEUE_SIZE), except a file that
 *   starts at once on a free thread, which never waits;
 * - an owner's file is read only while no other file of theirs is, in any process: a file whose
 *   owner's other file is being read elsewhere waits on its thread for it (checking every
 *   CLAIM_POLL_MS, for at most the queue's wait), so a thread of this process may sit idle for
 *   that owner while another process reads their first file.
 *
 * A job counts only while its upload beats its row (extraction-store.ts): the rows of a process
 * that died stop counting after EXTRACTION_STALE_MS, and are swept soon after.
 */
import type { Client } from '@libsql/client';
import { busy, documentNotFound } from '../errors.ts';
import { EXTRACTION_STALE_MS } from './extraction-store.ts';

/** How often a file waiting for its owner's other file (in another process) looks again. Not measured. */
const CLAIM_POLL_MS = 500;

export interface QueueLedger {
  /**
   * Enters the upload's job (its document) as waiting for `ownerId`; rejects with `busy` when
   * the owner has a file being read and one waiting, or when the files waiting fill the queue and
   * this one would have to wait too (`startsAtOnce`: a thread of this process is free for it).
   */
  admit(documentId: string, ownerId: string, startsAtOnce: boolean): Promise<void>;
  /**
   * Marks the job as being read once no other file of its owner is (waiting meanwhile); rejects
   * with `busy` past the queue's wait, or with the signal's reason.
   */
  claim(documentId: string, ownerId: string, signal: AbortSignal): Promise<void>;
  /** The job was read (or given up): it no longer counts. */
  release(documentId: string): Promise<void>;
}

export function createQueueLedger(options: {
  db: Client;
  now: () => Date;
  maxWaiting: number;
  maxWaitMs: number;
  /** The longest a job may run: when a place is sure to be free again. */
  jobTimeoutMs: number;
  pollMs?: number;
}): QueueLedger {
  const { db, now } = options;
  const pollMs = options.pollMs ?? CLAIM_POLL_MS;
  const alive = () => new Date(now().getTime() - EXTRACTION_STALE_MS).toISOString();
  const mine = (state: 'running' | 'waiting') =>
    `EXISTS (SELECT 1 FROM extraction_jobs WHERE owner_id = ?2 AND queue_state = '${state}' AND alive_at > ?3 AND document_id <> ?1)`;

  /** Seconds until a read is sure to end: the owner's own, or anyone's; at least 1. */
  const retryAfter = (runningSince: unknown): number => {
    const since =
      runningSince === null || runningSince === undefined ? now().getTime() : Number(runningSince);
    return Math.max(1, Math.ceil((since + options.jobTimeoutMs - now().getTime()) / 1000));
  };
  async function refusal(documentId: string, ownerId: string): Promise<Error> {
    const rs = await db.execute({
      sql: `SELECT ${mine('running')} AS running, ${mine('waiting')} AS waiting,
              (SELECT min(running_since_ms) FROM extraction_jobs
                WHERE owner_id = ?2 AND queue_state = 'running' AND alive_at > ?3) AS own_since,
              (SELECT min(running_since_ms) FROM extraction_jobs
                WHERE queue_state = 'running' AND alive_at > ?3) AS any_since,
              EXISTS (SELECT 1 FROM extraction_jobs WHERE document_id = ?1) AS present`,
      args: [documentId, ownerId, alive()],
    });
    const row = rs.rows[0];
    // Removed by its owner, or swept, while it was being let in.
    if (!row || !Number(row.present)) return documentNotFound();
    if (Number(row.running) && Number(row.waiting))
      return busy('You already have a file being read and another one waiting.', retryAfter(row.own_since));
    return busy('The queue of files waiting to be read is full.', retryAfter(row.any_since));
  }

  return {
    async admit(documentId, ownerId, startsAtOnce) {
      const rs = await db.execute({
        sql: `UPDATE extraction_jobs SET owner_id = ?2, queue_state = 'waiting'
               WHERE document_id = ?1
                 AND NOT (${mine('running')} AND ${mine('waiting')})
                 AND ((?4 AND NOT ${mine('running')})
                      OR (SELECT count(*) FROM extraction_jobs
                           WHERE queue_state = 'waiting' AND alive_at > ?3 AND document_id <> ?1) < ?5)`,
        args: [documentId, ownerId, alive(), startsAtOnce ? 1 : 0, options.maxWaiting],
      });
      if (rs.rowsAffected === 0) throw await refusal(documentId, ownerId);
    },

    async claim(documentId, ownerId, signal) {
      const deadline = performance.now() + options.maxWaitMs;
      for (;;) {
        if (signal.aborted) throw signal.reason as Error;
        const [claimed, present] = await db.batch(
          [
            {
              sql: `UPDATE extraction_jobs SET queue_state = 'running', running_since_ms = ?4
                     WHERE document_id = ?1 AND NOT ${mine('running')}`,
              args: [documentId, ownerId, alive(), now().getTime()],
            },
            { sql: 'SELECT 1 FROM extraction_jobs WHERE document_id = ?', args: [documentId] },
          ],
          'write',
        );
        if ((claimed?.rowsAffected ?? 0) > 0) return;
        if ((present?.rows.length ?? 0) === 0) throw documentNotFound();
        if (performance.now() >= deadline)
          throw busy(
            `The file waited more than ${Math.round(options.maxWaitMs / 1000)} s to be read.`,
            retryAfter(null),
          );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pollMs);
          function done() {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resolve();
          }
          signal.addEventListener('abort', done, { once: true });
        });
      }
    },

    async release(documentId) {
      await db.execute({
        sql: 'UPDATE extraction_jobs SET queue_state = NULL, running_since_ms = NULL WHERE document_id = ?',
        args: [documentId],
      });
    },
  };
}
