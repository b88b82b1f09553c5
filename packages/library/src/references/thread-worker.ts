/**
 * The references thread's entry (started by thread.ts): reads each bibliography or formats each
 * list of references it is sent, one at a time, for as long as it is kept, and answers.
 *
 * Loaded with Node's type stripping when the API runs from source: erasable TypeScript only.
 */
import { parentPort } from 'node:worker_threads';
import { isLibraryError } from '../errors.ts';
import type { CitableDocument, ReferenceEntry } from './entries.ts';
import { formatReferences } from './format.ts';
import type { CiteStyle } from './format.ts';
import { parseBibliography } from './parse.ts';

export type ThreadJob =
  | { kind: 'format'; docs: readonly CitableDocument[]; style: CiteStyle }
  | { kind: 'parse'; text: string; filename: string };

export type ThreadAnswer =
  | { text: string }
  | { entries: ReferenceEntry[] }
  /** A LibraryError's words: a bibliography refused for what it is. */
  | { refused: { reason: 'invalid_input'; message: string } }
  | { error: string };

if (!parentPort) throw new Error('thread-worker runs only as a worker thread (see thread.ts)');
const port = parentPort;

port.on('message', (job: ThreadJob) => {
  let answer: ThreadAnswer;
  try {
    answer =
      job.kind === 'format'
        ? { text: formatReferences(job.docs, 'text', job.style) }
        : { entries: parseBibliography(job.text, job.filename) };
  } catch (err) {
    if (isLibraryError(err) && err.reason === 'invalid_input')
      answer = { refused: { reason: err.reason, message: err.message } };
    else answer = { error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
