// The public surface of recall (SPEC §5); re-exported from the package's src/index.ts.
export { renderNote, RENDER_MAX_CHARS } from './render.ts';
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
export {
  deleteRecallSessionData,
  recallDeleteStatements,
  NOTE_VECTORS_TABLE,
  RECALL_EVENTS_TABLE,
  RECALL_TABLES,
} from './schema.ts';
export type { RecallHit, RecallSearchOptions } from './search.ts';
export type { RecallQueueOptions } from './queue.ts';
