import { canonicalJson } from '../records.ts';
import type { JsonValue, Link } from '../types.ts';

/** A note as the recall index sees it: the fields its digest covers, plus that digest. */
export interface RecallNote {
  name: string;
  /** The note's current digest; the stored vector is tied to it. */
  digest: string;
  kind: string;
  text: string;
  data?: JsonValue | null;
  links?: Link[];
}

/** Rendered texts are cut here so a cloud model's input limit is never hit by one big note. */
const RENDER_MAX_CHARS = 8_000;

/**
 * The text a note's vector is computed from: `"<kind> <name>: <text>"`, then its data as canonical
 * JSON on a second line. Deterministic: the same note always renders the same, so a rebuild gives
 * the same vectors as incremental indexing. Links are not rendered (they name other notes, whose
 * words would blur this note's vector). The rendering is never stored.
 */
export function renderNote(note: Pick<RecallNote, 'kind' | 'name' | 'text' | 'data'>): string {
  let out = `${note.kind} ${note.name}: ${note.text}`;
  if (note.data !== undefined && note.data !== null) out += `\n${canonicalJson(note.data)}`;
  return out.length > RENDER_MAX_CHARS ? out.slice(0, RENDER_MAX_CHARS) : out;
}
