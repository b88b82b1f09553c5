/**
 * Runs OCR on a thread of its own (ocr-worker.ts), page by page, with a time cap per page.
 *
 * Rendering and recognising a page is seconds of CPU: on a thread, the API's event loop stays
 * free, and the thread (with the tesseract.js worker it started) is terminated when a page passes
 * its time. The pages after it then go on in a fresh thread. One thread at a time per process
 * (recognizer.ts), so OCR takes at most one of the machine's cores, however many scans wait.
 */
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { OcrLanguage } from './languages.ts';
import type { OcrThreadJob, OcrThreadMessage } from './ocr-worker.ts';

const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./ocr-worker.ts', import.meta.url)
  : new URL('./ocr-worker.js', import.meta.url);

/** pdf.js's render scale for OCR: about 144 dpi for a page of points (SPEC §6b). */
export const OCR_SCALE = 2;

/**
 * How long the thread may take to load pdf.js, the canvas and the traineddata before the first
 * page. Measured: 0.5–0.9 s for English on the project's machine.
 */
const START_TIMEOUT_MS = 60_000;

export interface PageRecognised {
  page: number;
  /** What OCR read, as tesseract.js gave it; '' when the page timed out or could not be drawn. */
  text: string;
  /** Tesseract's mean word confidence, 0–100. */
  confidence: number;
  outcome: 'read' | 'timeout' | 'unrenderable';
}

export interface RecogniseOptions {
  pageTimeoutMs: number;
  /** Called after each page, in order; the next page waits for it. */
  onPage(result: PageRecognised): Promise<void>;
  /** Stops the thread (the API is stopping); rejects with the signal's reason. */
  signal?: AbortSignal;
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
      scale: OCR_SCALE,
    } satisfies OcrThreadJob,
    transferList: [bytes.buffer],
  });
  live++;
  let answered = 0;
  /** The page the thread is on, between its `start` and its answer. */
  let current: number | undefined;
  // Each page's onPage runs before the next one's; the thread does not wait for them.
  let chain: Promise<void> = Promise.resolve();
  let failure: Error | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number, onTimeout: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(onTimeout, ms);
  };
  const stop = (error?: Error) => {
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

  worker.on('message', (message: OcrThreadMessage) => {
    switch (message.type) {
      case 'ready':
        clearTimeout(timer);
        break;
      case 'start':
        current = message.page;
        arm(options.pageTimeoutMs, () => {
          current = undefined;
          deliver({ page: message.page, text: '', confidence: 0, outcome: 'timeout' });
          stop();
        });
        break;
      case 'page':
        current = undefined;
        clearTimeout(timer);
        deliver({
          page: message.page,
          text: message.text,
          confidence: message.confidence,
          outcome: message.rendered ? 'read' : 'unrenderable',
        });
        break;
      case 'done':
        void worker.terminate();
        break;
    }
  });
  worker.on('error', (error: Error) => {
    // On a page, the file brought the thread down (pdf.js, the canvas or tesseract on its image):
    // that page stays without text and the rest go on. Before any page, our install is broken.
    if (current !== undefined) {
      deliver({ page: current, text: '', confidence: 0, outcome: 'unrenderable' });
      stop();
    } else stop(new Error(`the OCR thread failed: ${error.message}`, { cause: error }));
  });

  return new Promise((resolve, reject) => {
    worker.on('exit', () => {
      live--;
      clearTimeout(timer);
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
