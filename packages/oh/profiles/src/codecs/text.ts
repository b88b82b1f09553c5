/**
 * The string codecs checked against their spec's own terms: text (length, pattern), enum (the
 * listed values) and ref (a record name of the listed kinds).
 */
import { NAME_RE, kindOf } from '@oh/schema';
import { fail, orList, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import type { EnumSpec, RefSpec, TextSpec } from './spec.ts';

const LONE_SURROGATE = /\p{Cs}/u;

export function checkText(input: unknown, spec: TextSpec, pattern: RegExp | undefined): Checked<string> {
  if (typeof input !== 'string') return fail(`expected text, got ${typeOf(input)}`);
  // A lone surrogate has no UTF-8 encoding, so it would have no well-defined digest.
  if (LONE_SURROGATE.test(input)) return fail('text contains an unpaired UTF-16 surrogate');
  const length = [...input].length;
  if (length > spec.maxLength) return fail(`text is at most ${spec.maxLength} characters, got ${length}`);
  if (spec.minLength !== undefined && length < spec.minLength) {
    return fail(`text is at least ${spec.minLength} characters, got ${length}`);
  }
  if (pattern && !pattern.test(input))
    return fail(`${show(input)} does not match the pattern ${spec.pattern}`);
  return pass(input);
}

export function checkEnum(input: unknown, spec: EnumSpec): Checked<string> {
  if (typeof input !== 'string' || !spec.values.includes(input)) {
    return fail(`${show(input)} is not one of: ${spec.values.join(', ')}`);
  }
  return pass(input);
}

export function checkRef(input: unknown, spec: RefSpec): Checked<string> {
  const expected = orList(spec.kinds);
  if (typeof input !== 'string')
    return fail(`expected a record name such as "${spec.kinds[0]}:my-slug", got ${typeOf(input)}`);
  if (!NAME_RE.test(input)) {
    return fail(
      `${show(input)} is not a record name: kind:slug, kind [a-z][a-z0-9-]{0,31}, slug [a-z0-9][a-z0-9._-]{0,95}`,
    );
  }
  const kind = kindOf(input);
  if (!spec.kinds.includes(kind)) return fail(`${input} refers to a ${kind}; expected a ${expected}`);
  return pass(input);
}
