/**
 * The OCR thread's entry (started by ocr-thread.ts): renders each listed page of one PDF with
 * pdf.js (through unpdf) on `@napi-rs/canvas`, and reads it with tesseract.js, one page at a
 * time, answering after each page.
 *
 * Tesseract's traineddata comes from the installed `@tesseract.js-data/<code>` packages: the
 * thread links them into a directory of its own (tesseract.js reads every language from one
 * `langPath`), tells tesseract.js never to cache or fetch, and removes the directory once the
 * languages are loaded.
 *
 * Loaded with Node's type stripping when the API runs from source: erasable TypeScript only.
 */
import { mkdtempSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import Tesseract from 'tesseract.js';
import { createIsomorphicCanvasFactory, getDocumentProxy, renderPageAsImage } from 'unpdf';
import type { OcrLanguage } from './languages.ts';

export interface OcrThreadJob {
  bytes: Uint8Array;
  /** 1-based page numbers, in the order to read them. */
  pages: number[];
  languages: OcrLanguage[];
  /** pdf.js's render scale: 2 is about 144 dpi for a page of points. */
  scale: number;
}

export type OcrThreadMessage =
  | { type: 'ready' }
  | { type: 'start'; page: number }
  | { type: 'page'; page: number; text: string; confidence: number; rendered: boolean }
  | { type: 'done' };

if (!parentPort) throw new Error('ocr-worker runs only as a worker thread (see ocr-thread.ts)');
const port = parentPort;
const send = (message: OcrThreadMessage) => port.postMessage(message);
const job = workerData as OcrThreadJob;

/**
 * The CPU budget: this thread, and the tesseract.js thread it starts (a new thread inherits its
 * creator's nice value on Linux), run at the lowest priority, so the API's own threads take a
 * core first whenever they need one and OCR has what is left. On Linux the nice value is per
 * thread; /proc/thread-self names this one. Elsewhere OCR runs at the API's priority.
 */
export const OCR_NICE = 19;
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, OCR_NICE);
} catch {
  // Not Linux, or no /proc: one OCR thread per process is the budget then.
}

const canvasImport = () => import('@napi-rs/canvas');
const langDir = mkdtempSync(join(tmpdir(), 'sponge-ocr-'));
let worker: Tesseract.Worker;
try {
  for (const lang of job.languages) symlinkSync(lang.file, join(langDir, `${lang.code}.traineddata.gz`));
  worker = await Tesseract.createWorker(
    job.languages.map((l) => l.code),
    Tesseract.OEM.LSTM_ONLY,
    { langPath: langDir, gzip: true, cacheMethod: 'none' },
  );
} finally {
  rmSync(langDir, { recursive: true, force: true });
}
const CanvasFactory = await createIsomorphicCanvasFactory(canvasImport);
const pdf = await getDocumentProxy(job.bytes, { verbosity: 0, CanvasFactory });
send({ type: 'ready' });

for (const page of job.pages) {
  send({ type: 'start', page });
  let png: ArrayBuffer;
  try {
    png = await renderPageAsImage(pdf, page, { canvasImport, scale: job.scale });
  } catch {
    // A page pdf.js cannot draw is the file's fault: the page stays without text.
    send({ type: 'page', page, text: '', confidence: 0, rendered: false });
    continue;
  }
  const { data } = await worker.recognize(Buffer.from(png));
  send({ type: 'page', page, text: data.text, confidence: data.confidence, rendered: true });
}
await worker.terminate();
await pdf.loadingTask.destroy();
send({ type: 'done' });
