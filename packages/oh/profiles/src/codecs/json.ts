/**
 * The depth guard that runs before any recursive parsing. (Canonical JSON is `canonicalJson` in
 * records.ts, the one spelling digests and comparisons use everywhere.)
 */

/**
 * Whether a JSON value nests deeper than `limit`. Checked before zod sees a document, so that a
 * hostile pack cannot exhaust the stack of the recursive spec schema.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Deep enough for a pack: kinds › kind › fields › field › codec, then nested lists and objects. */
export const MAX_JSON_DEPTH = 48;
