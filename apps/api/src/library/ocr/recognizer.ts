/**
 * Recognises scanned pages in the background (SPEC §6b): one document at a time per API process,
 * one page at a time, on one OCR thread (ocr-thread.ts), so OCR takes at most one core and an
 * owner never has more than one OCR job running. Each page's text is stored as it comes, so the
 * document shows "recognizing text, page 3 of 12" and its pages fill in; when the last page is
 * done the document goes to the indexer (or fails with `no_text` if nothing was found).
 */
import type { Client } from '@libsql/client';
import { isLockError } from '@oh/memory';
import type { IndexerLog } from '../indexer.ts';
import type { OcrLanguage } from './languages.ts';
import { recognisePages } from './ocr-thread.ts';
import type { RecogniseOptions } from './ocr-thread.ts';
import { createPassLoop } from '../pass-loop.ts';
import { finishOcr, nextOcrJob, savePage } from './ocr-store.ts';

export interface OcrSettings {
  languages: readonly OcrLanguage[];
  /** Scanned pages read per file (OCR_MAX_PAGES); the rest stay without text, and the document says so. */
  maxPages: number;
  /** How long one page may take (OCR_PAGE_SECONDS). */
  pageSeconds: number;
  /** Tests: OCR at the API's priority, or with lower memory limits (ocr-thread.ts). */
  thread?: Pick<RecogniseOptions, 'lowestPriority' | 'resourceLimits' | 'externalMemoryMb'>;
}

/**
 * Below this mean word confidence a page's text is taken as noise, not text. Measured on the
 * fixtures (packages/testing/fixtures/scans): printed pages read at 95, a blank scan's paper
 * noise at 19.
 */
export const MIN_CONFIDENCE = 50;

export interface Recognizer {
  kick(): void;
  /** Resolves when no job is waiting (tests and the bench). */
  idle(): Promise<void>;
  /** Stops the current page's thread; the job resumes at that page after a restart. */
  stop(): Promise<void>;
}

export function createRecognizer(options: {
  db: Client;
  settings: OcrSettings;
  log: IndexerLog;
  /** A document's OCR ended with text to index. */
  onRecognised(documentId: string): void;
}): Recognizer {
  const { db, settings, log } = options;
  const abort = new AbortController();

  async function pass(): Promise<void> {
    const failedNow = new Set<string>();
    for (;;) {
      if (abort.signal.aborted) return;
      const job = await nextOcrJob(db, failedNow);
      if (!job) return;
      try {
        await recognisePages(
          { bytes: job.pdf, pages: job.pages.slice(job.done), languages: settings.languages },
          {
            ...settings.thread,
            pageTimeoutMs: settings.pageSeconds * 1000,
            signal: abort.signal,
            onPage: (r) =>
              savePage(db, job.documentId, {
                page: r.page,
                text: r.confidence >= MIN_CONFIDENCE ? r.text : '',
                outcome: r.outcome,
              }),
          },
        );
        if (await finishOcr(db, job.documentId, settings)) options.onRecognised(job.documentId);
      } catch (err) {
        if (abort.signal.aborted) return;
        failedNow.add(job.documentId);
        // A lock or a broken install: the job stays, and the next kick (or restart) resumes it.
        if (isLockError(err)) log.warn({ err, documentId: job.documentId }, 'OCR waits for a database lock');
        else log.error({ err, documentId: job.documentId }, 'OCR of a document failed unexpectedly');
      }
    }
  }

  const passes = createPassLoop({
    pass,
    stopped: () => abort.signal.aborted,
    onError: (err) => log.error({ err }, 'the OCR pass stopped'),
  });
  const kick = () => passes.kick();

  return {
    kick,
    idle: () => passes.idle(),
    async stop() {
      abort.abort(new Error('the API is stopping'));
      await passes.running;
    },
  };
}
