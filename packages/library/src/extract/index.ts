export { DocumentRejected, extractDocument } from './extract.ts';
export type { ExtractedDocument, ExtractOptions } from './extract.ts';
