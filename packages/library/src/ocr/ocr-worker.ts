/**
 * The OCR thread's entry (started by ocr-thread.ts): renders each listed page of one PDF with
 * pdf.js (through unpdf) on `@napi-rs/canvas`, and reads it with tesseract.js, one page at a
 * time, answering after each page.
 *
 * A page is drawn at OCR_SCALE, or smaller so that it fits OCR_PAGE_PIXELS; a page whose declared
 * size no PDF page may have is not drawn (page-fit.ts). The file declares a page's size and its
 * images' sizes; what drawing them may cost is bounded here, not by the file.
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
import { fitPage, OCR_MAX_IMAGE_PIXELS } from './page-fit.ts';

export interface OcrThreadJob {
  bytes: Uint8Array;
  /** 1-based page numbers, in the order to read them. */
  pages: number[];
  languages: OcrLanguage[];
  /** Run at the lowest priority (OCR_NICE); false keeps the API's (tests that time OCR). */
  lowestPriority: boolean;
}

/** How a page ended in the thread: read, not drawable by pdf.js, or a size no PDF page may have. */
export type ThreadPageOutcome = 'read' | 'unrenderable' | 'page_size';

export type OcrThreadMessage =
  /** The thread and the Tesseract thread it started exist, at their priority; nothing loaded yet. */
  | { type: 'spawned' }
  | { type: 'ready' }
  | { type: 'start'; page: number }
  | { type: 'page'; page: number; text: string; confidence: number; outcome: ThreadPageOutcome }
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
 * (On a machine kept busy at the API's priority, OCR then hardly runs at all: by design here,
 * but a test that waits for OCR's words asks for the API's priority instead.)
 */
export const OCR_NICE = 19;
if (job.lowestPriority) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, OCR_NICE);
  } catch {
    // Not Linux, or no /proc: one OCR thread per process is the budget then.
  }
}

const canvasImport = () => import('@napi-rs/canvas');
const langDir = mkdtempSync(join(tmpdir(), 'sponge-ocr-'));
let worker: Tesseract.Worker;
try {
  for (const lang of job.languages) symlinkSync(lang.file, join(langDir, `${lang.code}.traineddata.gz`));
  const creating = Tesseract.createWorker(
    job.languages.map((l) => l.code),
    Tesseract.OEM.LSTM_ONLY,
    { langPath: langDir, gzip: true, cacheMethod: 'none' },
  );
  // createWorker starts Tesseract's thread before its first await: it exists now, at this
  // thread's priority, and is what takes the time (loading the traineddata) from here on.
  send({ type: 'spawned' });
  worker = await creating;
} finally {
  rmSync(langDir, { recursive: true, force: true });
}
const CanvasFactory = await createIsomorphicCanvasFactory(canvasImport);
const pdf = await getDocumentProxy(job.bytes, {
  verbosity: 0,
  CanvasFactory,
  maxImageSize: OCR_MAX_IMAGE_PIXELS,
});
send({ type: 'ready' });

for (const page of job.pages) {
  send({ type: 'start', page });
  let png: ArrayBuffer;
  try {
    // The viewport at scale 1 is the page's size in points, after its UserUnit and rotation.
    const { width, height } = (await pdf.getPage(page)).getViewport({ scale: 1 });
    const fit = fitPage(width, height);
    if (!fit.ok) {
      send({ type: 'page', page, text: '', confidence: 0, outcome: 'page_size' });
      continue;
    }
    png = await renderPageAsImage(pdf, page, { canvasImport, scale: fit.scale });
    // The page's decoded images, fonts and operator list: kept by pdf.js until told, they would
    // add up page after page in this thread.
    (await pdf.getPage(page)).cleanup();
  } catch {
    // A page pdf.js cannot draw is the file's fault: the page stays without text.
    send({ type: 'page', page, text: '', confidence: 0, outcome: 'unrenderable' });
    continue;
  }
  const { data } = await worker.recognize(Buffer.from(png));
  send({ type: 'page', page, text: data.text, confidence: data.confidence, outcome: 'read' });
}
await worker.terminate();
await pdf.loadingTask.destroy();
send({ type: 'done' });
