/**
 * Locks: telling a lock from a failure, and which statements take the write lock.
 *
 * SQLITE_BUSY (another connection holds the lock SQLite needs) and SQLITE_LOCKED (a conflict inside
 * one connection's shared cache) say "try again later"; every other error says something is wrong,
 * and callers that catch errors to carry on catch only these.
 */
import { LibsqlError } from '@libsql/client';

/** true for SQLITE_BUSY / SQLITE_LOCKED and their extended codes (BUSY_SNAPSHOT, BUSY_RECOVERY…). */
export function isLockError(error: unknown): boolean {
  if (!(error instanceof LibsqlError)) return false;
  const codes = [error.code, String(error.extendedCode ?? '')];
  return codes.some((c) => c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED'));
}

/** A statement that only reads. */
export const isReadOnlySql = (sql: string): boolean => /^\s*(SELECT|VALUES)\b/i.test(sql);

/**
 * A statement that may take the write lock on its own (outside a transaction): not a read, not a
 * PRAGMA (some of which may not run inside a transaction), not transaction control.
 */
export const takesWriteLock = (sql: string): boolean =>
  !/^\s*(SELECT|VALUES|PRAGMA|EXPLAIN|BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(sql);
