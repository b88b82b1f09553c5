// The database layer's one entry: opening a libSQL database the way the store relies on (an
// embedded file on one connection that keeps its prepared statements, optionally on a thread of
// its own; a server through @libsql/client), the migration runner, and the group-commit queue.
export { BUSY_TIMEOUT_MS, checkpointWal, isEmbeddedUrl, openDatabase } from './open.ts';
export type { OpenDatabaseOptions, Synchronous } from './open.ts';
export { isLockError } from './locks.ts';
export { readRow } from './local-client.ts';
export type { PlainRow } from './local-client.ts';
export { applyMigrations } from './migrations.ts';
export type { DerivedMigration, DerivedTables, Migration, MigrationSettings } from './migrations.ts';
export { createWriteQueue } from './write-queue.ts';
export type { WriteQueue } from './write-queue.ts';
