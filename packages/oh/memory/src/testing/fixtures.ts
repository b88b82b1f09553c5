/**
 * Shared set-up for the reliability tests of the store: temp folders that are always removed,
 * a store on a real libSQL file, and the raw-file helpers the on-disk tests need.
 *
 * Everything goes through the package's public entry (`../index.ts`), so these tests exercise
 * exactly what the API uses.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { createMemoryStore, openPurger } from '../index.ts';
import type { MemoryStore, Purger, ReviewedKnowledgeReader } from '../index.ts';

export const TOKEN_SECRET = 'reliability-test-secret-0123456789abcdef';
export const PURGE_KEY = 'reliability-purge-key-0123456789abcdef';

/** Reviewed knowledge is not under test here: a document without any reviewed record. */
export const noReviewed: ReviewedKnowledgeReader = {
  latestRevision: async () => 0,
  recordsAt: async () => [],
};

export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `sponge-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A mutable clock: tests move it to expire sessions without waiting a day. */
export function testClock(start = Date.now()): {
  now: () => Date;
  set: (ms: number) => void;
  advance: (ms: number) => void;
} {
  let t = start;
  return { now: () => new Date(t), set: (ms) => void (t = ms), advance: (ms) => void (t += ms) };
}

export async function openStore(
  url: string,
  options: { now?: () => Date; explainTtlSeconds?: number; sessionTtlSeconds?: number } = {},
): Promise<MemoryStore> {
  return await createMemoryStore({ url, tokenSecret: TOKEN_SECRET, reviewed: noReviewed, ...options });
}

export async function openTestPurger(url: string, now?: () => Date): Promise<Purger> {
  return await openPurger({ url, purgeKey: PURGE_KEY, ...(now ? { now } : {}) });
}

export function fileUrl(path: string): string {
  return `file:${path}`;
}

/** A raw connection to inspect the file behind the store's back. */
export function rawClient(path: string): Client {
  return createClient({ url: fileUrl(path) });
}

/** Every file SQLite may keep beside a database: the main file, -wal, -shm and -journal. */
export function databaseFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.db(-wal|-shm|-journal)?$/.test(f))
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile());
}

/** Which of the markers occur in the raw bytes of which files (UTF-8 and UTF-16 encodings). */
export function findMarkersOnDisk(
  files: string[],
  markers: string[],
): Array<{ file: string; marker: string }> {
  const found: Array<{ file: string; marker: string }> = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const marker of markers) {
      if (bytes.includes(Buffer.from(marker, 'utf8')) || bytes.includes(Buffer.from(marker, 'utf16le'))) {
        found.push({ file, marker });
      }
    }
  }
  return found;
}

/**
 * Every row of every table (virtual-table shadows included) whose values mention one of the
 * needles. The store's schema is its own business; this looks at all of it.
 */
export async function rowsMentioning(
  db: Client,
  needles: string[],
): Promise<Array<{ table: string; row: string }>> {
  const tables = await db.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  );
  const hits: Array<{ table: string; row: string }> = [];
  for (const t of tables.rows) {
    const table = String(t.name);
    let rs;
    try {
      rs = await db.execute(`SELECT * FROM "${table.replaceAll('"', '""')}"`);
    } catch {
      continue; // a virtual table that cannot be scanned directly; its shadow tables are listed too
    }
    for (const r of rs.rows) {
      const text = rs.columns
        .map((c) => {
          const v = r[c];
          if (v instanceof ArrayBuffer) return Buffer.from(v).toString('latin1');
          return String(v);
        })
        .join('\u0001');
      if (needles.some((n) => text.includes(n))) hits.push({ table, row: text.slice(0, 200) });
    }
  }
  return hits;
}

/** Rows referring to a session id, counted per table. */
export async function rowsPerTable(db: Client, needle: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const hit of await rowsMentioning(db, [needle]))
    counts.set(hit.table, (counts.get(hit.table) ?? 0) + 1);
  return counts;
}

/** The store's stable error reason, whatever the error class is called. */
export function reasonOf(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'reason' in err) return String(err.reason);
  if (err && typeof err === 'object' && 'code' in err) return String(err.code);
  return undefined;
}

/** Resolves to the reason a promise was refused with, or `'ok'` when it resolved. */
export async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return reasonOf(err) ?? `unexpected: ${String(err)}`;
  }
}
