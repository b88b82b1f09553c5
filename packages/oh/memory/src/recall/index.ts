// The recall folder's entry (SPEC §5): what the package's src/index.ts exports, and the table and
// rendering verify checks vectors against.
export { renderNote } from './render.ts';
export type { RecallNote } from './render.ts';
export { createRecallIndex } from './recall-index.ts';
export type {
  CatchUpSource,
  IndexReport,
  RecallEvent,
  RecallEventInput,
  RecallEventMode,
  RecallIndex,
  RecallIndexOptions,
  RecallStatus,
} from './recall-index.ts';
export { NOTE_VECTORS_TABLE } from './schema.ts';
export type { RecallHit, RecallSearchOptions } from './search.ts';
export type { RecallQueueOptions } from './queue.ts';
