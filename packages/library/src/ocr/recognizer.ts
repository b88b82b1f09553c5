/**
 * Recognises scanned pages in the background (SPEC §6b): one document at a time per API process,
 * one page at a time, on one OCR thread (ocr-thread.ts), so OCR takes at most one core. Each page's
 * text is stored as it comes, so the document shows "recognizing text, page 3 of 12" and its pages
 * fill in; when the last page is done the document goes to the indexer (or fails with `no_text`
 * if nothing was found).
 *
 * Every API process on the database runs one: a job is read by the one that took its lease
 * (ocr-store.ts claimOcrJob), and an owner has one job read at a time over all of them. One that
 * finds every job taken looks again when the first lease would lapse, and takes over a job whose
 * process died, at its first page not done.
 */
import type { Client } from '@libsql/client';
import { isLockError } from '@oh/memory';
import { createPassLoop } from '../pass-loop.ts';
import { LOCKED_RETRY_MS } from '../search/indexer.ts';
import type { IndexerLog } from '../search/indexer.ts';
import type { OcrLanguage } from './languages.ts';
import { recognisePages } from './ocr-thread.ts';
import type { RecogniseOptions } from './ocr-thread.ts';
import { claimOcrJob, finishOcr, savePage } from './ocr-store.ts';
import type { OcrJobRow } from './ocr-store.ts';
import { LeaseLost, keepLease, newHolder, releaseLease, takenOver, untilLapse } from '../work-lease.ts';
import type { Lease } from '../work-lease.ts';

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
const MIN_CONFIDENCE = 50;

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
  /** The clock leases are judged by (tests move it). */
  now: () => Date;
  /** A document's OCR ended with text to index. */
  onRecognised(documentId: string): void;
}): Recognizer {
  const { db, settings, log, now } = options;
  const abort = new AbortController();
  const holder = newHolder();

  async function pass(): Promise<void> {
    // A job that failed in this pass is not retried in it (the next kick or a restart resumes it).
    const failedNow = new Set<string>();
    for (;;) {
      if (abort.signal.aborted) return;
      let job: OcrJobRow | null;
      try {
        job = await claimOcrJob(db, holder, now(), failedNow);
      } catch (err) {
        if (!isLockError(err)) throw err;
        log.warn({ err }, 'OCR waits for a database lock');
        passes.kickAfter(LOCKED_RETRY_MS);
        return;
      }
      if (!job) {
        const wait = await untilLapse(db, 'ocr', holder, now());
        if (wait !== null) passes.kickAfter(wait);
        return;
      }
      if (!(await read(job))) failedNow.add(job.documentId);
    }
  }

  /** Reads the job's pages not done yet, then ends it; false when it failed (the job stays). */
  async function read(job: OcrJobRow): Promise<boolean> {
    const lease: Lease = { work: 'ocr', documentId: job.documentId, holder };
    const lost = new AbortController();
    const beat = keepLease({
      db,
      lease,
      now,
      onLost: () => lost.abort(new LeaseLost(lease)),
      onError: (err) =>
        log.warn({ err, documentId: job.documentId }, 'renewing the lease of an OCR job failed'),
    });
    try {
      await recognisePages(
        { bytes: job.pdf, pages: job.pages.slice(job.done), languages: settings.languages },
        {
          ...settings.thread,
          pageTimeoutMs: settings.pageSeconds * 1000,
          signal: AbortSignal.any([abort.signal, lost.signal]),
          onPage: async (r) => {
            log.debug?.(
              { documentId: job.documentId, page: r.page, outcome: r.outcome, confidence: r.confidence },
              'OCR answered a page',
            );
            const page = {
              page: r.page,
              text: r.confidence >= MIN_CONFIDENCE ? r.text : '',
              outcome: r.outcome,
            };
            if (!(await savePage(db, lease, page, now()))) throw new LeaseLost(lease);
          },
        },
      );
      if (await finishOcr(db, lease, settings)) options.onRecognised(job.documentId);
      return true;
    } catch (err) {
      if (abort.signal.aborted) return true;
      if (lost.signal.aborted || err instanceof LeaseLost) {
        // This process stalled past its lease and another took the job over (or it was removed).
        if (await takenOver(db, lease).catch(() => false))
          log.warn({ documentId: job.documentId }, 'the OCR of a document went to another API process');
        return true;
      }
      // A lock or a broken install: the job stays, and a later pass (or a restart) resumes it.
      if (isLockError(err)) {
        log.warn({ err, documentId: job.documentId }, 'OCR waits for a database lock');
        passes.kickAfter(LOCKED_RETRY_MS);
      } else log.error({ err, documentId: job.documentId }, 'OCR of a document failed unexpectedly');
      return false;
    } finally {
      beat.stop();
      // Given up as it stops or fails, another process (or this one after a restart) resumes it at once.
      await releaseLease(db, lease).catch((err: unknown) =>
        log.warn({ err, documentId: job.documentId }, 'giving up the lease of an OCR job failed'),
      );
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
      passes.cancel();
      await passes.running;
    },
  };
}
