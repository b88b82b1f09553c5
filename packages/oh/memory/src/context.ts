/**
 * What every module of the store shares: the client, the clock, the settings and the cache of
 * reviewed knowledge. Internal; not exported from the package.
 */
import type { Client } from '@libsql/client';
import type { ReviewedViews } from './reviewed-view.ts';
import type { WriteQueue } from './db/index.ts';

export interface StoreContext {
  client: Client;
  /** remember's writes go through here (group commit on an embedded file). */
  writes: WriteQueue;
  /** The URL the client was opened with (embedded files get WAL checkpoints). */
  url: string;
  now: () => Date;
  sessionTtlMs: number;
  explainTtlMs: number;
  tokenSecret: string;
  reviewed: ReviewedViews;
}

/** libSQL rows come back as loosely typed values; these read them with the type the schema guarantees. */
// A cell is a string, number or bigint here (ArrayBuffer only in BLOB columns, never read as text).
/* eslint-disable @typescript-eslint/no-base-to-string */
export function str(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}
export function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
/* eslint-enable @typescript-eslint/no-base-to-string */
export function num(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : Number(value ?? 0);
}
