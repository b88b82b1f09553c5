/**
 * Input validation with messages for people: every zod issue becomes "field: what is wrong", and
 * the whole list becomes one `invalid_input` MemoryError. Nothing is written before this passes.
 */
import type { z } from 'zod';
import { MemoryError } from './errors.ts';

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
