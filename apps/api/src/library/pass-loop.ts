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
  return {
    kick() {
      if (opts.stopped()) return;
      if (running) again = true;
      else void loop();
    },
    async idle() {
      while (running) await running;
    },
    get running() {
      return running;
    },
  };
}
