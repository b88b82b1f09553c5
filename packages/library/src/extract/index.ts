export { DocumentRejected, extractDocument } from './extract.ts';
export type { ExtractedDocument, ExtractedSource, ExtractOptions } from './extract.ts';
