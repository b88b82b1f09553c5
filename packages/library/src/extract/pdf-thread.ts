/**
 * Runs readPdf on a thread of its own, one thread per file.
 *
 * pdf.js is synchronous JavaScript once it has the bytes: a file crafted to loop, or to grow a
 * huge object graph, would hold the API's event loop or heap for as long as it liked. On a thread
 * it gets a deadline (the thread is terminated when it passes), a memory cap, and a crash ends
 * only that thread. A fresh thread per file costs about 0.1 s (mostly loading pdf.js) and means
 * nothing one file did can leak into the next.
 */
import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import { MESSAGES } from './messages.ts';
import type { PdfThreadMessage } from './pdf-worker.ts';
import type { PdfJob, PdfOutcome } from './read-pdf.ts';

/**
 * The thread's module. Built (`dist/`), this file is JavaScript and so is its sibling; run from
 * source (tests, `tsx`), Node 24 loads the TypeScript sibling itself by stripping its types, which
 * is why pdf-worker.ts and what it imports stay erasable TypeScript.
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./pdf-worker.ts', import.meta.url)
  : new URL('./pdf-worker.js', import.meta.url);

/**
 * The thread's JavaScript heap, enforced by V8 (the thread is ended when it is full). Measured:
 * 2,000 pages holding 1.9 million characters peak at 57 MiB.
 */
const PDF_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512 };

/**
 * Memory outside that heap: typed arrays, where pdf.js keeps decoded streams. V8's limits do not
 * count it, and a 1 MiB file whose stream inflates to 1 GiB drove a thread to 2 GiB of it. A
 * 20 MiB upload could inflate to 20 GiB and take the whole API down, so the thread is watched and
 * stopped past this. Measured: ordinary files peak at about twice their own size (30 MiB for a
 * 15 MiB file). A stream that doubles its buffer can overshoot by one doubling between looks.
 */
export const PDF_EXTERNAL_MEMORY_MB = 256;
// How often the thread's memory is looked at. Not measured: more often costs the API a little
// CPU per PDF; less often lets a stream grow further (more doublings) past the limit between looks.
const MEMORY_CHECK_MS = 50;

/**
 * Threads at once; later files wait their turn. Parsing is CPU-bound, so more threads than this
 * would only slow the API's own work, and it caps the memory uploads can take at about twice the
 * limits above. Not measured as a value (the project's machine has 2 CPUs).
 */
export const MAX_PDF_THREADS = 2;

let running = 0;
const waiting: Array<() => void> = [];
let live = 0;

/** Threads started and not yet exited: 0 whenever no extraction is under way. */
export function livePdfThreads(): number {
  return live;
}

export interface PdfThreadOptions {
  timeoutMs: number;
  /** Tests lower these to make a thread run out of memory. */
  resourceLimits?: ResourceLimits;
  externalMemoryMb?: number;
  /** Stops the thread and rejects with the signal's reason (the API is stopping, the upload ended). */
  signal?: AbortSignal;
  /** Pages read of the file's page count, as the thread reads them (read-pdf.ts). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * The outcome of reading the PDF on its own thread. Resolves only after the thread has exited.
 * Time running out, the heap cap, or the thread dying after it started all come back as
 * `invalid_document` outcomes; a thread that cannot even start (a broken build) rejects.
 */
export async function readPdfOnThread(job: PdfJob, options: PdfThreadOptions): Promise<PdfOutcome> {
  await acquire();
  try {
    return await runThread(job, options);
  } finally {
    release();
  }
}

function acquire(): Promise<void> {
  if (running < MAX_PDF_THREADS) {
    running++;
    return Promise.resolve();
  }
  return new Promise((resolve) => waiting.push(resolve));
}

/** Hands the slot to the next file waiting, if any (so `running` is unchanged), else frees it. */
function release(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

function runThread(job: PdfJob, options: PdfThreadOptions): Promise<PdfOutcome> {
  // A copy of exactly the file's bytes, moved (not cloned again) to the thread. Cloning the
  // caller's view would copy its whole underlying buffer, which may be a much larger request body.
  const bytes = new Uint8Array(job.bytes);
  const worker = new Worker(WORKER_URL, {
    workerData: { ...job, bytes } satisfies PdfJob,
    transferList: [bytes.buffer],
    resourceLimits: options.resourceLimits ?? PDF_RESOURCE_LIMITS,
  });
  live++;

  return new Promise((resolve, reject) => {
    let started = false;
    let result: { outcome: PdfOutcome } | { error: Error } | undefined;
    // The first word wins; the thread is then stopped, and the promise settles once it is gone.
    const finish = (value: { outcome: PdfOutcome } | { error: Error }) => {
      result ??= value;
      void worker.terminate();
    };
    const refuse = (message: string) =>
      finish({ outcome: { ok: false, reason: 'invalid_document', message } });

    const timer = setTimeout(() => refuse(MESSAGES.tooSlow(options.timeoutMs)), options.timeoutMs);
    const externalLimit = (options.externalMemoryMb ?? PDF_EXTERNAL_MEMORY_MB) * 2 ** 20;
    // getHeapStatistics is answered even while the thread is busy in a synchronous loop.
    const watch = setInterval(() => {
      worker.getHeapStatistics().then(
        (heap) => {
          if (heap.external_memory > externalLimit) refuse(MESSAGES.outOfMemory);
        },
        () => undefined, // the thread has just exited
      );
    }, MEMORY_CHECK_MS);
    const abort = () => finish({ error: options.signal?.reason as Error });
    if (options.signal?.aborted) abort();
    else options.signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (message: PdfThreadMessage) => {
      if (message.type === 'started') started = true;
      else if (message.type === 'progress') {
        if (result === undefined) options.onProgress?.(message.done, message.total);
      } else finish({ outcome: message.outcome });
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') refuse(MESSAGES.outOfMemory);
      else if (started) refuse(MESSAGES.damaged);
      else
        finish({
          error: new Error(`the PDF reader thread did not start: ${error.message}`, { cause: error }),
        });
    });
    worker.on('exit', () => {
      live--;
      clearTimeout(timer);
      clearInterval(watch);
      options.signal?.removeEventListener('abort', abort);
      // Exiting without an answer: pdf.js waited on something that never came and the thread's
      // event loop ran dry. The file led it there.
      const settled = result ?? {
        outcome: { ok: false, reason: 'invalid_document', message: MESSAGES.damaged },
      };
      if ('error' in settled) reject(settled.error);
      else resolve(settled.outcome);
    });
  });
}
