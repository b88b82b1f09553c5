/**
 * Input validation with messages for people: every zod issue becomes "field: what is wrong", and
 * the whole list becomes one `invalid_input` MemoryError. Nothing is written before this passes.
 */
import type { z } from 'zod';
import { rememberInputSchema } from '@oh/schema';
import { MemoryError } from './errors.ts';
import type { RememberInput } from './types.ts';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 8).map((issue) => {
    const path =
      issue.path.length === 0
        ? what
        : issue.path
            .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
            .join('')
            .replace(/^\./, '');
    return `${path}: ${issue.message}`;
  });
  const more = result.error.issues.length > 8 ? ` (and ${result.error.issues.length - 8} more)` : '';
  throw new MemoryError('invalid_input', `${problems.join('; ')}${more}`, { cause: result.error });
}

/** Remember inputs {@link parseRememberInput} produced: `remember` takes them without parsing again. */
const parsedRemembers = new WeakSet<object>();

/**
 * A remember input checked by the store's own schema, for a host that checks input at its own
 * boundary (the API's router): `remember` then takes it as it is, where it would parse it a second
 * time (issue 42). Throws the schema's ZodError, as `rememberInputSchema.parse` does. What it
 * returns is frozen, `data` included, so what the store takes is what was checked.
 */
export function parseRememberInput(input: unknown): RememberInput {
  const valid: RememberInput = rememberInputSchema.parse(input);
  for (const change of valid.changes) {
    if (change.op !== 'remove') {
      deepFreeze(change.data);
      for (const link of change.links ?? []) Object.freeze(link);
      if (change.links) Object.freeze(change.links);
    }
    Object.freeze(change);
  }
  Object.freeze(valid.changes);
  parsedRemembers.add(Object.freeze(valid));
  return valid;
}

/** `input` as `remember` takes it: parsed by {@link parseRememberInput} already, or now. */
export function rememberInputOf(input: unknown): RememberInput {
  if (typeof input === 'object' && input !== null && parsedRemembers.has(input))
    return input as RememberInput;
  return parseInput(rememberInputSchema, input, 'remember input');
}

function deepFreeze(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
}
