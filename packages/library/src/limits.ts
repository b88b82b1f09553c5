/**
 * The library's defaults for what the app's configuration may change (apps/api/src/config.ts, the
 * README's table): one place, read by the configuration and by tools that open a library without
 * it (the bench). No imports, so the configuration stays light.
 */

/** What one owner's library may hold (LIBRARY_MAX_DOCUMENTS, _CHARACTERS, _CHUNKS). */
export const DEFAULT_LIBRARY_QUOTAS = {
  documents: 1_000,
  characters: 100_000_000,
  chunks: 250_000,
} as const;

/**
 * PDF extractions waiting at once, all owners together, and how long each may wait. Not measured
 * (the `uploads` figure measures fairness between owners, not these): more waiting files hold more
 * memory, each up to the file limit; a shorter wait refuses sooner under a long queue. `readSeconds`
 * is how long one PDF may take to read once its turn comes (extract.ts's default).
 */
export const DEFAULT_UPLOAD_QUEUE = { maxWaiting: 8, maxWaitSeconds: 60, readSeconds: 30 } as const;

/**
 * OCR of scanned pages (OCR_MAX_PAGES, OCR_PAGE_SECONDS): pages read per file, and how long one
 * page may take. Not measured as limits: a page of A4 reads in about 1.5 s on the project's
 * machine (bench/README.md, "OCR"), so 50 pages is over a minute of a core per file, and 60 s is
 * forty times an ordinary page, for a dense or huge one.
 */
export const DEFAULT_OCR_LIMITS = { maxPages: 50, pageSeconds: 60 } as const;
