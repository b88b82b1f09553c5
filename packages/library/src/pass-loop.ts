/**
 * A background worker's pass loop, shared by the indexer and the OCR recognizer: `kick()` starts
 * a pass when none runs, and one that arrives during a pass asks for another after it, so work
 * queued meanwhile is never left waiting for the next kick.
 */
export interface PassLoop {
  /** Starts a pass if none is running (or asks the running one to go round again). */
  kick(): void;
  /** Resolves once no pass is running and none is asked for. */
  idle(): Promise<void>;
  /**
   * Kicks again in `ms` (a lock to wait out, another process's lease that may lapse); a kick asked
   * for sooner stands. Not counted by `idle`.
   */
  kickAfter(ms: number): void;
  /** Forgets the kick asked for by `kickAfter` (the worker is stopping). */
  cancel(): void;
  /** The running pass, if any (awaited on stop). */
  readonly running: Promise<void> | null;
}

export function createPassLoop(opts: {
  pass: () => Promise<void>;
  stopped: () => boolean;
  /** A pass that throws (the database itself failed): logged; the next kick resumes. */
  onError: (err: unknown) => void;
}): PassLoop {
  let running: Promise<void> | null = null;
  let again = false;
  let later: { timer: ReturnType<typeof setTimeout>; due: number } | undefined;
  const loop = () =>
    (running ??= (async () => {
      try {
        do {
          again = false;
          await opts.pass();
        } while (again && !opts.stopped());
      } catch (err) {
        opts.onError(err);
      } finally {
        running = null;
      }
    })());
  const kick = () => {
    if (opts.stopped()) return;
    if (running) again = true;
    else void loop();
  };
  const cancel = () => {
    if (later) clearTimeout(later.timer);
    later = undefined;
  };
  return {
    kick,
    async idle() {
      while (running) await running;
    },
    kickAfter(ms) {
      const due = performance.now() + ms;
      if (opts.stopped() || (later && later.due <= due)) return;
      cancel();
      const timer = setTimeout(() => {
        later = undefined;
        kick();
      }, ms);
      timer.unref();
      later = { timer, due };
    },
    cancel,
    get running() {
      return running;
    },
  };
}
