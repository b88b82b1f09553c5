/**
 * Identifiers that point outside: DOIs (stored bare and lowercase) and http(s) URLs (stored in
 * WHATWG form).
 */
import { fail, pass, show, typeOf } from './checked.ts';
import type { Checked } from './checked.ts';
import { CODEC_LIMITS } from './spec.ts';
import type { UrlSpec } from './spec.ts';

const DOI_PREFIX = /^(?:doi:|https?:\/\/(?:dx\.)?doi\.org\/)/i;
const DOI = /^10\.\d{4,9}(?:\.\d+)*\/[^\s\p{Cc}]+$/u;

export function checkDoi(input: unknown): Checked<string> {
  if (typeof input !== 'string') return fail(`expected a DOI such as "10.1000/xyz123", got ${typeOf(input)}`);
  if (input.length > CODEC_LIMITS.doiChars)
    return fail(`a DOI is at most ${CODEC_LIMITS.doiChars} characters`);
  let doi = input;
  const prefix = DOI_PREFIX.exec(doi);
  if (prefix) {
    doi = doi.slice(prefix[0].length);
    if (prefix[0].includes('/')) {
      try {
        doi = decodeURIComponent(doi);
      } catch {
        return fail(`${show(input)} is not a DOI: bad percent-encoding`);
      }
    }
  }
  if (!DOI.test(doi))
    return fail(`${show(input)} is not a DOI: expected 10.NNNN/suffix, such as "10.1000/xyz123"`);
  // DOIs are case-insensitive (ISO 26324); lowercase is the one spelling we store.
  return pass(doi.toLowerCase());
}

export function checkUrl(input: unknown, spec: UrlSpec): Checked<string> {
  const max = spec.maxLength ?? CODEC_LIMITS.defaultUrlChars;
  if (typeof input !== 'string') return fail(`expected an http(s) URL, got ${typeOf(input)}`);
  if (input.length > max) return fail(`a URL is at most ${max} characters, got ${input.length}`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return fail(`${show(input)} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return fail(`only http and https URLs are allowed, got a ${url.protocol.slice(0, -1)} URL`);
  }
  if (url.username || url.password) return fail('URLs with a user name or password are refused');
  if (url.href.length > max) return fail(`a URL is at most ${max} characters once normalised`);
  return pass(url.href);
}
