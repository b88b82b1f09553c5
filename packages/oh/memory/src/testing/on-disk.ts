/**
 * Looking at a libSQL database behind its owner's back: the files SQLite keeps beside it, the raw
 * bytes in them, and every row of every table. For the on-disk tests here and in the API
 * (`@oh/memory/testing`): nothing in it loads the store.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';

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
