/**
 * What every value check shares: the result type, and the helpers that word a refusal.
 */
import type { PathSegment, RawIssue, RawNormalization } from '../errors.ts';

/**
 * Each check takes any input and returns the canonical value or the issues found. An accepted
 * value may carry the normalisations made to it (only when there are some).
 */
export type Checked<T> =
  { ok: true; value: T; normalized?: RawNormalization[] } | { ok: false; issues: RawIssue[] };

export const pass = <T>(value: T, normalized: readonly RawNormalization[] = []): Checked<T> =>
  normalized.length ? { ok: true, value, normalized: [...normalized] } : { ok: true, value };
export const fail = (message: string, path: PathSegment[] = []): Checked<never> => ({
  ok: false,
  issues: [{ path, message }],
});

/** Arrays and objects nested deeper than this are shown as "...": only 60 characters are kept. */
const SHOWN_DEPTH = 8;

/**
 * A compact rendering of a bad input for messages. Never deeper than {@link SHOWN_DEPTH}: a plain
 * JSON.stringify of a 10,000-deep value runs out of stack (a RangeError, once answered 500).
 */
export function show(input: unknown): string {
  if (typeof input === 'bigint') return `${input}n`;
  if (input === undefined) return 'nothing';
  // The depth of each array and object as JSON.stringify meets it, by its holder's depth.
  const depths = new WeakMap<object, number>();
  const text =
    JSON.stringify(input, function (this: unknown, _key: string, value: unknown) {
      if (typeof value !== 'object' || value === null) return value;
      const depth = (typeof this === 'object' && this !== null ? (depths.get(this) ?? 0) : 0) + 1;
      if (depth > SHOWN_DEPTH) return '...';
      depths.set(value, depth);
      return value;
    }) ??
    // JSON.stringify gives undefined only for a function or a symbol, whose String() is readable.
    typeof input;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export function typeOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'an object';
  return `the ${typeof input} ${show(input)}`;
}

export function isPlainObject(input: unknown): input is Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const proto = Object.getPrototypeOf(input) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The two-part values (quantity, money): exactly `keys`, each present, nothing else. */
export function checkParts(
  input: unknown,
  keys: readonly string[],
  example: string,
): Checked<Record<string, unknown>> {
  if (!isPlainObject(input)) return fail(`expected an object ${example}, got ${typeOf(input)}`);
  const issues: RawIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!keys.includes(key))
      issues.push({ path: [key], message: `unknown field "${key}" (expected ${keys.join(' and ')})` });
  }
  for (const key of keys) if (!Object.hasOwn(input, key)) issues.push({ path: [key], message: 'required' });
  return issues.length ? { ok: false, issues } : pass(input);
}

export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
