/**
 * Canonical JSON for Oh (SPEC §3): one spelling of every JSON value, so equal content has equal
 * bytes and equal digests. Record digests, pack digests, request hashes, the codecs' duplicate
 * checks and the recall rendering all go through here.
 */
import canonicalize from 'canonicalize';

/** A value with no canonical JSON form: NaN, Infinity, a lone surrogate, a cycle, undefined. */
export class CanonicalJsonError extends TypeError {
  override readonly name = 'CanonicalJsonError';
}

/**
 * RFC 8785 (JCS) canonical JSON, through the `canonicalize` package by one of the RFC's authors:
 * keys sorted by UTF-16 code units, ECMAScript number formatting, no whitespace. The RFC's reference
 * vectors are in canonical-json.test.ts.
 *
 * @example canonicalJson({ b: 1, a: [1e21, 'é'] }) // '{"a":[1e+21,"é"],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  let out: string | undefined;
  try {
    out = canonicalize(value);
  } catch (error) {
    // NaN, Infinity, lone surrogates and cycles have no canonical form.
    throw new CanonicalJsonError(`value has no canonical JSON form: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (out === undefined)
    throw new CanonicalJsonError('value has no JSON form (undefined, a function or a symbol)');
  return out;
}
