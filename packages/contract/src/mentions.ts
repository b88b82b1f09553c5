/**
 * Where an agent's reply names the working notes of its session, so that once the session is
 * forgotten, expired or purged the transcript can show the reply without those names (issue 39):
 * the names go with the notes, the reply stays. The places are found when the reply is said, while
 * the session's log still knows the names, and kept as offsets: no name is copied anywhere.
 */

/** What stands in a reply for a note of a session that is gone. */
export const FORGOTTEN_NOTE = 'a forgotten note';

/** A character that would make the text before a name part of a longer word or name. */
const BEFORE = /[A-Za-z0-9._:-]/;
/** The text after a name that would continue it (`lead:kelp-2`, `lead:kelp.v2`, `lead:kelps`). */
const AFTER = /[._-]*[A-Za-z0-9]/y;

/**
 * Whether `text` holds anything shaped like a record name (`kind:slug`): when it does not, no note
 * can be named in it, and the session's names need not be read at all.
 */
export const mayNameNotes = (text: string): boolean => /[a-z][a-z0-9-]{0,31}:[a-z0-9]/.test(text);

/**
 * Each place `text` names one of `names` (`kind:slug`) as a whole, as `[start, end)` in UTF-16
 * units (what `String.prototype.slice` takes), in order and not overlapping; the longest name wins
 * where two start together, and backticks around a name are part of its place. A full stop after a
 * name ends the sentence, not the name.
 *
 * @example
 * noteMentions('I kept `lead:kelp`.', ['lead:kelp']); // [[7, 18]]
 */
export function noteMentions(text: string, names: Iterable<string>): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (const name of new Set(names)) {
    if (name === '') continue;
    for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
      const end = at + name.length;
      if (at > 0 && BEFORE.test(text[at - 1]!)) continue;
      AFTER.lastIndex = end;
      if (AFTER.test(text)) continue;
      found.push(text[at - 1] === '`' && text[end] === '`' ? [at - 1, end + 1] : [at, end]);
    }
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const spans: Array<[number, number]> = [];
  for (const span of found) if (span[0] >= (spans.at(-1)?.[1] ?? 0)) spans.push(span);
  return spans;
}

/**
 * `text` with each place of `spans` (from {@link noteMentions}) read as {@link FORGOTTEN_NOTE}.
 * A span that does not fit the text, or overlaps the one before, is left out.
 */
export function forgetMentions(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (!(
      Number.isInteger(start) &&
      Number.isInteger(end) &&
      start >= from &&
      end > start &&
      end <= text.length
    ))
      continue;
    out += text.slice(from, start) + FORGOTTEN_NOTE;
    from = end;
  }
  return out + text.slice(from);
}
