/**
 * The one reading of a server's "try again after" headers in @oh/memory: `Retry-After` as seconds
 * or as an HTTP date (RFC 9110 §10.2.3), or OpenAI's `retry-after-ms`, which wins when both are
 * sent. Anything else (a negative number, words, an unparseable date) is no hint at all.
 */

/** Anything with a `get(name)` of header values: fetch's `Headers`, or a wrapper around a plain record. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

const NUMBER = /^\s*\d+(\.\d+)?\s*$/;

/** The pause the server asked for, in milliseconds (0 for a date in the past), or undefined. */
export function parseRetryAfter(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (typeof ms === 'string' && NUMBER.test(ms)) return Math.round(Number(ms));
  const value = headers.get('retry-after');
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (NUMBER.test(value)) return Math.round(Number(value) * 1000);
  // Only a date: Date.parse also reads bare numbers ("-1", "2026") as dates.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
