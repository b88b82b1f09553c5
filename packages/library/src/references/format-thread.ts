/**
 * Text by a CSL style is formatted on a thread of its own. citeproc-js's disambiguation grows
 * faster than the square of the references that share their authors and year (on the project's
 * 2-core machine: 100 of one author's papers of 2017 took 3.4 s in APA, 500 took 30–50 s), and
 * the API's event loop would be held that long. One thread, started on first use and kept,
 * formats one bibliography at a time; one that runs past its time is refused in words, and its
 * thread stopped (a new one starts for the next). BibTeX, RIS and CSL JSON are no such work.
 */
import { Worker } from 'node:worker_threads';
import { LibraryError, busy } from '../errors.ts';
import type { CitableDocument } from './entries.ts';
import type { CiteStyle } from './format.ts';
import type { FormatThreadAnswer } from './format-worker.ts';

const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./format-worker.ts', import.meta.url)
  : new URL('./format-worker.js', import.meta.url);

/** How long one bibliography may take: forty times 500 references of distinct authors in APA. */
const FORMAT_MS = 20_000;
/** Bibliographies waiting for the thread at once; past them, `busy`. */
const MAX_WAITING = 8;

let thread: Worker | null = null;
let queue: Promise<unknown> = Promise.resolve();
let waiting = 0;

/** `docs` as text by `style`, formatted on the references thread within `timeoutMs`. */
export function formatTextOnThread(
  docs: readonly CitableDocument[],
  style: CiteStyle,
  timeoutMs = FORMAT_MS,
): Promise<string> {
  if (waiting >= MAX_WAITING)
    return Promise.reject(busy('Many bibliographies are being formatted at once.', 5));
  waiting++;
  const job = queue.then(() => {
    waiting--;
    return format(docs, style, timeoutMs);
  });
  queue = job.catch(() => undefined);
  return job;
}

function format(docs: readonly CitableDocument[], style: CiteStyle, timeoutMs: number): Promise<string> {
  const worker = (thread ??= start());
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off('message', answered);
      worker.off('error', failed);
    };
    const timer = setTimeout(() => {
      done();
      stop(worker);
      reject(
        new LibraryError(
          'invalid_input',
          `Formatting these ${docs.length} references took longer than ${timeoutMs / 1000} s; cite fewer at a time.`,
        ),
      );
    }, timeoutMs);
    const answered = (answer: FormatThreadAnswer) => {
      done();
      if ('text' in answer) resolve(answer.text);
      else reject(new Error(`formatting references failed: ${answer.error}`));
    };
    const failed = (err: Error) => {
      done();
      stop(worker);
      reject(new Error(`the references thread failed: ${err.message}`, { cause: err }));
    };
    worker.on('message', answered);
    worker.on('error', failed);
    worker.postMessage({ docs, style });
  });
}

function start(): Worker {
  const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: 256 } });
  // An idle thread keeps no process alive; a job's timer does while it runs.
  worker.unref();
  worker.on('exit', () => {
    if (thread === worker) thread = null;
  });
  return worker;
}

function stop(worker: Worker): void {
  if (thread === worker) thread = null;
  void worker.terminate();
}
