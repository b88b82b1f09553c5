/**
 * The PDF thread's entry (started by pdf-thread.ts): reads the one PDF in workerData and answers.
 *
 * It answers `started` once its modules have loaded, `progress` as it reads pages (the upload
 * shows "page n of m"), then `done` with the outcome. A thread that fails before `started` has a
 * broken install or build (our fault, reported as an error); one that fails after it was brought
 * down by the file (the owner's to hear about).
 *
 * Loaded with Node's type stripping when the API runs from source: erasable TypeScript only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readPdf } from './read-pdf.ts';
import type { PdfJob } from './read-pdf.ts';

export type PdfThreadMessage =
  | { type: 'started' }
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; outcome: Awaited<ReturnType<typeof readPdf>> };

if (!parentPort) throw new Error('pdf-worker runs only as a worker thread (see pdf-thread.ts)');
const port = parentPort;
const send = (message: PdfThreadMessage) => port.postMessage(message);

send({ type: 'started' });
send({
  type: 'done',
  outcome: await readPdf(workerData as PdfJob, (done, total) => send({ type: 'progress', done, total })),
});
