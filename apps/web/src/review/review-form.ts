/**
 * The review dialog's form model, apart from React. A record being proposed is a draft: a kind
 * and flat string inputs keyed by dotted path (`effect.value`, `interval.low`, `authors.1`),
 * prefilled from the working note where it can be. A reference field holds a reviewed record's
 * name or `new:<draft>` for a record created in the same dialog (a finding's new study), and the
 * drafts a decision reaches are assembled into one `review.decide` call: the main record and its
 * group (`with`). The API's value codecs have the last word; nothing here rejects a value.
 */
import {
  normalisePassage,
  noteSourceOf,
  passageOccursIn,
  recordNameFrom,
  uniqueRecordName,
} from '@sponge/contract';
import type { NoteSource } from '@sponge/contract';
import { findQuote } from '../document/quote.ts';
import type { RouterOutputs } from '../trpc.ts';
import { codeLabel, fieldLabel, statementFrom } from './words.ts';

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

/** How many rows a list shows (kept beside its items, so an emptied row stays until removed). */
export const rowsKey = (path: string): string => `${path}#rows`;
/** Whether an optional group (an interval) was opened: only then are its parts asked for and sent. */
export const openKey = (path: string): string => `${path}#open`;
/** A quantity's unit chosen as "other": its code is typed, not picked. */
export const otherUnitKey = (path: string): string => `${path}.unit#other`;

const NEW = 'new:';
/** A reference to a record created in this dialog. */
export const newRef = (draftId: string): string => `${NEW}${draftId}`;
/** The draft a reference names, or null for a reviewed record's name (or nothing). */
export const draftOfRef = (value: string | undefined): string | null =>
  value?.startsWith(NEW) ? value.slice(NEW.length) : null;

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

/** The text field a note's text goes into, and a record's name is made from. */
export function primaryTextField(fields: readonly FieldPreview[]): string | null {
  const texts = fields.filter((f) => f.codec.spec.type === 'text');
  for (const name of TEXT_FIELD_PREFERENCE) if (texts.some((f) => f.name === name)) return name;
  const longest = [...texts].sort((a, b) => maxLength(b.codec.spec) - maxLength(a.codec.spec))[0];
  return longest?.name ?? null;
}

function maxLength(spec: CodecSpec): number {
  return spec.type === 'text' ? spec.maxLength : 0;
}

/** Units a statement names after its one number, as the unit list has them. */
const STATED_UNITS: ReadonlyArray<[RegExp, string]> = [
  [/^(?:%|percent\b|per cent\b)/i, '%'],
  [/^°\s?C\b/, 'Cel'],
  [/^mg\/L\b/, 'mg/L'],
  [/^mmol\/L\b/, 'mmol/L'],
];

/**
 * The quantity a statement states, when it states exactly one number with a listed unit right
 * after it ("recovered 37 percent by 2021" → 37 %). Anything less clear is left to the reviewer.
 */
export function statedQuantity(statement: string): { value: string; unit: string } | null {
  const found: Array<{ value: string; unit: string }> = [];
  for (const m of statement.matchAll(/(?<![\w.])([-−]?\d+(?:\.\d+)?)\s*/g)) {
    const after = statement.slice(m.index + m[0].length);
    const unit = STATED_UNITS.find(([re]) => re.test(after))?.[1];
    if (unit) found.push({ value: m[1]!.replace('−', '-'), unit });
  }
  return found.length === 1 ? found[0]! : null;
}

/**
 * Initial inputs for a kind, from a note: its statement (statementFrom) in the primary text
 * field, any top-level `data` key that names a field, and a quantity the statement states.
 */
export function prefill(fields: readonly FieldPreview[], note: { text: string; data: unknown }): FormValues {
  const values = emptyValues(fields);
  const primary = primaryTextField(fields);
  const statement = statementFrom(note);
  if (primary && statement) values[primary] = statement;
  const data = note.data;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const f of fields) {
      if (Object.hasOwn(data, f.name))
        fill(values, f.name, f.codec.spec, (data as Record<string, unknown>)[f.name]);
    }
  }
  const quantity = fields.find((f) => f.codec.spec.type === 'quantity');
  const stated = statedQuantity(statement);
  if (quantity && stated && !values[`${quantity.name}.value`]) {
    values[`${quantity.name}.value`] = stated.value;
    values[`${quantity.name}.unit`] = stated.unit;
  }
  return values;
}

/** A new record's inputs: a required list starts with its first row to fill in. */
export function emptyValues(fields: readonly FieldPreview[]): FormValues {
  const values: FormValues = {};
  for (const f of fields) {
    const spec = f.codec.spec;
    if (spec.type === 'list' && (f.required || (spec.minItems ?? 0) > 0)) values[rowsKey(f.name)] = '1';
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
      values[openKey(path)] = '1';
      for (const [name, sub] of Object.entries(spec.fields as Record<string, SubField>)) {
        if (Object.hasOwn(value, name))
          fill(values, `${path}.${name}`, sub.codec, (value as Record<string, unknown>)[name]);
      }
      return;
    }
    case 'list':
      if (!Array.isArray(value)) return;
      values[rowsKey(path)] = String(value.length);
      value.forEach((item, i) => fill(values, `${path}.${i}`, spec.of, item));
      return;
    default:
      values[path] = asInput(value);
  }
}

/** A value as typed in an input: a string as it is, a number as its digits. */
function asInput(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** How many rows a list shows. */
export function rowCount(values: FormValues, path: string): number {
  const n = Number(values[rowsKey(path)] ?? '0');
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** The values with one more (empty) row in the list at `path`. */
export function addRow(values: FormValues, path: string): FormValues {
  return { ...values, [rowsKey(path)]: String(rowCount(values, path) + 1) };
}

/** The values without row `index` of the list at `path`: the rows after it move up one. */
export function removeRow(values: FormValues, path: string, index: number): FormValues {
  const rows = rowCount(values, path);
  const out: FormValues = {};
  const prefix = `${path}.`;
  for (const [key, value] of Object.entries(values)) {
    if (!key.startsWith(prefix)) {
      out[key] = value;
      continue;
    }
    const rest = key.slice(prefix.length);
    const m = /^(\d+)(.*)$/.exec(rest);
    if (!m) {
      out[key] = value;
      continue;
    }
    const i = Number(m[1]);
    if (i === index) continue;
    out[`${prefix}${i > index ? i - 1 : i}${m[2]}`] = value;
  }
  out[rowsKey(path)] = String(Math.max(rows - 1, 0));
  return out;
}

/** Turns a reference input into a record name (a new record's name for `new:<draft>`). */
export type ResolveRef = (value: string) => string;

/** The API's input for a kind's fields; empty inputs are left out (the API names missing required ones). */
export function buildFields(
  fields: readonly FieldPreview[],
  values: FormValues,
  resolve: ResolveRef = (v) => v,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = build(f.name, f.codec.spec, f.required, values, resolve);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

function build(
  path: string,
  spec: CodecSpec,
  required: boolean,
  values: FormValues,
  resolve: ResolveRef,
): unknown {
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
      // An optional group not opened is not asked for, so nothing of it is sent.
      if (!required && values[openKey(path)] !== '1') return undefined;
      const o: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(spec.fields as Record<string, SubField>)) {
        const v = build(`${path}.${name}`, sub.codec, sub.required, values, resolve);
        if (v !== undefined) o[name] = v;
      }
      return Object.keys(o).length > 0 ? o : undefined;
    }
    case 'list': {
      const items: unknown[] = [];
      for (let i = 0; i < rowCount(values, path); i++) {
        // A row's object is asked for whole: its parts are required as the pack says.
        const v = build(`${path}.${i}`, spec.of, true, values, resolve);
        if (v !== undefined) items.push(v);
      }
      return items.length > 0 ? items : undefined;
    }
    case 'ref':
      return raw.trim() ? resolve(raw.trim()) : undefined;
    case 'text':
      return raw.trim() ? raw : undefined;
    case 'integer': {
      const text = raw.trim();
      if (!text) return undefined;
      if (/^[+-]?\d+$/.test(text)) {
        const n = Number(text);
        // Past the safe range a big integer travels as digits.
        return Number.isSafeInteger(n) ? n : text;
      }
      return text;
    }
    default:
      return raw.trim() ? raw.trim() : undefined;
  }
}

/** The reference inputs of a record's values, list rows included: where new records hang. */
function referencesIn(fields: readonly FieldPreview[], values: FormValues): string[] {
  const out: string[] = [];
  const walk = (path: string, spec: CodecSpec) => {
    if (spec.type === 'ref') {
      const v = values[path];
      if (v) out.push(v);
    } else if (spec.type === 'list') {
      for (let i = 0; i < rowCount(values, path); i++) walk(`${path}.${i}`, spec.of);
    } else if (spec.type === 'object') {
      for (const [name, sub] of Object.entries(spec.fields as Record<string, SubField>))
        walk(`${path}.${name}`, sub.codec);
    }
  };
  for (const f of fields) walk(f.name, f.codec.spec);
  return out;
}

/** One record being proposed in the dialog. */
export interface Draft {
  kind: string;
  values: FormValues;
  /** Set under Advanced; null while the name follows the statement. */
  name: string | null;
  /** What an agent reads; null while it follows the statement. */
  text: string | null;
}

/** A record of the decision, ready to send. */
export interface AssembledRecord {
  draftId: string;
  kind: string;
  name: string;
  text: string;
  fields: Record<string, unknown>;
}

/** The text a record's name and its agent-facing text are made from: its primary text field. */
export function statementOf(fields: readonly FieldPreview[], values: FormValues): string {
  const primary = primaryTextField(fields);
  return (primary ? values[primary] : undefined)?.replace(/\s+/g, ' ').trim() ?? '';
}

/**
 * The main record and the new records it reaches through its references (depth first, each
 * once), named and built: names generated from each statement (recordNameFrom), kept apart from
 * `taken` (the reviewed records there are) and from each other (uniqueRecordName), unless the
 * reviewer set one. `with` lists the group in the order the server's issue paths count
 * (`with.0.fields.title`).
 */
export function assembleGroup({
  mainId,
  drafts,
  kindFields,
  taken,
}: {
  mainId: string;
  drafts: Readonly<Record<string, Draft>>;
  kindFields: (kind: string) => readonly FieldPreview[];
  taken: ReadonlySet<string>;
}): { main: AssembledRecord; with: AssembledRecord[] } {
  const order: string[] = [];
  const visit = (id: string) => {
    const draft = drafts[id];
    if (!draft || order.includes(id)) return;
    order.push(id);
    for (const ref of referencesIn(kindFields(draft.kind), draft.values)) {
      const next = draftOfRef(ref);
      if (next) visit(next);
    }
  };
  visit(mainId);

  const names = new Map<string, string>();
  const used = new Set(taken);
  // Names the reviewer set are theirs: generated names keep clear of them.
  for (const id of order) {
    const set = drafts[id]!.name?.trim();
    if (set) {
      names.set(id, set);
      used.add(set);
    }
  }
  for (const id of order) {
    if (names.has(id)) continue;
    const draft = drafts[id]!;
    const statement = statementOf(kindFields(draft.kind), draft.values) || codeLabel(draft.kind);
    const name = uniqueRecordName(recordNameFrom(draft.kind, statement), used);
    names.set(id, name);
    used.add(name);
  }
  const resolve: ResolveRef = (value) => {
    const id = draftOfRef(value);
    return id === null ? value : (names.get(id) ?? '');
  };
  const records = order.map((id): AssembledRecord => {
    const draft = drafts[id]!;
    const fields = kindFields(draft.kind);
    return {
      draftId: id,
      kind: draft.kind,
      name: names.get(id)!,
      text: draft.text ?? statementOf(fields, draft.values),
      fields: buildFields(fields, draft.values, resolve),
    };
  });
  return { main: records[0]!, with: records.slice(1) };
}

/**
 * The server's issues for one record of the group: the main record's (`fields.title`) or, for
 * `with.N.…`, the Nth record's with the prefix taken off, so every record's inputs read their
 * own issues the same way.
 */
export function issuesOfRecord<I extends { path: string }>(
  issues: readonly I[],
  groupIndex: number | null,
): I[] {
  return issues.flatMap((i) => {
    const m = /^with\.(\d+)(?:\.(.*))?$/.exec(i.path);
    if (groupIndex === null) return m ? [] : [i];
    if (!m || Number(m[1]) !== groupIndex) return [];
    return [{ ...i, path: m[2] ?? '' }];
  });
}

/**
 * Server issues that belong to an input path (`fields.effect`): its own messages, and its parts'
 * prefixed with the part in words ("Unit: a unit cannot be empty", "Row 2: required").
 */
export function issuesAt(
  issues: ReadonlyArray<{ path: string; message: string }>,
  path: string,
  exact = false,
): string[] {
  return issues
    .filter((i) => i.path === path || (!exact && i.path.startsWith(`${path}.`)))
    .map((i) => {
      if (i.path === path) return i.message;
      const part = i.path
        .slice(path.length + 1)
        .split('.')
        .map((seg) => (/^\d+$/.test(seg) ? `Row ${Number(seg) + 1}` : fieldLabel(seg)))
        .join(', ');
      return `${part}: ${i.message}`;
    });
}

interface Rewrite {
  path: string;
  from: string;
  to: string;
  why: string;
}

/**
 * What the profile's codecs rewrote to its preferred form (a language tag `en-UK` recorded as
 * `en-GB`), in every record of the decision, each where it is in words ("New publication,
 * Language"), so nothing changes unseen.
 */
export function rewritesOf(outcome: {
  normalized: readonly Rewrite[];
  with: ReadonlyArray<{ kind: string; normalized: readonly Rewrite[] }>;
}): Array<{ where: string; from: string; to: string; why: string }> {
  const words = (path: string) =>
    path
      .split('.')
      .map((seg) => (/^\d+$/.test(seg) ? `row ${Number(seg) + 1}` : fieldLabel(seg)))
      .join(', ');
  return [
    ...outcome.normalized.map((n) => ({ where: words(n.path), from: n.from, to: n.to, why: n.why })),
    ...outcome.with.flatMap((r) =>
      r.normalized.map((n) => ({
        where: `New ${codeLabel(r.kind).toLowerCase()}, ${words(n.path)}`,
        from: n.from,
        to: n.to,
        why: n.why,
      })),
    ),
  ];
}

type Decision = RouterOutputs['review']['history']['decisions'][number];

/** A reviewed record a reference may pick, named by its title. */
export interface ReviewedChoice {
  name: string;
  kind: string;
  label: string;
}

/**
 * The document's reviewed records a reference can pick: the newest accepted decision of each
 * name (the record in view at the newest revision), named by its title (or name, or statement)
 * field, else its text.
 */
export function reviewedChoices(decisions: readonly Decision[]): ReviewedChoice[] {
  const seen = new Set<string>();
  const out: ReviewedChoice[] = [];
  // Newest first, as the history lists them: the first accepted decision of a name is the one in view.
  for (const d of decisions) {
    if (d.decision !== 'accept' || seen.has(d.name)) continue;
    seen.add(d.name);
    const f = d.fields ?? {};
    const titled = [f.title, f.name, f.statement].find(
      (v): v is string => typeof v === 'string' && v.trim() !== '',
    );
    out.push({ name: d.name, kind: d.kind, label: (titled ?? d.text).replace(/\s+/g, ' ').trim() });
  }
  return out.sort((a, b) => a.label.localeCompare(b.label));
}

/**
 * The source and passage the dialog opens with: the note's own source (`data.source`: the
 * document, page and quote it was made from) when it has one, else no source at all — never
 * another document by default, where a pasted passage would be "not found".
 */
export function sourcePrefill(note: { data: unknown }): {
  sourceId: string;
  page: number;
  passage: string;
  noteSource: NoteSource | null;
} {
  const noteSource = noteSourceOf(note.data);
  return noteSource
    ? { sourceId: noteSource.documentId, page: noteSource.page, passage: noteSource.quote, noteSource }
    : { sourceId: '', page: 1, passage: '', noteSource: null };
}

/**
 * The note's quote as its page spells it: the agent's quote was judged ignoring case and spacing,
 * but a reviewed record's passage must occur exactly (the API's check on every decision), so the
 * passage takes the page's own text where the quote is found, else the quote as it is.
 */
export function passageOnPage(pageText: string, quote: string): string {
  const span = findQuote(pageText, null, null, quote);
  return span ? pageText.slice(span.start, span.end) : quote;
}

/** The note's source while the dialog still shows it (the reviewer may change either part). */
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

/** A page of the source as the dialog has it. */
export type PageState =
  | { state: 'none' }
  | { state: 'loading' }
  | { state: 'missing' }
  | { state: 'error'; message: string }
  | { text: string; page: number; pages: number; ocr: boolean };

/**
 * The live line under the passage: whether it occurs on the page shown, by the API's rule
 * (`passageOccursIn`). Only the page is read, never the whole document, so a passage of another
 * page says to go to its page; the API checks the whole document on every decision.
 */
export function passageCheck({
  passage,
  page,
  fromNote,
}: {
  passage: string;
  page: PageState;
  fromNote: boolean;
}): { tone: 'ok' | 'bad' | ''; text: string } {
  if ('state' in page && page.state === 'none')
    return { tone: '', text: 'Choose the document the passage is from.' };
  if (!passage.trim()) return { tone: '', text: 'Select the passage in the page below, or paste it.' };
  if ('state' in page) {
    if (page.state === 'loading') return { tone: '', text: 'Checking the source…' };
    if (page.state === 'missing' && fromNote) {
      return {
        tone: 'bad',
        text: '✗ the note’s source document is no longer in your library: choose a source and passage',
      };
    }
    if (page.state === 'missing')
      return { tone: 'bad', text: '✗ the source document is not in your library' };
    if (page.state === 'error') return { tone: '', text: `Could not load the source: ${page.message}` };
    return { tone: '', text: '' };
  }
  const at = page.pages > 1 ? ` (p. ${page.page})` : '';
  if (passageOccursIn(passage, page.text)) return { tone: 'ok', text: `✓ passage found in the source${at}` };
  if (fromNote) {
    return {
      tone: 'bad',
      text: `✗ the note’s passage is no longer found on its page${at}: select or paste the passage again`,
    };
  }
  return page.pages > 1
    ? { tone: 'bad', text: `✗ passage not found on this page${at}: go to its page, or select it below` }
    : { tone: 'bad', text: '✗ passage not found in the source' };
}
