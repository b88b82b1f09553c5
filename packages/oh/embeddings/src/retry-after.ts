/**
 * The one reading of a server's "try again after" headers: `Retry-After` as seconds or as an
 * HTTP date (RFC 9110 §10.2.3), or OpenAI's `retry-after-ms`, which wins when both are sent.
 * Anything else (a negative number, words, an unparseable date) is no hint at all.
 *
 * The cloud adapter reads its endpoint's answers with it, and the hosted runtime its model's. The
 * runtime takes it through its own entry, `@oh/embeddings/retry-after`, which loads this file
 * alone: so it imports nothing, and the adapters (their HTTP client, their retries) stay unloaded.
 */

/** Anything with a `get(name)` of header values: fetch's `Headers`, or a wrapper around a plain record. */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

const NUMBER = /^\s*\d+(\.\d+)?\s*$/;

/**
 * The pause the server asked for, in milliseconds (0 for a date in the past), or undefined.
 *
 * @example parseRetryAfter(response.headers) // 2000 for `Retry-After: 2`
 */
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
