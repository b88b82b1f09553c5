/**
 * The PDF thread's entry (started by pdf-thread.ts): reads the one PDF in workerData and answers.
 *
 * It answers twice: `started` once its modules have loaded, then `done` with the outcome. A thread
 * that fails before `started` has a broken install or build (our fault, reported as an error);
 * one that fails after it was brought down by the file (the owner's to hear about).
 *
 * Loaded with Node's type stripping when the API runs from source: erasable TypeScript only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readPdf } from './read-pdf.ts';
import type { PdfJob } from './read-pdf.ts';

export type PdfThreadMessage =
  { type: 'started' } | { type: 'done'; outcome: Awaited<ReturnType<typeof readPdf>> };

if (!parentPort) throw new Error('pdf-worker runs only as a worker thread (see pdf-thread.ts)');
const port = parentPort;
const send = (message: PdfThreadMessage) => port.postMessage(message);

send({ type: 'started' });
send({ type: 'done', outcome: await readPdf(workerData as PdfJob) });
