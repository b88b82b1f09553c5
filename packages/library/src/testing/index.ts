/**
 * `@sponge/library/testing`: helpers for tests of the library and of the apps that use it. Source
 * only, never built (tsconfig.build.json leaves this folder out), never loaded by product code.
 */
export { makePageBoxPdf, makeSmallScanPdf } from './page-box-pdf.ts';
export type { PageBox } from './page-box-pdf.ts';
