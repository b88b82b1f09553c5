/**
 * `@oh/memory/testing`: what tests outside this package take from its test harnesses. A dev-only
 * entry: TypeScript source, never built nor in `files`; nothing of the store's product code
 * imports it.
 *
 * - a libSQL server (sqld) on a free port, and whether its binary is installed here;
 * - the changes of call k of the crash and fault suites;
 * - another process holding a database file's write lock;
 * - a free local port;
 * - a session of a test's store and the agent context that writes in it;
 * - the raw look at database files and tables the on-disk tests make;
 * - notes marked with unique strings, which forgetting must leave nowhere;
 * - three notes recall tells apart.
 */
export { sqldBinary, startSqld } from './sqld.ts';
export type { Sqld, SqldOptions } from './sqld.ts';
export { changesFor } from './call-changes.ts';
export { LOCK_HOLDER, holdLock } from './hold-lock.ts';
export type { LockHolder } from './hold-lock.ts';
export { freePort } from './free-port.ts';
export { closeAll, openTestSession } from './fixtures.ts';
export { databaseFiles, fileUrl, findMarkersOnDisk, rawClient, rowsMentioning } from './on-disk.ts';
export { allMarkers, markedNoteChanges, markersFor } from './markers.ts';
export type { Markers } from './markers.ts';
export { RECALL_NOTES } from './recall-notes.ts';
