/**
 * citation-js's heavy work runs on a thread of its own, so the API's event loop is never held by
 * it. citeproc-js's disambiguation grows faster than the square of the references that share
 * their authors and year (on the project's 2-core machine: 100 of one author's papers of 2017
 * took 3.4 s in APA, 500 took 30–50 s), and reading a hostile 5 MiB bibliography (a title of
 * backslashes or LaTeX accents) takes seconds. One thread, started on first use and kept, does
 * one job at a time; one that runs past its time is refused in words and its thread stopped (a
 * new one starts for the next). Writing BibTeX, RIS and CSL JSON is no such work (35–56 ms for
 * 500 references) and stays in the process.
 */
import { Worker } from 'node:worker_threads';
import { LibraryError, busy } from '../errors.ts';
import type { CitableDocument, ReferenceEntry } from './entries.ts';
import type { CiteStyle } from './format.ts';
import type { ThreadAnswer, ThreadJob } from './thread-worker.ts';

const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./thread-worker.ts', import.meta.url)
  : new URL('./thread-worker.js', import.meta.url);

/**
 * How long one job may take: forty times 500 references of distinct authors in APA, five times
 * the slowest 4 MiB bibliography measured.
 */
const JOB_MS = 20_000;
/** Jobs waiting for the thread at once; past them, `busy`. */
const MAX_WAITING = 8;

let thread: Worker | null = null;
let queue: Promise<unknown> = Promise.resolve();
let waiting = 0;

/** `docs` as text by `style`, formatted on the references thread within `timeoutMs`. */
export async function formatTextOnThread(
  docs: readonly CitableDocument[],
  style: CiteStyle,
  timeoutMs = JOB_MS,
): Promise<string> {
  const answer = await run({ kind: 'format', docs, style }, timeoutMs, () =>
    tooSlow(`Formatting these ${docs.length} references`, timeoutMs, 'cite fewer at a time.'),
  );
  if ('text' in answer) return answer.text;
  throw unexpected(answer);
}

/** parseBibliography on the references thread, within `timeoutMs`: its refusals are the same. */
export async function parseOnThread(
  text: string,
  filename: string,
  timeoutMs = JOB_MS,
): Promise<ReferenceEntry[]> {
  const answer = await run({ kind: 'parse', text, filename }, timeoutMs, () =>
    tooSlow(`Reading ${filename}`, timeoutMs, 'export it in parts.'),
  );
  if ('entries' in answer) return answer.entries;
  if ('refused' in answer) throw new LibraryError(answer.refused.reason, answer.refused.message);
  throw unexpected(answer);
}

const tooSlow = (what: string, ms: number, advice: string) =>
  new LibraryError('invalid_input', `${what} took longer than ${ms / 1000} s; ${advice}`);

const unexpected = (answer: ThreadAnswer) =>
  new Error(
    `the references thread failed: ${'error' in answer ? answer.error : 'an answer of the wrong kind'}`,
  );

/** Runs `job` once the jobs before it are done; `busy` when too many wait already. */
function run(job: ThreadJob, timeoutMs: number, overtime: () => LibraryError): Promise<ThreadAnswer> {
  if (waiting >= MAX_WAITING)
    return Promise.reject(busy('Many bibliographies are being read or formatted at once.', 5));
  waiting++;
  const turn = queue.then(() => {
    waiting--;
    return onThread(job, timeoutMs, overtime);
  });
  queue = turn.catch(() => undefined);
  return turn;
}

function onThread(job: ThreadJob, timeoutMs: number, overtime: () => LibraryError): Promise<ThreadAnswer> {
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
      reject(overtime());
    }, timeoutMs);
    const answered = (answer: ThreadAnswer) => {
      done();
      resolve(answer);
    };
    const failed = (err: Error) => {
      done();
      stop(worker);
      reject(new Error(`the references thread failed: ${err.message}`, { cause: err }));
    };
    worker.on('message', answered);
    worker.on('error', failed);
    worker.postMessage(job);
  });
}

function start(): Worker {
  const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: 512 } });
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
