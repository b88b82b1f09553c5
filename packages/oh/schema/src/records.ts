/**
 * Record vocabulary and the agent tools' input schemas. All objects are strict: an unknown field
 * such as `author` or `time` is refused, never ignored (SPEC §5). The store validates with the
 * same schemas on its own, so it is safe to use without the API.
 */
import { z } from 'zod';
import { LIMITS, NAME_RE, REQUEST_ID_RE } from './limits.ts';
import { textSchema, textProblem } from './text.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export const LINK_RELS = ['depends_on', 'supports', 'contradicts'] as const;
export type LinkRel = (typeof LINK_RELS)[number];
export interface Link {
  rel: LinkRel;
  /** A record name (`kind:slug`): a working note of the session or a reviewed record in view. */
  to: string;
}

/** One change of a `remember` call. */
export type Change =
  | { op: 'add'; name: string; text: string; data?: JsonValue; links?: Link[] }
  | { op: 'replace'; name: string; text: string; data?: JsonValue; links?: Link[] }
  | { op: 'remove'; name: string };

/** The fixed menu of questions (SPEC §5); the agent cannot send query rules. */
export const QUESTIONS = ['current_notes', 'related_to', 'supports', 'conflicts', 'changed_since'] as const;
export type Question = (typeof QUESTIONS)[number];

/** One row of a query answer: names and digests, never content (SPEC §5). */
export interface QueryRow {
  /** 0-based within one answer. */
  row: number;
  source: 'note' | 'reviewed';
  kind: string;
  name: string;
  /** `null` only for a note removed (changed_since). */
  digest: string | null;
  /** Row numbers of the same answer this row conflicts with. */
  conflicts: number[];
}

export const nameSchema = textSchema('name')
  .max(LIMITS.nameChars)
  .regex(NAME_RE, 'a name is kind:slug, kind [a-z][a-z0-9-]{0,31}, slug [a-z0-9][a-z0-9._-]{0,95}');

export const linkSchema = z.strictObject({ rel: z.enum(LINK_RELS), to: nameSchema });

/**
 * The first place in `value` that is not JSON or could not be stored, or null. A JSON.parse
 * result is JSON; an in-process caller may hand in undefined, NaN, a Date or a function. Every
 * string, object keys included, follows the contract's text rules (text.ts: no U+0000, no lone
 * surrogate), and nothing nests deeper than {@link LIMITS.inputDepth}. Walked with a stack of its
 * own: an in-process caller's value may nest deeper than the call stack allows. `label` names the
 * value in messages (`data`, `fields`).
 */
export function jsonProblem(
  value: unknown,
  label: string,
): { path: Array<string | number>; message: string } | null {
  type Node = { value: unknown; parent: Node | null; key: string | number; depth: number };
  const pathOf = (node: Node): Array<string | number> => {
    const path: Array<string | number> = [];
    for (let n: Node | null = node; n?.parent; n = n.parent) path.unshift(n.key);
    return path;
  };
  // Depth first; an exit entry takes an object off the current path once its children are done,
  // so an in-process caller's cycle is found (JSON is a tree) and a shared object is not.
  const stack: Array<Node | { exit: object }> = [{ value, parent: null, key: '', depth: 0 }];
  const onPath = new Set<object>();
  // Every value takes at least two bytes of canonical JSON with its separator: past this many,
  // the value is over the 16 KiB limit of a record's data whatever they are, and a 4 MiB body is
  // not walked to its end.
  const maxValues = LIMITS.dataBytes / 2 + 1;
  let values = 1;
  while (stack.length > 0) {
    const top = stack.pop()!;
    if ('exit' in top) {
      onPath.delete(top.exit);
      continue;
    }
    const node = top;
    const v = node.value;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'string') {
      const problem = textProblem(label, v);
      if (problem) return { path: pathOf(node), message: problem };
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path: pathOf(node), message: 'expected a finite number' };
      continue;
    }
    const proto: unknown = typeof v === 'object' ? Object.getPrototypeOf(v) : undefined;
    if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) {
      const got =
        v === undefined
          ? 'undefined'
          : typeof v === 'object'
            ? ((proto as { constructor?: { name?: string } } | null)?.constructor?.name ?? 'an object')
            : typeof v;
      return {
        path: pathOf(node),
        message: `expected a JSON value (null, boolean, number, string, array or object), got ${got}`,
      };
    }
    const object = v as object;
    if (onPath.has(object)) return { path: pathOf(node), message: 'expected a JSON value, got a cycle' };
    if (node.depth >= LIMITS.inputDepth)
      return { path: [], message: `${label} is nested deeper than ${LIMITS.inputDepth} levels` };
    onPath.add(object);
    stack.push({ exit: object });
    const count = Array.isArray(object) ? object.length : Object.keys(object).length;
    values += count;
    if (values > maxValues) {
      return {
        path: [],
        message: `${label} holds more than ${maxValues.toLocaleString('en-US')} values; its canonical JSON would be over the 16 KiB limit`,
      };
    }
    const keys: Array<string | number> = Array.isArray(object)
      ? Array.from(object, (_, i) => i)
      : Object.keys(object);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (typeof key === 'string') {
        const problem = textProblem(`a field name in ${label}`, key);
        if (problem) return { path: [...pathOf(node), key], message: problem };
      }
      stack.push({
        value: (object as Record<string | number, unknown>)[key],
        parent: node,
        key,
        depth: node.depth + 1,
      });
    }
  }
  return null;
}

/**
 * Any JSON value whose canonical JSON is at most 16 KiB (checked by the store after canonicalising).
 * Checked in place and passed on as it came, not rebuilt: a rebuilding parser (zod's record)
 * drops a `__proto__` key, which JSON allows and JSON.parse keeps as an own property, so the
 * stored data and its digest would silently differ from what the caller sent.
 */
export const dataSchema = z.unknown().superRefine((value, ctx) => {
  const problem = jsonProblem(value, 'data');
  if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
}) as unknown as z.ZodType<JsonValue, JsonValue>;

const contentFields = {
  name: nameSchema,
  text: textSchema('text').max(LIMITS.textChars, `text is at most ${LIMITS.textChars} characters`),
  data: dataSchema.optional(),
  links: z.array(linkSchema).max(LIMITS.linksPerRecord, `at most ${LIMITS.linksPerRecord} links`).optional(),
};

export const changeSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), ...contentFields }),
  z.strictObject({ op: z.literal('replace'), ...contentFields }),
  z.strictObject({ op: z.literal('remove'), name: nameSchema }),
]);

export const rememberInputSchema = z
  .strictObject({
    basedOn: z.number().int().min(0),
    requestId: textSchema('requestId').regex(
      REQUEST_ID_RE,
      'requestId is 1..128 characters of A-Z a-z 0-9 . _ : -',
    ),
    changes: z
      .array(changeSchema)
      .min(1, 'changes needs at least 1 change')
      .max(LIMITS.changesPerCall, `changes takes at most ${LIMITS.changesPerCall} changes per call`),
  })
  .superRefine((input, ctx) => {
    const seen = new Set<string>();
    input.changes.forEach((c, i) => {
      if (seen.has(c.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['changes', i, 'name'],
          message: `${c.name} appears twice in one call`,
        });
      }
      seen.add(c.name);
    });
  });

export const queryInputSchema = z
  .strictObject({
    question: z.enum(QUESTIONS),
    name: nameSchema.optional(),
    sinceVersion: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(LIMITS.queryLimitMax).optional(),
    cursor: textSchema('cursor').max(2_000).optional(),
  })
  .superRefine((input, ctx) => {
    if ((input.question === 'related_to' || input.question === 'supports') && input.name === undefined) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: `${input.question} needs a name` });
    }
    if (input.question === 'changed_since' && input.sinceVersion === undefined) {
      ctx.addIssue({ code: 'custom', path: ['sinceVersion'], message: 'changed_since needs sinceVersion' });
    }
  });

export const readInputSchema = z.strictObject({
  name: nameSchema,
  source: z.enum(['note', 'reviewed']).optional(),
  digest: textSchema('digest')
    .regex(/^[0-9a-f]{64}$/, 'digest is 64 lowercase hex digits')
    .optional(),
});

export const explainInputSchema = z.strictObject({
  token: textSchema('token').min(1).max(4_000),
  row: z.number().int().min(0).max(10_000),
});

export const recallInputSchema = z.strictObject({
  text: textSchema('text').min(1).max(LIMITS.recallTextChars),
  limit: z.number().int().min(1).max(LIMITS.recallLimitMax).optional(),
});
