/**
 * Record names a reviewer never has to type (SPEC §7, UI.md *Propose for review*): the name of a
 * reviewed record is generated from its statement, so the dialog shows words and keeps `kind:slug`
 * under *Advanced*. The same function runs in the browser (the name it proposes) and anywhere else
 * that must predict it, so it is pure and deterministic.
 */
import { KIND_RE, SLUG_RE } from '@oh/schema';

/** Slugs are cut at a word boundary at this length: long enough to read, short enough to scan. */
const SLUG_CHARS = 60;
/** The most a slug may be (SLUG_RE), which a suffix `-N` must also fit in. */
const SLUG_MAX = 96;
/** A leading article adds nothing to tell two records apart; every other word stays. */
const LEADING_ARTICLES = new Set(['the', 'a', 'an']);

/** A short stable hash (FNV-1a, 32 bits) naming a statement with no ASCII word in it. */
function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

function wordsOf(text: string): string[] {
  const ascii = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // é → e, ü → u: the accents go, the letters stay
    .toLowerCase()
    .replace(/%/g, ' percent ')
    .replace(/&/g, ' and ');
  // A decimal point between digits is part of the number (1.10, not 1-10); any other character
  // separates words.
  return ascii.match(/\d+(?:\.\d+)+|[a-z0-9]+/g) ?? [];
}

/**
 * The record name generated from a statement: the kind, then the statement's words in lowercase
 * ASCII joined by `-` (a leading article dropped, other small words kept so the name still reads),
 * cut at a word boundary near 60 characters. A statement without a single ASCII letter or digit
 * is named by a hash of its text, so the name is still stable. Always valid per the name rules.
 *
 * @example recordNameFrom('finding', 'The kelp canopy recovered 37 % by 2021.')
 *   // 'finding:kelp-canopy-recovered-37-percent-by-2021'
 */
export function recordNameFrom(kind: string, text: string): string {
  if (!KIND_RE.test(kind)) throw new TypeError(`not a kind: ${JSON.stringify(kind)}`);
  const words = wordsOf(text);
  if (words.length > 1 && LEADING_ARTICLES.has(words[0]!)) words.shift();
  let slug = '';
  for (const word of words) {
    const next = slug === '' ? word : `${slug}-${word}`;
    if (next.length > SLUG_CHARS) {
      // One word longer than the whole allowance is cut rather than dropped.
      if (slug === '') slug = word.slice(0, SLUG_CHARS);
      break;
    }
    slug = next;
  }
  slug = slug.replace(/[.-]+$/, '');
  if (!SLUG_RE.test(slug)) slug = `record-${hashOf(text)}`;
  return `${kind}:${slug}`;
}

/**
 * `base` if no record in `taken` has that name, else the first of `base-2`, `base-3`, … that is
 * free (the slug shortened if the suffix would not fit). For a group of new records, add each
 * name to `taken` as it is chosen.
 *
 * @example uniqueRecordName('study:reef-survey', new Set(['study:reef-survey'])) // 'study:reef-survey-2'
 */
export function uniqueRecordName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  const colon = base.indexOf(':');
  const kind = base.slice(0, colon);
  const slug = base.slice(colon + 1);
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const stem = slug.slice(0, SLUG_MAX - suffix.length).replace(/[.-]+$/, '');
    const name = `${kind}:${stem}${suffix}`;
    if (!taken.has(name)) return name;
  }
}
