/**
 * Integers (safe numbers, or bigints past ±2^53−1 when the spec is `big`) and exact decimals, the
 * amount inside quantity and money. Decimals are strings: a JSON number has already lost digits.
 */
import Decimal from 'decimal.js';
import type { JsonValue } from '@oh/schema';
import type { RawIssue } from '../errors.ts';
import { fail, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { CODEC_LIMITS } from './spec.ts';
import type { DecimalOptions, IntegerSpec } from './spec.ts';

const INTEGER_STRING = /^[+-]?\d+$/;

export function checkInteger(input: unknown, spec: IntegerSpec): Checked<number | bigint> {
  let value: bigint;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return fail(`expected an integer, got ${show(input)}`);
    if (!Number.isInteger(input)) return fail(`${input} is not an integer`);
    if (!Number.isSafeInteger(input)) {
      return fail(
        spec.big
          ? `${input} is past the safe integer range, where JSON numbers lose digits: pass it as a string`
          : `${input} is past the safe integer range (±${Number.MAX_SAFE_INTEGER})`,
      );
    }
    value = BigInt(input);
  } else if (spec.big && typeof input === 'bigint') {
    value = input;
  } else if (spec.big && typeof input === 'string') {
    if (!INTEGER_STRING.test(input)) return fail(`${show(input)} is not an integer`);
    if (input.replace(/^[+-]?0*/, '').length > CODEC_LIMITS.bigIntegerDigits) {
      return fail(`an integer has at most ${CODEC_LIMITS.bigIntegerDigits} digits`);
    }
    value = BigInt(input);
  } else {
    return fail(
      `expected an integer${spec.big ? ' (a number, or a string of digits)' : ''}, got ${typeOf(input)}`,
    );
  }
  if (spec.min !== undefined && value < BigInt(spec.min))
    return fail(`${value} is less than the minimum ${spec.min}`);
  if (spec.max !== undefined && value > BigInt(spec.max))
    return fail(`${value} is greater than the maximum ${spec.max}`);
  return pass(spec.big ? value : Number(value));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A checked integer as JSON: a number within ±2^53−1, digits as a string past it. */
export function integerToJson(value: unknown): JsonValue {
  return typeof value === 'bigint'
    ? value >= -MAX_SAFE && value <= MAX_SAFE
      ? Number(value)
      : value.toString()
    : (value as number);
}

const DECIMAL = /^([+-])?(\d+)(?:\.(\d+))?$/;

function isDecimal(s: string): boolean {
  return DECIMAL.test(s);
}

/** Canonical exact decimal: no `+`, no leading zeros, no `-` on zero, scale kept. */
export function checkDecimal(
  input: unknown,
  spec: DecimalOptions,
  what = 'an exact decimal',
): Checked<string> {
  if (typeof input === 'number') {
    // A JSON number has been through a binary float on the way in; the exact value is gone.
    return fail(
      Number.isInteger(input)
        ? `expected ${what} as a string such as "${input}", got the number ${input} (numbers are refused: they pass through floats)`
        : `${input} is a float; ${what} is a string such as "1.10", which keeps its exact digits`,
    );
  }
  if (typeof input !== 'string')
    return fail(`expected ${what} as a string such as "12.50", got ${typeOf(input)}`);
  const m = DECIMAL.exec(input);
  if (!m)
    return fail(
      `${show(input)} is not ${what}: expected digits with an optional sign and fraction, such as "-12.50"`,
    );
  const intPart = m[2]!.replace(/^0+(?=\d)/, '');
  const frac = m[3] ?? '';
  if (intPart.length + frac.length > CODEC_LIMITS.decimalDigits)
    return fail(`${what} has at most ${CODEC_LIMITS.decimalDigits} digits`);
  const zero = /^0*$/.test(intPart + frac);
  const canonical = `${m[1] === '-' && !zero ? '-' : ''}${intPart}${frac ? `.${frac}` : ''}`;
  if (spec.maxScale !== undefined && frac.length > spec.maxScale) {
    return fail(`${canonical} has ${frac.length} decimal places; at most ${spec.maxScale} allowed`);
  }
  if (spec.min !== undefined && new Decimal(canonical).lt(spec.min))
    return fail(`${canonical} is less than the minimum ${spec.min}`);
  if (spec.max !== undefined && new Decimal(canonical).gt(spec.max))
    return fail(`${canonical} is greater than the maximum ${spec.max}`);
  return pass(canonical);
}

/** What is wrong with a spec's decimal bounds: each must be a decimal, and min ≤ max. */
export function decimalBoundIssues(spec: DecimalOptions): RawIssue[] {
  const issues: RawIssue[] = [];
  for (const key of ['min', 'max'] as const) {
    const bound = spec[key];
    if (bound === undefined) continue;
    const r = checkDecimal(bound, {});
    if (!r.ok) issues.push({ path: [key], message: r.issues[0]!.message });
  }
  if (spec.min !== undefined && spec.max !== undefined && isDecimal(spec.min) && isDecimal(spec.max)) {
    if (new Decimal(spec.min).gt(spec.max))
      issues.push({ path: ['min'], message: `min ${spec.min} is greater than max ${spec.max}` });
  }
  return issues;
}
