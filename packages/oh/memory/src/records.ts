/**
 * Records, canonical JSON and digests (SPEC §3). A digest is the lowercase hex SHA-256 of the
 * UTF-8 bytes of the RFC 8785 canonical JSON of `{kind,name,text,data,links}`, with absent data
 * as `null` and absent links as `[]`, links in the order given. Notes and reviewed records share
 * the rule, so a note and a reviewed record with the same content have the same digest.
 */
import { createHash } from 'node:crypto';
import { CanonicalJsonError, canonicalJson as profileCanonicalJson } from '@oh/profiles';
import { MemoryError } from './errors.ts';
import { LIMITS } from '@oh/schema';
import type { JsonValue, Link, RecordContent } from './types.ts';

/**
 * Oh's canonical JSON (@oh/profiles), with the store's refusal: a value that has no canonical
 * form is `invalid_input`, like any other bad input.
 */
export function canonicalJson(value: unknown): string {
  try {
    return profileCanonicalJson(value);
  } catch (error) {
    if (error instanceof CanonicalJsonError)
      throw new MemoryError('invalid_input', error.message, { cause: error });
    throw error;
  }
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The kind of a record name (SPEC §3): one definition, Oh's schema entry's. */
export { kindOf } from '@oh/schema';

/**
 * What UIs show of a digest: the first 4 hex digits and an ellipsis.
 *
 * @example shortDigest('3f9a0c…') // '3f9a...'
 */
export function shortDigest(digest: string): string {
  return `${digest.slice(0, 4)}...`;
}

/** The exact object a digest is taken over, with the SPEC's defaults filled in. */
export function digestInput(record: {
  kind: string;
  name: string;
  text: string;
  data?: JsonValue | null | undefined;
  links?: Link[] | undefined;
}): RecordContent {
  return {
    kind: record.kind,
    name: record.name,
    text: record.text,
    data: record.data === undefined ? null : record.data,
    // Only rel and to: a stray property on a link object must not change the digest.
    links: (record.links ?? []).map((l) => ({ rel: l.rel, to: l.to })),
  };
}

/**
 * Lowercase hex SHA-256 of the canonical JSON of `{kind,name,text,data,links}`.
 *
 * @example recordDigest({ kind: 'lead', name: 'lead:x', text: 'hello' }) // 64 hex digits
 */
export function recordDigest(record: {
  kind: string;
  name: string;
  text: string;
  data?: JsonValue | null | undefined;
  links?: Link[] | undefined;
}): string {
  return sha256Hex(canonicalJson(digestInput(record)));
}

/**
 * Canonical JSON of a record's `data`, enforcing the 16 KiB limit (SPEC §3), or null when the
 * record has no data. `field` names the input field for the error message.
 */
export function canonicalData(data: JsonValue | null | undefined, field = 'data'): string | null {
  if (data === undefined || data === null) return null;
  const json = canonicalJson(data);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > LIMITS.dataBytes) {
    throw new MemoryError(
      'invalid_input',
      `${field} is ${bytes.toLocaleString('en-US')} bytes as canonical JSON; the limit is 16 KiB (${LIMITS.dataBytes.toLocaleString('en-US')} bytes)`,
    );
  }
  return json;
}

/** Reads `data` back from its stored canonical JSON (NULL → null). */
export function parseStoredData(json: unknown): JsonValue | null {
  if (json === null || json === undefined) return null;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a TEXT cell
  return JSON.parse(String(json)) as JsonValue;
}

export function parseStoredLinks(json: unknown): Link[] {
  if (json === null || json === undefined || json === '') return [];
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a TEXT cell
  return JSON.parse(String(json)) as Link[];
}
