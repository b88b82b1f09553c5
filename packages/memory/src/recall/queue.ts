/**
 * Background indexing for the recall index: notes queued by `indexLater` are embedded and stored
 * in batches off the caller's path. It never throws to the caller: a failed batch is retried in
 * process with exponential backoff (full jitter, honouring an adapter's Retry-After); after
 * `maxAttempts` the batch is given up and the session marked for catch-up, as it is when the
 * queue is full or closed.
 */
import { EmbeddingError } from './adapter.ts';
import type { RecallNote } from './render.ts';
import { checkSession } from './validate.ts';

export interface RecallQueueOptions {
  /** Notes queued across all sessions before new ones are refused (and the session marked for catch-up). 5,000 by default. */
  maxPending?: number;
  /** Attempts per batch before giving up (the session is then marked for catch-up). 6 by default. */
  maxAttempts?: number;
  /** First retry delay; 1 s by default, doubling with full jitter. */
  baseDelayMs?: number;
  /** Largest retry delay; 60 s by default. */
  maxDelayMs?: number;
  /** Notes embedded per background batch; 256 by default. */
  batchSize?: number;
}

export type BackgroundErrorListener = (
  error: unknown,
  info: { sessionId: string; attempt: number; gaveUp: boolean },
) => void;

export interface IndexQueueOptions extends RecallQueueOptions {
  /** Indexes one batch (rejects to have it retried). */
  index(sessionId: string, notes: RecallNote[]): Promise<unknown>;
  /** By default a process warning is emitted when a session's batch is given up. */
  onBackgroundError?: BackgroundErrorListener | undefined;
}

// Function-typed properties, not methods: the index hands them out unbound (`indexLater: queue.add`).
export interface IndexQueue {
  /** Queues notes and returns at once; never throws. */
  add: (sessionId: string, notes: RecallNote[]) => void;
  /** Notes waiting (for one session, or all). */
  pending: (sessionId?: string) => number;
  /** Runs every queued batch now (ignoring backoff) until the queue is empty or an attempt fails; returns what is left. */
  drain: () => Promise<number>;
  /** Stops background work (queued notes are dropped and their sessions marked for catch-up). */
  close: () => void;
  /** Drops the queued notes of these names. */
  drop: (sessionId: string, names: Iterable<string>) => void;
  /** Drops queued notes that these notes, just indexed, make redundant (same name and digest). */
  settle: (sessionId: string, notes: Iterable<RecallNote>) => void;
  /** Drops everything queued for the session and its catch-up mark: the session's data is gone. */
  cancel: (sessionId: string) => void;
  needsCatchUp: (sessionId: string) => boolean;
  /** The session was caught up (or rebuilt) since it was marked. */
  caughtUp: (sessionId: string) => void;
}

interface SessionQueue {
  notes: Map<string, RecallNote>;
  attempts: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  running: Promise<void> | undefined;
}

const warnWhenGivenUp: BackgroundErrorListener = (error, info) => {
  if (!info.gaveUp) return;
  const message = error instanceof Error ? error.message : String(error);
  // A library warning, not console output: the host decides where process warnings go.
  process.emitWarning(
    `recall: background indexing for session ${info.sessionId} gave up after ${info.attempt} attempts: ${message}`,
  );
};

export function createIndexQueue(options: IndexQueueOptions): IndexQueue {
  const maxPending = options.maxPending ?? 5_000;
  const maxAttempts = options.maxAttempts ?? 6;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const queueBatch = options.batchSize ?? 256;
  const onBackgroundError = options.onBackgroundError ?? warnWhenGivenUp;

  let closed = false;
  const queues = new Map<string, SessionQueue>();
  const marked = new Set<string>();

  function pending(sessionId?: string): number {
    if (sessionId !== undefined) return queues.get(sessionId)?.notes.size ?? 0;
    let n = 0;
    for (const q of queues.values()) n += q.notes.size;
    return n;
  }

  function add(sessionId: string, notes: RecallNote[]): void {
    try {
      checkSession(sessionId);
      if (closed) {
        marked.add(sessionId);
        return;
      }
      let q = queues.get(sessionId);
      if (!q) {
        q = { notes: new Map(), attempts: 0, timer: undefined, running: undefined };
        queues.set(sessionId, q);
      }
      let room = maxPending - pending();
      let refused = 0;
      for (const n of notes) {
        if (q.notes.has(n.name))
          q.notes.delete(n.name); // re-insert: newest content, queue order
        else if (room <= 0) {
          refused++;
          continue;
        } else room--;
        q.notes.set(n.name, n);
      }
      if (refused > 0) {
        marked.add(sessionId);
        onBackgroundError(new Error(`recall: background queue full, ${refused} notes left for catch-up`), {
          sessionId,
          attempt: 0,
          gaveUp: true,
        });
      }
      if (q.notes.size === 0 && !q.running) queues.delete(sessionId);
      else if (q.attempts === 0) schedule(sessionId, 0); // during backoff, keep the retry timer
    } catch (err) {
      try {
        onBackgroundError(err, { sessionId, attempt: 0, gaveUp: true });
      } catch {
        // never let background indexing reach the caller
      }
    }
  }

  function schedule(sessionId: string, delay: number): void {
    const q = queues.get(sessionId);
    if (!q || q.timer || q.running || closed) return;
    q.timer = setTimeout(() => {
      q.timer = undefined;
      void runBatch(sessionId);
    }, delay);
    q.timer.unref?.();
  }

  async function runBatch(sessionId: string): Promise<void> {
    const q = queues.get(sessionId);
    if (!q || q.running || closed) return;
    const batch = [...q.notes.values()].slice(0, queueBatch);
    if (batch.length === 0) {
      queues.delete(sessionId);
      return;
    }
    let retryIn = 0;
    q.running = (async () => {
      try {
        await options.index(sessionId, batch);
        for (const n of batch) if (q.notes.get(n.name) === n) q.notes.delete(n.name);
        q.attempts = 0;
      } catch (err) {
        q.attempts++;
        const gaveUp = q.attempts >= maxAttempts;
        try {
          onBackgroundError(err, { sessionId, attempt: q.attempts, gaveUp });
        } catch {
          // a throwing listener must not stop the queue
        }
        if (gaveUp) {
          for (const n of batch) if (q.notes.get(n.name) === n) q.notes.delete(n.name);
          q.attempts = 0;
          marked.add(sessionId);
        } else {
          const backoff = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (q.attempts - 1));
          const hinted = err instanceof EmbeddingError ? err.retryAfterMs : undefined;
          retryIn = Math.min(maxDelayMs, Math.max(backoff, hinted ?? 0));
        }
      }
    })();
    await q.running;
    q.running = undefined;
    if (queues.get(sessionId) !== q) return;
    if (q.notes.size === 0) queues.delete(sessionId);
    else schedule(sessionId, retryIn);
  }

  async function drain(): Promise<number> {
    for (;;) {
      let progressed = false;
      for (const [sessionId, q] of [...queues]) {
        if (q.running) {
          await q.running;
          progressed = true;
          continue;
        }
        if (q.timer) clearTimeout(q.timer);
        q.timer = undefined;
        const before = q.notes.size;
        const attemptsBefore = q.attempts;
        await runBatch(sessionId);
        if (q.notes.size < before && q.attempts <= attemptsBefore) progressed = true;
      }
      if (!progressed || queues.size === 0) return pending();
    }
  }

  function close(): void {
    closed = true;
    for (const [sessionId, q] of queues) {
      if (q.timer) clearTimeout(q.timer);
      q.timer = undefined;
      if (q.notes.size > 0) marked.add(sessionId);
      q.notes.clear();
    }
    queues.clear();
  }

  return {
    add,
    pending,
    drain,
    close,
    drop(sessionId, names) {
      const q = queues.get(sessionId);
      if (q) for (const name of names) q.notes.delete(name);
    },
    settle(sessionId, notes) {
      const q = queues.get(sessionId);
      if (q) for (const n of notes) if (q.notes.get(n.name)?.digest === n.digest) q.notes.delete(n.name);
    },
    cancel(sessionId) {
      const q = queues.get(sessionId);
      if (q) {
        q.notes.clear();
        if (q.timer) clearTimeout(q.timer);
        q.timer = undefined;
        if (!q.running) queues.delete(sessionId);
      }
      marked.delete(sessionId);
    },
    needsCatchUp: (sessionId) => marked.has(sessionId),
    caughtUp(sessionId) {
      marked.delete(sessionId);
    },
  };
}
