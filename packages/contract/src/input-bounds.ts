/**
 * The bound on an input's shape (SPEC §6c: no input shape, however deep or large, yields a 500),
 * checked on the parsed JSON before any schema or codec runs. JSON.parse itself nests as deep as
 * the body allows, but much code after it recurses (JSON.stringify in a message, a recursive
 * schema, a canonicaliser): a 10,000-deep array once ended in a RangeError, answered 500.
 */
import { LIMITS } from '@oh/schema';
import { SPONGE_LIMITS } from './limits.ts';

/**
 * Why `input` is too deep or too large to be looked at, or null. Arrays and plain objects are
 * walked with a stack of their own, so the walk itself cannot run out of call stack, and it stops
 * at the first level or value over the limit. Anything else (a FormData of an upload, whose parts
 * are flat and bounded by the body limit) is a leaf.
 *
 * @example
 * inputBoundsProblem(JSON.parse('['.repeat(65) + ']'.repeat(65))); // 'Input is nested deeper than 64 levels.'
 */
export function inputBoundsProblem(input: unknown): string | null {
  const stack: Array<[unknown, number]> = [[input, 0]];
  let values = 1;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    const proto: unknown = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) continue;
    if (depth >= LIMITS.inputDepth)
      return `Input is nested deeper than ${LIMITS.inputDepth} levels (arrays and objects).`;
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    values += children.length;
    if (values > SPONGE_LIMITS.inputValues)
      return `Input holds more than ${SPONGE_LIMITS.inputValues.toLocaleString('en-US')} values.`;
    for (const child of children) stack.push([child, depth + 1]);
  }
  return null;
}
