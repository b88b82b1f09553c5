/**
 * A spec turned into a `Codec`: validate, encode and decode over the spec's check.
 */
import { ProfileError, formatIssues, toIssues, toNormalizations } from '../errors.ts';
import { implFor } from './compound.ts';
import type { Impl } from './compound.ts';
import { describeCodec } from './describe.ts';
import { parseSpec } from './spec-schema.ts';
import type { Codec, CodecResult, CodecSpec, ValueOf } from './spec.ts';

function buildCodec<T>(spec: CodecSpec, impl: Impl, summary: string): Codec<T> {
  const validate = (input: unknown): CodecResult<T> => {
    const r = impl.check(input);
    if (!r.ok) return { ok: false, errors: toIssues(r.issues) };
    const value = r.value as T;
    return r.normalized
      ? { ok: true, value, normalized: toNormalizations(r.normalized) }
      : { ok: true, value };
  };
  const orThrow = (input: unknown): T => {
    const r = validate(input);
    if (!r.ok)
      throw new ProfileError('invalid_input', `invalid ${summary}:\n${formatIssues(r.errors)}`, r.errors);
    return r.value;
  };
  return Object.freeze({
    spec,
    summary,
    validate,
    encode: (value: T) => impl.toJson(orThrow(value)),
    decode: orThrow,
  });
}

/**
 * The codec for a spec. The spec is checked first (unknown keys, bounds, units, currencies), so a
 * bad spec fails here, not on the first value.
 *
 * @example
 * const price = codec({ type: 'money', currencies: ['EUR', 'USD'] });
 * price.encode({ amount: '+012.50', currency: 'eur' }); // { amount: '12.50', currency: 'EUR' }
 * price.validate({ amount: 12.5, currency: 'EUR' }).ok; // false: floats are refused
 */
export function codec<const S extends CodecSpec>(spec: S): Codec<ValueOf<S>> {
  const checked = parseSpec(spec);
  return buildCodec(checked, implFor(checked), describeCodec(checked));
}

/** For specs already checked as part of a pack (their kind references resolved there). */
export function codecOfCheckedSpec(spec: CodecSpec): Codec<unknown> {
  return buildCodec(spec, implFor(spec), describeCodec(spec));
}
