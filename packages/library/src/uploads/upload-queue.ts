/**
 * The extraction queue (SPEC §6b "Fair and bounded"): which uploaded PDF is read next, and which
 * upload is refused `busy`.
 *
 * - At most `slots` jobs run at once (the PDF threads), and at most one per owner.
 * - Each owner has at most one job waiting; a second one is refused at once.
 * - At most `maxWaiting` jobs wait in all; past that, refused at once.
 * - A job that has waited `maxWaitMs` is refused, so nobody's request hangs on a long queue.
 * - Jobs start in the order they became runnable: when they arrived, or when their owner's
 *   running job ended, whichever is later. An owner's second file therefore queues behind every
 *   file that arrived while their first one ran, and no owner's slow files hold another owner's
 *   upload behind more than one of them.
 *
 * A refused job never ran, so nothing of it is stored. This queue orders one API process's jobs
 * on its own threads; the same rules over every process on the database are the ledger's
 * (queue-ledger.ts), which each job passes before and as it starts (library.ts).
 */
import { busy as busyError } from '../errors.ts';

export interface QueueTimers {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: QueueTimers = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ExtractionQueueOptions {
  /** Jobs running at once, all owners together. */
  slots: number;
  /** Jobs waiting at once, all owners together. */
  maxWaiting: number;
  /** How long a job may wait before it is refused. */
  maxWaitMs: number;
  /** The longest a job may run (its time limit): when a slot is sure to be free again. */
  jobTimeoutMs: number;
  /** Tests drive the deadline with their own clock. */
  timers?: QueueTimers;
}

export interface ExtractionQueue {
  /**
   * Runs `job` for `ownerId` when its turn comes; rejects with `busy` when it may not wait,
   * or waited too long. The job's signal aborts when the queue closes or `signal` aborts (the
   * upload's request ended); a job still waiting then leaves the queue, rejected with its reason.
   */
  run<T>(ownerId: string, job: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T>;
  stats(): { running: number; waiting: number };
  /** Refuses every waiting job, aborts the running ones and waits until they have ended. */
  close(): Promise<void>;
}

interface Running {
  ownerId: string;
  startedAt: number;
  abort: AbortController;
  /** Settles when the job has ended and its slot is free. */
  ended: Promise<unknown>;
}

interface Waiting {
  ownerId: string;
  /** Order among runnable jobs; null while the owner's running job holds it back. */
  runnableAt: number | null;
  timer: unknown;
  start(): void;
  refuse(error: Error): void;
}

export function createExtractionQueue(options: ExtractionQueueOptions): ExtractionQueue {
  const timers = options.timers ?? REAL_TIMERS;
  const running = new Set<Running>();
  const waiting: Waiting[] = [];
  let order = 0;
  let closed = false;

  const ownerRunning = (ownerId: string) => [...running].some((r) => r.ownerId === ownerId);

  /** Seconds until a slot is sure to be free (the owner's own, if they hold one), at least 1. */
  const retryAfterSeconds = (ownerId?: string): number => {
    const mine = [...running].filter((r) => r.ownerId === ownerId);
    const ends = (mine.length > 0 ? mine : [...running]).map((r) => r.startedAt + options.jobTimeoutMs);
    const soonest = ends.length > 0 ? Math.min(...ends) : timers.now();
    return Math.max(1, Math.ceil((soonest - timers.now()) / 1000));
  };

  const busy = (message: string, ownerId?: string) => busyError(message, retryAfterSeconds(ownerId));

  /** Starts runnable jobs, earliest runnable first, while slots are free. */
  const dispatch = () => {
    while (running.size < options.slots) {
      let next: Waiting | undefined;
      for (const w of waiting)
        if (w.runnableAt !== null && (next === undefined || w.runnableAt < next.runnableAt!)) next = w;
      if (next === undefined) return;
      waiting.splice(waiting.indexOf(next), 1);
      timers.clearTimeout(next.timer);
      next.start();
    }
  };

  function execute<T>(ownerId: string, job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const abort = new AbortController();
    const release = () => {
      running.delete(entry);
      // The owner's waiting job becomes runnable now, behind everyone who queued meanwhile.
      for (const w of waiting) if (w.ownerId === ownerId) w.runnableAt = order++;
      dispatch();
    };
    // The job starts now (the tests and the scheduling order rely on it); one that throws before
    // returning its promise is settled like one that rejects.
    let result: Promise<T>;
    try {
      result = job(abort.signal);
    } catch (err) {
      result = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const settled = result.finally(release);
    const entry: Running = {
      ownerId,
      startedAt: timers.now(),
      abort,
      ended: settled.catch(() => undefined),
    };
    running.add(entry);
    return settled;
  }

  return {
    run(ownerId, given, signal) {
      if (closed) return Promise.reject(busy('The server is stopping.'));
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      const job = signal ? (own: AbortSignal) => given(AbortSignal.any([own, signal])) : given;
      const mine = waiting.some((w) => w.ownerId === ownerId);
      const runs = ownerRunning(ownerId);
      if (runs && mine)
        return Promise.reject(busy('You already have a file being read and another one waiting.', ownerId));
      if (!runs && running.size < options.slots) return execute(ownerId, job);
      if (waiting.length >= options.maxWaiting)
        return Promise.reject(busy('The queue of files waiting to be read is full.'));
      return new Promise((resolve, reject) => {
        const leave = () => {
          waiting.splice(waiting.indexOf(entry), 1);
          timers.clearTimeout(entry.timer);
          entry.refuse(signal!.reason as Error);
        };
        const entry: Waiting = {
          ownerId,
          runnableAt: runs ? null : order++,
          timer: timers.setTimeout(() => {
            waiting.splice(waiting.indexOf(entry), 1);
            entry.refuse(
              busy(`The file waited more than ${options.maxWaitMs / 1000} s to be read.`, ownerId),
            );
          }, options.maxWaitMs),
          start: () => {
            signal?.removeEventListener('abort', leave);
            void execute(ownerId, job).then(resolve, reject);
          },
          refuse: (error) => {
            signal?.removeEventListener('abort', leave);
            reject(error);
          },
        };
        waiting.push(entry);
        signal?.addEventListener('abort', leave, { once: true });
      });
    },
    stats: () => ({ running: running.size, waiting: waiting.length }),
    async close() {
      closed = true;
      for (const w of waiting.splice(0)) {
        timers.clearTimeout(w.timer);
        w.refuse(busy('The server is stopping.'));
      }
      const ending = [...running];
      for (const r of ending) r.abort.abort();
      await Promise.all(ending.map((r) => r.ended));
    },
  };
}
