/**
 * Background indexing for the recall index: notes queued by `indexLater` are embedded and stored
 * off the caller's path. It never throws to the caller: a failed batch is retried in process with
 * exponential backoff (full jitter, honouring an adapter's Retry-After); after `maxAttempts` the
 * batch is given up and its sessions marked for catch-up, as they are when the queue is full or
 * closed.
 *
 * Retries happen at one layer. An adapter that retries its own requests (the cloud adapter: its
 * EmbeddingError says how many `attempts` it made) has already run its policy when its error
 * arrives here, and an error that is not `retryable` would only be repeated: either gives the batch
 * up at once, and background catch-up waits `maxDelayMs` (or the server's Retry-After, if longer).
 * Retrying here as well made each of the queue's attempts several requests (issue 24: 3 retries
 * inside 6 attempts, ~24 requests per batch).
 *
 * One batch serves every session that has notes due (issue 19): notes gather for `flushDelayMs`,
 * then one embedding call and one write take them all. Fifty agents writing one note each cost one
 * background write, not fifty, so shadow indexing stays cheap under load.
 */
import { EmbeddingError } from '@oh/embeddings';
import type { BackgroundErrorListener } from '../types.ts';
import type { RecallNote } from './render.ts';
import { checkSession } from './validate.ts';

export interface RecallQueueOptions {
  /** Notes queued across all sessions before new ones are refused (and the session marked for catch-up). 5,000 by default. */
  maxPending?: number;
  /**
   * Attempts per batch before giving up (its sessions are then marked for catch-up). 6 by default.
   * Only for failures no one retried yet: an adapter's own retries are not repeated here.
   */
  maxAttempts?: number;
  /** First retry delay; 1 s by default, doubling with full jitter. */
  baseDelayMs?: number;
  /** Largest retry delay; 60 s by default. */
  maxDelayMs?: number;
  /** Notes embedded per background batch, across sessions; 256 by default. */
  batchSize?: number;
  /** How long queued notes gather before a batch starts; 5 ms by default. */
  flushDelayMs?: number;
  /**
   * The largest share of the time background batches may take: after a batch that took t ms, the
   * next starts no sooner than t × (1 − share) / share later. 0.05 by default. Light load never
   * meets it (a batch of a few notes takes a millisecond); under heavy load it keeps indexing from
   * taking the CPU the agents' own calls need. What it leaves undone stays queued, up to
   * `maxPending`; past that, the sessions are marked and caught up later. The share applies
   * while the process is busy with other work: after a pause in which the event loop was mostly
   * idle (under 30 % utilised), batches may take half the time, so a backlog clears quickly
   * once the load drops.
   */
  busyShare?: number;
}

export interface IndexQueueOptions extends RecallQueueOptions {
  /** Indexes one batch: the notes of one or more sessions (rejects to have all of them retried). */
  index(batch: ReadonlyMap<string, RecallNote[]>): Promise<unknown>;
  /** By default a process warning is emitted when a session's batch is given up. */
  onBackgroundError?: BackgroundErrorListener | undefined;
  /**
   * Up to `limit` notes of a marked session that have no vector at their current digest. With it,
   * the queue catches marked sessions up by itself whenever it has nothing else to do (at the same
   * `busyShare`); without it, a marked session waits for its next recall.
   */
  refill?: ((sessionId: string, limit: number) => Promise<RecallNote[]>) | undefined;
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
  /** Failed attempts of this session's notes in a row. */
  attempts: number;
  /** Not before this time (performance.now()); 0 when due. */
  retryAt: number;
}

/**
 * The share of the time batches may take after a pause in which the event loop was mostly idle.
 * Not measured against other values: higher clears a backlog sooner once the load drops, at the
 * cost of longer stretches of indexing if the load comes back. With it, the shadow figure's
 * backlog cleared within ten seconds of the load stopping (bench/README.md, notebook, "Shadow
 * indexing under load": 58 % of the notes indexed when the load stopped, 100 % ten seconds later).
 */
const IDLE_SHARE = 0.5;
/**
 * Below this event-loop utilisation a pause counts as idle (IDLE_SHARE), at or above it as busy
 * (`busyShare`). Not measured: lower treats a lightly loaded process as busy and leaves its backlog
 * waiting; higher lets indexing take half the time while agents are still calling. The `pacing`
 * figure checks the rule (the pause after a busy pause and after an idle one), not this value.
 */
const IDLE_UTILISATION = 0.3;

export const warnWhenGivenUp: BackgroundErrorListener = (error, info) => {
  if (!info.gaveUp) return;
  const message = error instanceof Error ? error.message : String(error);
  // A library warning, not console output: the host decides where process warnings go.
  process.emitWarning(
    `recall: background indexing for session ${info.sessionId} gave up after ${info.attempt} attempts: ${message}`,
  );
};

export function createIndexQueue(options: IndexQueueOptions): IndexQueue {
  // Not measured: more holds more note texts in memory in a burst; fewer leaves more sessions to
  // catch-up (a full queue marks them), which re-reads their notes later.
  const maxPending = options.maxPending ?? 5_000;
  // Not measured: with full jitter, six attempts wait at most 1 + 2 + 4 + 8 + 16 s (longer only
  // if the server's Retry-After asks) before the batch goes to catch-up; retrying longer keeps a
  // failing endpoint's notes queued longer, shorter re-reads them from the store sooner.
  const maxAttempts = options.maxAttempts ?? 6;
  const baseDelayMs = options.baseDelayMs ?? 1_000;
  // Not measured: also how long background catch-up waits after an endpoint gave up.
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  // Not measured: a bigger batch is fewer embedding calls and commits per note, and a longer
  // single step of the event loop (busyShare paces the pause after a batch, not its length).
  const batchSize = options.batchSize ?? 256;
  // Not measured: how long the notes of calls close together gather into one batch; every note
  // waits at least this long before it is embedded.
  const flushDelayMs = options.flushDelayMs ?? 5;
  // bench/README.md, notebook, "Shadow indexing under load" (50 agents, shadow against recall off,
  // alternating windows): batches held to a tenth of the time gave 0.79–0.91, to a twentieth
  // 1.02–1.03 (17:12, 17:15) and 1.17 in the full run (`2026-12-03T17-38-22-457Z.json`).
  const busyShare = options.busyShare ?? 0.05;
  if (!(busyShare > 0 && busyShare <= 1))
    throw new RangeError('recall: busyShare is a share above 0, at most 1');
  const onBackgroundError = options.onBackgroundError ?? warnWhenGivenUp;

  let closed = false;
  const queues = new Map<string, SessionQueue>();
  const marked = new Set<string>();
  // One batch at a time; one timer, set for the earliest moment a batch can start.
  let running: Promise<boolean> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Infinity;
  /** No batch starts before this (performance.now()): the pause `busyShare` asks for. */
  let restUntil = 0;
  /** Event-loop utilisation when the last batch ended: how busy the pause since then was. */
  let afterLastBatch = performance.eventLoopUtilization();
  /** After a failed refill, background catch-up waits `maxDelayMs` (recall still catches up). */
  let refillAfter = 0;

  const report: BackgroundErrorListener = (error, info) => {
    try {
      onBackgroundError(error, info);
    } catch {
      // a throwing listener must not stop the queue, nor reach the caller
    }
  };

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
        q = { notes: new Map(), attempts: 0, retryAt: 0 };
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
      // Said once when the session is left for catch-up, not again while it stays so: under 50
      // agents the queue stays full, and an Error and a log line on every add were a tenth of the
      // API's time per call (issue 42, bench/README.md notebook).
      if (refused > 0 && !marked.has(sessionId)) {
        marked.add(sessionId);
        report(new Error(`recall: background queue full, ${refused} notes left for catch-up`), {
          sessionId,
          attempt: 0,
          gaveUp: true,
        });
      }
      if (q.notes.size === 0) queues.delete(sessionId);
      else schedule();
    } catch (err) {
      report(err, { sessionId, attempt: 0, gaveUp: true });
    }
  }

  /** Sets the timer for the earliest session due (a session in backoff keeps its retry time). */
  function schedule(): void {
    if (closed || running) return;
    let earliest = Infinity;
    for (const q of queues.values()) if (q.notes.size > 0) earliest = Math.min(earliest, q.retryAt);
    // Marked sessions are caught up when nothing else is due.
    if (earliest === Infinity && options.refill && marked.size > 0) earliest = refillAfter;
    if (earliest === Infinity) return;
    const at = Math.max(earliest, restUntil, performance.now() + flushDelayMs);
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Infinity;
        void flush(false);
      },
      Math.max(0, at - performance.now()),
    );
    timer.unref?.();
  }

  /**
   * Sets the pause after a batch that took `took` ms, by how busy the event loop was in the pause
   * before it (`pauseUse`: the batch's own work is not counted as load).
   */
  function rest(took: number, pauseUse: number): void {
    afterLastBatch = performance.eventLoopUtilization();
    const share = pauseUse < IDLE_UTILISATION ? Math.max(busyShare, IDLE_SHARE) : busyShare;
    restUntil = performance.now() + (took * (1 - share)) / share;
  }

  /** How busy the event loop was since the last batch ended. */
  function pauseUse(): number {
    return performance.eventLoopUtilization(performance.eventLoopUtilization(), afterLastBatch).utilization;
  }

  /** Runs one batch of the sessions due (all of them with `ignoreBackoff`); false when it failed. */
  function flush(ignoreBackoff: boolean): Promise<boolean> {
    if (running) return running;
    const t = performance.now();
    const use = pauseUse();
    const batch = new Map<string, RecallNote[]>();
    const taken = new Map<string, SessionQueue>();
    let room = batchSize;
    for (const [sessionId, q] of queues) {
      if (room === 0) break;
      if (q.notes.size === 0 || (!ignoreBackoff && q.retryAt > t)) continue;
      const notes = [...q.notes.values()].slice(0, room);
      room -= notes.length;
      batch.set(sessionId, notes);
      taken.set(sessionId, q);
    }
    // Sessions served go to the back, so a long queue cannot starve the others.
    for (const [sessionId, q] of taken) {
      queues.delete(sessionId);
      queues.set(sessionId, q);
    }
    if (batch.size === 0) {
      if (options.refill && marked.size > 0 && !ignoreBackoff && t >= refillAfter) return refillOne(t, use);
      schedule();
      return Promise.resolve(true);
    }
    running = run(batch, taken).finally(() => {
      running = undefined;
      const took = performance.now() - t;
      rest(took, use);
      for (const [sessionId, q] of queues) if (q.notes.size === 0) queues.delete(sessionId);
      schedule();
    });
    return running;
  }

  /**
   * Nothing is queued: reads the next notes a marked session is missing and queues them (they
   * are indexed as any queued note). A session with nothing missing is caught up.
   */
  function refillOne(t: number, use: number): Promise<boolean> {
    const sessionId = marked.values().next().value!;
    running = (async () => {
      try {
        const notes = await options.refill!(sessionId, batchSize);
        // Cancelled (forgotten) meanwhile: nothing of it is queued again.
        if (closed || !marked.has(sessionId)) return true;
        if (notes.length === 0) marked.delete(sessionId);
        else {
          const q = queues.get(sessionId) ?? { notes: new Map(), attempts: 0, retryAt: 0 };
          queues.set(sessionId, q);
          for (const n of notes) if (!q.notes.has(n.name)) q.notes.set(n.name, n);
        }
        return true;
      } catch (err) {
        // Left marked: the next recall of the session catches it up.
        refillAfter = performance.now() + maxDelayMs;
        report(err, { sessionId, attempt: 1, gaveUp: true });
        return false;
      }
    })().finally(() => {
      running = undefined;
      rest(performance.now() - t, use);
      schedule();
    });
    return running;
  }

  async function run(batch: Map<string, RecallNote[]>, taken: Map<string, SessionQueue>): Promise<boolean> {
    // A session cancelled (or re-created) meanwhile keeps nothing from this batch.
    const sameQueue = (sessionId: string, q: SessionQueue) => queues.get(sessionId) === q;
    const settle = (sessionId: string, q: SessionQueue) => {
      for (const n of batch.get(sessionId)!) if (q.notes.get(n.name) === n) q.notes.delete(n.name);
    };
    try {
      await options.index(batch);
      for (const [sessionId, q] of taken) {
        if (!sameQueue(sessionId, q)) continue;
        settle(sessionId, q);
        q.attempts = 0;
        q.retryAt = 0;
      }
      return true;
    } catch (err) {
      const final = err instanceof EmbeddingError && (err.attempts > 0 || !err.retryable);
      if (final) {
        const hinted = err.retryAfterMs ?? 0;
        refillAfter = performance.now() + Math.max(maxDelayMs, hinted);
      }
      for (const [sessionId, q] of taken) {
        if (!sameQueue(sessionId, q)) continue;
        q.attempts++;
        const gaveUp = final || q.attempts >= maxAttempts;
        report(err, { sessionId, attempt: q.attempts, gaveUp });
        if (gaveUp) {
          settle(sessionId, q);
          q.attempts = 0;
          q.retryAt = 0;
          marked.add(sessionId);
        } else {
          const backoff = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (q.attempts - 1));
          const hinted = err instanceof EmbeddingError ? err.retryAfterMs : undefined;
          q.retryAt = performance.now() + Math.min(maxDelayMs, Math.max(backoff, hinted ?? 0));
        }
      }
      return false;
    }
  }

  async function drain(): Promise<number> {
    for (;;) {
      if (running) await running;
      if (closed || pending() === 0) return pending();
      if (timer) clearTimeout(timer);
      timer = undefined;
      timerAt = Infinity;
      if (!(await flush(true))) return pending();
    }
  }

  function close(): void {
    closed = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (const [sessionId, q] of queues) if (q.notes.size > 0) marked.add(sessionId);
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
      queues.delete(sessionId);
      marked.delete(sessionId);
    },
    needsCatchUp: (sessionId) => marked.has(sessionId),
    caughtUp(sessionId) {
      marked.delete(sessionId);
    },
  };
}
