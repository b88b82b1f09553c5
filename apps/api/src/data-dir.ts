/**
 * Owner-only permissions for the embedded data (SPEC §6c): DATA_DIR 0700, the database files and
 * their -wal/-shm 0600, also when they were made earlier with looser modes (before this rule, or
 * by hand). SQLite creates a database's -wal and -shm with the database file's own mode, so a
 * 0600 database keeps them 0600; the commands also run with umask 077 for files made before that.
 *
 * @example
 * secureDataFiles(config); // before the databases open, and again once they have
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OWNER_ONLY_DIR = 0o700;
const OWNER_ONLY_FILE = 0o600;

/** The path of a `file:` database URL, or null for a server or `:memory:`. */
export function databasePath(url: string): string | null {
  if (!url.startsWith('file:')) return null;
  return url.startsWith('file://')
    ? fileURLToPath(url.split('?')[0]!)
    : url.slice('file:'.length).split('?')[0]!;
}

/** DATA_DIR 0700 (made if missing) and every embedded database file there is 0600. */
export function secureDataFiles(config: {
  dataDir: string;
  appDb: { url: string };
  memoryDb: { url: string };
}): void {
  const files = [config.appDb.url, config.memoryDb.url].map(databasePath).filter((p) => p !== null);
  if (files.length === 0) return;
  mkdirSync(config.dataDir, { recursive: true, mode: OWNER_ONLY_DIR });
  chmodSync(config.dataDir, OWNER_ONLY_DIR);
  for (const file of files) {
    for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
      if (existsSync(path)) chmodSync(path, OWNER_ONLY_FILE);
    }
  }
}
