/**
 * Leases on a document's background work (migration 022, issue 37 point 5): its OCR, then its
 * indexing. Every API process on the application database runs a recognizer and an indexer, and
 * each would otherwise take the same waiting document: the same pages recognised twice (seconds
 * of CPU each), every chunk embedded twice, and two writers racing on the document's pages and
 * state.
 *
 * A worker takes a document's work with one statement (ocr-store.ts, index-store.ts) that inserts
 * its lease only while nobody else's is live. It then renews the lease with every write it makes
 * (a page, a batch of chunks) and on a beat in between (a page may take a minute, an embedding
 * request its retries), and gives it up when the work ends or stops. Each of its writes is made
 * only while the lease is still its own (`heldSql`), so a worker that was taken for dead — its
 * lease lapsed while it stalled and another took over — writes nothing more and stops at its next
 * write or beat; so does the worker of a document removed meanwhile, whose leases go with it. A
 * process that dies leaves a lease that lapses after WORK_LEASE_MS; the next worker to look
 * resumes the work where the dead one's last write left it.
 *
 * Lapse is judged on the API's clock (tests move it); the beat runs on real time.
 */
import { randomUUID } from 'node:crypto';
import type { Client, InStatement } from '@libsql/client';

export type Work = 'ocr' | 'index';

/**
 * How long a lease holds without renewal: past it the worker is taken for dead and its work for
 * anyone's. Six beats, as an upload's extraction (extraction-store.ts): a process whose writes wait
 * behind a busy database for a while keeps its work. The price is how long a dead process's
 * document waits before another process resumes it, also after a restart of a lone API process.
 */
export const WORK_LEASE_MS = 30_000;

/** How often a worker renews its lease between its own writes. Not measured: one small write. */
const WORK_BEAT_MS = 5_000;

export interface Lease {
  work: Work;
  documentId: string;
  /** The worker's own id (one per recognizer or indexer, so per process). */
  holder: string;
}

export function newHolder(): string {
  return randomUUID();
}

/**
 * A condition true while `lease` is still its holder's, for every write of its work; its
 * arguments are `heldArgs(lease)`. A lease that lapsed and that nobody took over still holds.
 */
export function heldSql(work: Work): string {
  return `EXISTS (SELECT 1 FROM work_leases WHERE work = '${work}' AND document_id = ? AND holder = ?)`;
}

export function heldArgs(lease: Lease): [string, string] {
  return [lease.documentId, lease.holder];
}

/**
 * The condition under which a worker may take a document's work: nobody else holds a live lease on
 * it. The holder's own lease counts for nothing (one it failed to give up, say on a lock). Its
 * arguments are `:now` and `:holder`; `documentId` is the SQL naming the document.
 */
export function freeSql(work: Work, documentId: string): string {
  return `NOT EXISTS (SELECT 1 FROM work_leases l WHERE l.work = '${work}' AND l.document_id = ${documentId}
            AND l.until_ms > :now AND l.holder <> :holder)`;
}

/** Makes a lease live until `now` plus WORK_LEASE_MS; affects no row when it is no longer its holder's. */
export function renewStatement(lease: Lease, now: Date): InStatement {
  return {
    sql: 'UPDATE work_leases SET until_ms = ? WHERE work = ? AND document_id = ? AND holder = ?',
    args: [now.getTime() + WORK_LEASE_MS, lease.work, lease.documentId, lease.holder],
  };
}

/** Gives the work up (ended, stopped or failed): another worker may take it at once. */
export function releaseStatement(lease: Lease): InStatement {
  return {
    sql: 'DELETE FROM work_leases WHERE work = ? AND document_id = ? AND holder = ?',
    args: [lease.work, lease.documentId, lease.holder],
  };
}

export async function releaseLease(db: Client, lease: Lease): Promise<void> {
  await db.execute(releaseStatement(lease));
}

/**
 * How long until the first live lease of another worker on `work` lapses (ms on the API clock), or
 * null when there is none: a worker that found nothing it could take looks again then, in case
 * that worker died (or its owner's other job, which held this one back, ended).
 */
export async function untilLapse(db: Client, work: Work, holder: string, now: Date): Promise<number | null> {
  const rs = await db.execute({
    sql: 'SELECT min(until_ms) AS at FROM work_leases WHERE work = ? AND holder <> ? AND until_ms > ?',
    args: [work, holder, now.getTime()],
  });
  const at = rs.rows[0]?.at;
  return at === null || at === undefined ? null : Number(at) - now.getTime();
}

/**
 * Renews `lease` every WORK_BEAT_MS until stopped; `onLost` is called once, when a renewal finds
 * the lease no longer its holder's (taken over, or its document removed). A renewal that fails (a
 * lock) is tried again at the next beat: the lease outlives several.
 */
export function keepLease(options: {
  db: Client;
  lease: Lease;
  now: () => Date;
  onLost: () => void;
  onError: (err: unknown) => void;
}): { stop(): void } {
  let stopped = false;
  let renewing = false;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    options.db.execute(renewStatement(options.lease, options.now())).then(
      (rs) => {
        renewing = false;
        if (rs.rowsAffected > 0 || stopped) return;
        stopped = true;
        clearInterval(timer);
        options.onLost();
      },
      (err: unknown) => {
        renewing = false;
        if (!stopped) options.onError(err);
      },
    );
  }, WORK_BEAT_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * Whether another worker holds the work now (after a write or a renewal found the lease gone): if
 * not, the document was removed, which is no news for the log.
 */
export async function takenOver(db: Client, lease: Lease): Promise<boolean> {
  const rs = await db.execute({
    sql: 'SELECT 1 FROM work_leases WHERE work = ? AND document_id = ? AND holder <> ?',
    args: [lease.work, lease.documentId, lease.holder],
  });
  return rs.rows.length > 0;
}

/** What a worker throws when a write finds its lease gone: the document was removed, or another process has the work now. */
export class LeaseLost extends Error {
  constructor(lease: Lease) {
    super(
      `the ${lease.work === 'ocr' ? 'OCR' : 'indexing'} of ${lease.documentId} is no longer this process's`,
    );
    this.name = 'LeaseLost';
  }
}
