/**
 * The review workbench's form model, apart from React: a kind's fields (from `profiles.preview`)
 * become flat string inputs keyed by dotted path (`effect.value`, `interval.low`), prefilled
 * from the working note where it can be, and are turned back into the JSON the API validates.
 * The API's value codecs have the last word; nothing here rejects a value.
 */
import { normalisePassage, noteSourceOf, passageOccursIn } from '@sponge/contract';
import type { NoteSource } from '@sponge/contract';
import { findQuote } from '../document/quote.ts';
import type { RouterOutputs } from '../trpc.ts';

export type KindPreview = RouterOutputs['profiles']['preview']['kinds'][number];
export type FieldPreview = KindPreview['fields'][number];
export type CodecSpec = FieldPreview['codec']['spec'];
/** A field of an `object` codec: the same shape without the preview's extras. */
export interface SubField {
  codec: CodecSpec;
  required: boolean;
  description: string;
}

/** Flat input values, by dotted path. */
export type FormValues = Record<string, string>;

/** Codecs whose values are one string in one input. */
const SCALAR = new Set([
  'text',
  'integer',
  'decimal',
  'date',
  'currency',
  'language',
  'doi',
  'url',
  'enum',
  'ref',
]);

export const isScalar = (spec: CodecSpec): boolean => SCALAR.has(spec.type);

/** A list edited one item per line (scalar items), else as JSON. */
export const listByLines = (spec: CodecSpec): boolean => spec.type === 'list' && isScalar(spec.of);

/** Field names that read as "the record's statement", best first. */
const TEXT_FIELD_PREFERENCE = [
  'statement',
  'definition',
  'text',
  'reason',
  'description',
  'gloss',
  'summary',
  'title',
  'name',
];

/** The text field a note's text goes into: a preferred name, else the longest text field. */
export function primaryTextField(fields: readonly FieldPreview[]): string | null {
  const texts = fields.filter((f) => f.codec.spec.type === 'text');
  for (const name of TEXT_FIELD_PREFERENCE) if (texts.some((f) => f.name === name)) return name;
  const longest = [...texts].sort((a, b) => maxLength(b.codec.spec) - maxLength(a.codec.spec))[0];
  return longest?.name ?? null;
}

function maxLength(spec: CodecSpec): number {
  return spec.type === 'text' ? spec.maxLength : 0;
}

/**
 * Initial inputs for a kind, from a note: its text in the primary text field, and any top-level
 * `data` key that names a field (quantities, money and objects spread over their parts).
 */
export function prefill(fields: readonly FieldPreview[], note: { text: string; data: unknown }): FormValues {
  const values: FormValues = {};
  const primary = primaryTextField(fields);
  if (primary && note.text.trim()) values[primary] = note.text;
  const data = note.data;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const f of fields) {
      if (Object.hasOwn(data, f.name))
        fill(values, f.name, f.codec.spec, (data as Record<string, unknown>)[f.name]);
    }
  }
  return values;
}

function fill(values: FormValues, path: string, spec: CodecSpec, value: unknown): void {
  if (value === null || value === undefined) return;
  switch (spec.type) {
    case 'quantity':
    case 'money': {
      const [a, b] = spec.type === 'quantity' ? ['value', 'unit'] : ['amount', 'currency'];
      if (typeof value === 'object' && !Array.isArray(value)) {
        const o = value as Record<string, unknown>;
        if (o[a] !== undefined) values[`${path}.${a}`] = asInput(o[a]);
        if (o[b] !== undefined) values[`${path}.${b}`] = asInput(o[b]);
      } else if (typeof value === 'number' || typeof value === 'string') {
        values[`${path}.${a}`] = String(value);
      }
      return;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return;
      for (const [name, sub] of Object.entries(spec.fields as Record<string, SubField>)) {
        if (Object.hasOwn(value, name))
          fill(values, `${path}.${name}`, sub.codec, (value as Record<string, unknown>)[name]);
      }
      return;
    }
    case 'list':
      values[path] =
        Array.isArray(value) && listByLines(spec)
          ? value.map(String).join('\n')
          : JSON.stringify(value, null, 2);
      return;
    default:
      values[path] = asInput(value);
  }
}

/** A JSON value as typed in an input: a string as it is, anything else (a part that is an object too) as JSON. */
function asInput(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The API's input for the kind's fields; empty inputs are left out (the API names missing required ones). */
export function buildFields(fields: readonly FieldPreview[], values: FormValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = build(f.name, f.codec.spec, values);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

function build(path: string, spec: CodecSpec, values: FormValues): unknown {
  const raw = values[path] ?? '';
  switch (spec.type) {
    case 'quantity':
    case 'money': {
      const [a, b] = spec.type === 'quantity' ? ['value', 'unit'] : ['amount', 'currency'];
      const x = (values[`${path}.${a}`] ?? '').trim();
      const y = (values[`${path}.${b}`] ?? '').trim();
      return x || y ? { [a]: x, [b]: y } : undefined;
    }
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(spec.fields as Record<string, SubField>)) {
        const v = build(`${path}.${name}`, sub.codec, values);
        if (v !== undefined) o[name] = v;
      }
      return Object.keys(o).length > 0 ? o : undefined;
    }
    case 'list': {
      if (!raw.trim()) return undefined;
      if (listByLines(spec)) {
        const of = spec.of;
        return raw
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .map((line) => scalar(of, line));
      }
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        // Sent as typed: the API answers with the field's path and what it expected.
        return raw;
      }
    }
    case 'text':
      return raw.trim() ? raw : undefined;
    default:
      return raw.trim() ? scalar(spec, raw.trim()) : undefined;
  }
}

function scalar(spec: CodecSpec, text: string): unknown {
  if (spec.type === 'integer' && /^[+-]?\d+$/.test(text)) {
    const n = Number(text);
    // Past the safe range a big integer travels as digits.
    return Number.isSafeInteger(n) ? n : text;
  }
  return text;
}

/** `todo:check-figure-3` proposed as a finding is named `finding:check-figure-3`. */
export function proposedName(kind: string, noteName: string): string {
  const slug = noteName.slice(noteName.indexOf(':') + 1);
  return `${kind}:${slug}`;
}

/** Server issues (`fields.effect.unit`) that belong to an input path (`effect.unit`, or `effect` for the whole field). */
export function issuesAt(
  issues: ReadonlyArray<{ path: string; message: string }>,
  path: string,
  exact = false,
): string[] {
  return issues
    .filter((i) => i.path === path || (!exact && i.path.startsWith(`${path}.`)))
    .map((i) => (i.path === path ? i.message : `${i.path.slice(path.length + 1)}: ${i.message}`));
}

/**
 * The source and passage the workbench opens with: the note's own source when its data holds one
 * (`data.source`, the document, page and quote it was made from), else the panel's document and
 * no passage yet.
 */
export function sourcePrefill(
  note: { data: unknown },
  documentId: string,
): { sourceId: string; passage: string; noteSource: NoteSource | null } {
  const noteSource = noteSourceOf(note.data);
  return noteSource
    ? { sourceId: noteSource.documentId, passage: noteSource.quote, noteSource }
    : { sourceId: documentId, passage: '', noteSource: null };
}

/**
 * The note's quote as its source document spells it: the agent's quote was judged ignoring case
 * and spacing (on the cited page ± 1), but a reviewed record's passage must occur exactly (the
 * API's check on every decision), so the prefilled passage takes the document's own text where
 * the quote is found. The quote as it is when the document does not hold it (the check says so).
 */
export function passageFromSource(
  source: { text: string; pageStarts: readonly number[] },
  noteSource: NoteSource,
): string {
  const span = findQuote(source.text, source.pageStarts, noteSource.page, noteSource.quote);
  return span ? source.text.slice(span.start, span.end) : noteSource.quote;
}

/** The note's source while the workbench still shows it (the reviewer may change either part). */
export function showsNoteSource(
  noteSource: NoteSource | null,
  sourceId: string,
  passage: string,
): NoteSource | null {
  return noteSource &&
    noteSource.documentId === sourceId &&
    normalisePassage(noteSource.quote) === normalisePassage(passage)
    ? noteSource
    : null;
}

/**
 * The live "found in the source" line under the passage: the same rule as the API's check on
 * every decision (`passageOccursIn`). When the passage is still the note's own, what went wrong
 * is said in its terms: its document is gone, or the document no longer holds the passage.
 */
export function passageCheck({
  passage,
  source,
  fromNote,
}: {
  passage: string;
  source:
    { state: 'loading' } | { state: 'missing' } | { state: 'error'; message: string } | { text: string };
  fromNote: boolean;
}): { tone: 'ok' | 'bad' | ''; text: string } {
  if (!passage.trim()) return { tone: '', text: 'Cite the passage that supports the record.' };
  if ('state' in source) {
    if (source.state === 'loading') return { tone: '', text: 'Checking the source…' };
    if (source.state === 'missing' && fromNote) {
      return {
        tone: 'bad',
        text: '✗ the note’s source document is no longer in your library: choose a source and passage',
      };
    }
    if (source.state === 'missing')
      return { tone: 'bad', text: '✗ the source document is not in your library' };
    return { tone: '', text: `Could not load the source: ${source.message}` };
  }
  if (passageOccursIn(passage, source.text)) return { tone: 'ok', text: '✓ passage found in the source' };
  return fromNote
    ? {
        tone: 'bad',
        text: '✗ the note’s passage is no longer found in its source document: select or paste the passage again',
      }
    : { tone: 'bad', text: '✗ passage not found in the source' };
}
