/**
 * `@sponge/library`: the library's public entry. What it does not export is private.
 */
export { DocumentRejected, extractDocument } from './extract/index.ts';
export type { ExtractedDocument } from './extract/index.ts';
export { DEFAULT_TIMEOUT_MS } from './extract/extract.ts';
export { cleanPdfText, hasText } from './extract/text.ts';
export { formatCount } from './extract/messages.ts';
export { MAX_PDF_THREADS, livePdfThreads } from './extract/pdf-thread.ts';
export { DEFAULT_OCR_LANGUAGES, parseOcrLanguages, resolveOcrLanguages } from './ocr/languages.ts';
export type { OcrLanguage } from './ocr/languages.ts';
export { OCR_MESSAGES } from './ocr/messages.ts';
export { liveOcrThreads, recognisePages } from './ocr/ocr-thread.ts';
export type { RecogniseOptions } from './ocr/ocr-thread.ts';
