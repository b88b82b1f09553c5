/**
 * Reading the cells of reviewed knowledge's rows in the application database: libSQL hands them
 * back loosely typed; these read them with the type the schema guarantees.
 */

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
