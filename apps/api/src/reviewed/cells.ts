/**
 * Reading the cells of reviewed knowledge's rows in the application database: libSQL hands them
 * back loosely typed; these read them with the type the schema guarantees.
 */
import type { JsonValue, Link } from '@oh/memory';

// A cell is a string, number or bigint here (ArrayBuffer only in BLOB columns, never read as text).
/* eslint-disable @typescript-eslint/no-base-to-string */
export function str(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}
export function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** `data` from its stored canonical JSON (NULL → null). */
export function parseStoredData(json: unknown): JsonValue | null {
  if (json === null || json === undefined) return null;
  return JSON.parse(String(json)) as JsonValue;
}

export function parseStoredLinks(json: unknown): Link[] {
  if (json === null || json === undefined || json === '') return [];
  return JSON.parse(String(json)) as Link[];
}
/* eslint-enable @typescript-eslint/no-base-to-string */

export function num(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : Number(value ?? 0);
}
