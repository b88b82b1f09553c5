/**
 * `@sponge/library/settings`: what an app's configuration reads of the library — its defaults and
 * OCR's installed languages — without loading the library itself (no database driver, no search
 * index, no threads), so a process that only reads its configuration (the purge worker) stays
 * light.
 */
export { DEFAULT_LIBRARY_QUOTAS, DEFAULT_OCR_LIMITS, DEFAULT_UPLOAD_QUEUE } from './limits.ts';
export { parseOcrLanguages, resolveOcrLanguages } from './ocr/languages.ts';
export type { OcrLanguage } from './ocr/languages.ts';
