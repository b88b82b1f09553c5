/**
 * Runs OCR on a thread of its own (ocr-worker.ts), page by page, with a time cap per page.
 *
 * Rendering and recognising a page is seconds of CPU: on a thread, the API's event loop stays
 * free, and the thread (with the tesseract.js worker it started) is terminated when a page passes
 * its time or its memory. The pages after it then go on in a fresh thread. One thread at a time
 * per process (recognizer.ts), so OCR takes at most one of the machine's cores, however many
 * scans wait.
 */
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import type { OcrLanguage } from './languages.ts';
import type { OcrThreadJob, OcrThreadMessage } from './ocr-worker.ts';

const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./ocr-worker.ts', import.meta.url)
  : new URL('./ocr-worker.js', import.meta.url);

/**
 * How long the thread may take to load pdf.js, the canvas and the traineddata before the first
 * page. Measured: 0.5–0.9 s for English on the project's machine.
 */
const START_TIMEOUT_MS = 60_000;

/**
 * The thread's JavaScript heap, enforced by V8: past it the thread ends (not the API) and the page
 * it was on is marked as needing more memory than OCR may use. Measured: 15–19 MiB used while
 * reading a page, whatever the page (pdf.js and tesseract.js's side of the work; Tesseract itself
 * runs in a thread of its own, in WebAssembly memory, bounded by the page's pixels: page-fit.ts).
 */
const OCR_RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256 };

/**
 * Memory outside that heap, which V8's limits do not count: typed arrays, where pdf.js keeps the
 * images it decodes. The thread is watched and stopped past this. Measured: 15 MiB for a blank
 * page, 26 MiB for a scanned A4 page, 63 MiB for an A4 page scanned at 300 dpi (8.7 M pixels),
 * 192 MiB for an image at OCR_MAX_IMAGE_PIXELS (40 M).
 */
export const OCR_EXTERNAL_MEMORY_MB = 384;
// How often the thread's memory is looked at (as the PDF thread does: extract/pdf-thread.ts).
const MEMORY_CHECK_MS = 50;

/** The deadlines' clock; tests drive it by hand. */
export interface OcrTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const REAL_TIMERS: OcrTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface PageRecognised {
  page: number;
  /** What OCR read, as tesseract.js gave it; '' when the page was not read. */
  text: string;
  /** Tesseract's mean word confidence, 0–100. */
  confidence: number;
  /**
   * `timeout`: past its time; `unrenderable`: pdf.js could not draw it, or it brought the thread
   * down; `page_size`: its declared size is one no PDF page may have (page-fit.ts), so it was not
   * drawn; `out_of_memory`: reading it took more memory than the thread may use.
   */
  outcome: 'read' | 'timeout' | 'unrenderable' | 'page_size' | 'out_of_memory';
}

export interface RecogniseOptions {
  pageTimeoutMs: number;
  /** Called after each page, in order; the next page waits for it. */
  onPage(result: PageRecognised): Promise<void>;
  /** Stops the thread (the API is stopping); rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * OCR runs at the lowest priority (ocr-worker.ts) unless this is false: for tests that wait
   * for OCR's words on a machine kept busy by other work, where OCR at the lowest priority gets
   * almost no CPU.
   */
  lowestPriority?: boolean;
  /**
   * Called as each thread's Tesseract thread has been started, before either has loaded
   * anything: both exist, at their priority (tests look at them here).
   */
  onSpawned?(): void;
  timers?: OcrTimers;
  /** Tests lower these to make a page run out of memory. */
  resourceLimits?: ResourceLimits;
  externalMemoryMb?: number;
}

let live = 0;
/** OCR threads started and not yet exited (tests: 0 once a job has ended). */
export function liveOcrThreads(): number {
  return live;
}

/** Reads `pages` of the PDF, calling `onPage` for each; resolves once every page has an answer. */
export async function recognisePages(
  job: { bytes: Uint8Array; pages: readonly number[]; languages: readonly OcrLanguage[] },
  options: RecogniseOptions,
): Promise<void> {
  // The OCR thread lowers its own priority, and threads it starts inherit it (ocr-worker.ts). The
  // process's libuv thread pool starts at its first use: used here first, from this thread, the
  // pool (the API's file and crypto work) keeps the API's priority whatever the OCR thread does.
  await stat(fileURLToPath(WORKER_URL));
  let remaining = [...job.pages];
  while (remaining.length > 0) {
    options.signal?.throwIfAborted();
    const answered = await runThread({ ...job, pages: remaining }, options);
    remaining = remaining.slice(answered);
  }
}

/** One thread over `pages`; resolves with how many pages got an answer (a timeout is one). */
function runThread(
  job: { bytes: Uint8Array; pages: number[]; languages: readonly OcrLanguage[] },
  options: RecogniseOptions,
): Promise<number> {
  const bytes = new Uint8Array(job.bytes);
  const worker = new Worker(WORKER_URL, {
    workerData: {
      bytes,
      pages: job.pages,
      languages: [...job.languages],
      lowestPriority: options.lowestPriority ?? true,
    } satisfies OcrThreadJob,
    transferList: [bytes.buffer],
    resourceLimits: options.resourceLimits ?? OCR_RESOURCE_LIMITS,
  });
  live++;
  const timers = options.timers ?? REAL_TIMERS;
  let answered = 0;
  /** The page the thread is on, between its `start` and its answer. */
  let current: number | undefined;
  // Each page's onPage runs before the next one's; the thread does not wait for them.
  let chain: Promise<void> = Promise.resolve();
  let failure: Error | undefined;
  let timer: unknown;
  const disarm = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };
  const arm = (ms: number, onTimeout: () => void) => {
    disarm();
    timer = timers.setTimeout(onTimeout, ms);
  };
  /** Set once the thread is being ended: what it still says or does is no longer heard. */
  let stopping = false;
  const stop = (error?: Error) => {
    stopping = true;
    failure ??= error;
    void worker.terminate();
  };
  arm(START_TIMEOUT_MS, () => stop(new Error('the OCR thread did not start in time')));
  const abort = () => stop(options.signal?.reason as Error);
  options.signal?.addEventListener('abort', abort, { once: true });

  const deliver = (result: PageRecognised) => {
    answered++;
    chain = chain.then(() => options.onPage(result));
    chain.catch((err: unknown) => stop(err as Error));
  };
  /** The page the thread is on gets `outcome`, and the thread goes: the next page gets a fresh one. */
  const endPage = (outcome: PageRecognised['outcome']) => {
    if (current === undefined) return false;
    deliver({ page: current, text: '', confidence: 0, outcome });
    current = undefined;
    disarm();
    stop();
    return true;
  };

  const externalLimit = (options.externalMemoryMb ?? OCR_EXTERNAL_MEMORY_MB) * 2 ** 20;
  // getHeapStatistics is answered even while the thread is busy in a synchronous loop.
  const watch = setInterval(() => {
    worker.getHeapStatistics().then(
      (heap) => {
        if (stopping || heap.external_memory <= externalLimit || endPage('out_of_memory')) return;
        // Between pages: the thread goes, and the next page starts in a fresh one.
        if (answered > 0) stop();
        else stop(new Error('the OCR thread ran out of memory before its first page'));
      },
      () => undefined, // the thread has just exited
    );
  }, MEMORY_CHECK_MS);

  worker.on('message', (message: OcrThreadMessage) => {
    // A page answered after its time ran out was given its timeout already.
    if (stopping) return;
    switch (message.type) {
      case 'spawned':
        options.onSpawned?.();
        break;
      case 'ready':
        disarm();
        break;
      case 'start':
        current = message.page;
        arm(options.pageTimeoutMs, () => endPage('timeout'));
        break;
      case 'page':
        current = undefined;
        disarm();
        deliver({
          page: message.page,
          text: message.text,
          confidence: message.confidence,
          outcome: message.outcome,
        });
        break;
      case 'done':
        void worker.terminate();
        break;
    }
  });
  worker.on('error', (error: Error & { code?: string }) => {
    // On a page, the file brought the thread down (pdf.js, the canvas or tesseract on its image,
    // or V8's heap limit): that page stays without text and the rest go on. Before any page, our
    // install is broken.
    if (stopping) return;
    const outcome = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'out_of_memory' : 'unrenderable';
    if (!endPage(outcome)) stop(new Error(`the OCR thread failed: ${error.message}`, { cause: error }));
  });

  return new Promise((resolve, reject) => {
    worker.on('exit', () => {
      live--;
      disarm();
      clearInterval(watch);
      options.signal?.removeEventListener('abort', abort);
      chain.then(
        () => {
          if (failure) reject(failure);
          // A thread that ended with pages unanswered and no reason: count the next page as one
          // it could not draw, so a file that kills the thread cannot loop forever.
          else if (answered < job.pages.length && answered === 0)
            void options
              .onPage({ page: job.pages[0]!, text: '', confidence: 0, outcome: 'unrenderable' })
              .then(() => resolve(1), reject);
          else resolve(answered);
        },
        (err: unknown) => reject(failure ?? (err as Error)),
      );
    });
  });
}
