/**
 * A reviewed record's profile fields as a researcher reads them (UI.md: "Review history reads in
 * words ("Effect: 37 %"), never JSON"): each field by its label, each value by its codec — a
 * quantity with its unit, an interval with its level ("95% interval: 30–44 %"), a date in the
 * one date style, an enum value by its label, a language by its name, a reference to another
 * record by that record's title, a list as text. The review history, the Memory panel's reviewed
 * rows and the review dialog's outcome all show fields through `fieldsInWords`.
 *
 * The field specs come from `profiles.preview` (the pack's codecs and descriptions); without them
 * (a pack no longer shipped, or still loading) a value is read by its shape, never printed as JSON.
 */
import { formatCalendarDate } from '../shared/time.ts';
import type { RouterOutputs } from '../trpc.ts';
import { codeLabel, fieldDescription, fieldLabel, unitOf } from './words.ts';

type FieldPreview = RouterOutputs['profiles']['preview']['kinds'][number]['fields'][number];
type CodecSpec = FieldPreview['codec']['spec'];

/** The fields of one kind as `profiles.preview` gives them (name, description, codec spec). */
export type FieldSpecs = ReadonlyArray<
  Pick<FieldPreview, 'name' | 'description'> & { codec: { spec: CodecSpec } }
>;

/** A record's title by its name ("study:reef-survey" → "Western Cape reef survey"), if known. */
export type TitleOf = (name: string) => string | undefined;

/** One field in words: "Effect" and "37 %", with the pack's description as its help. */
export interface FieldInWords {
  name: string;
  label: string;
  words: string;
  help: string | null;
}

const KIND_SLUG = /^([a-z][a-z0-9_-]*):([a-z0-9][a-z0-9._-]*)$/u;
const DATE = /^\d{4}(?:-\d{2}(?:-\d{2})?)?$/u;

/**
 * What a reviewed record is called in a sentence: its title (a publication, a study), its name
 * (a method), else its statement (the record's text). Used to name it wherever it is referred to.
 */
export function recordTitle(rec: { text: string; fields: Readonly<Record<string, unknown>> | null }): string {
  for (const key of ['title', 'name'] as const) {
    const value = rec.fields?.[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return rec.text.trim();
}

/** A lookup of titles from records (the history's accepted decisions, the panel's reviewed rows). */
export function titlesOf(
  records: ReadonlyArray<{ name: string; text: string; fields: Readonly<Record<string, unknown>> | null }>,
): TitleOf {
  const titles = new Map<string, string>();
  // The first one given wins: callers list the newest first.
  for (const rec of records) if (!titles.has(rec.name)) titles.set(rec.name, recordTitle(rec));
  return (name) => titles.get(name);
}

/**
 * A record referred to by name, as words: its title when known, else its name's own words
 * ("study:reef-resurvey-2016" → "Reef resurvey 2016"), never the `kind:slug` itself.
 */
export function referenceWords(name: string, titleOf: TitleOf): string {
  const known = titleOf(name);
  if (known) return known;
  const m = KIND_SLUG.exec(name);
  return m ? codeLabel(m[2]!.replace(/[._]+/gu, ' ')) : name;
}

/** The fields inside a reviewed record's data (`{ profile, version, fields }`), or null. */
export function profileFieldsOf(data: unknown): Record<string, unknown> | null {
  if (typeof data !== 'object' || data === null || !('fields' in data)) return null;
  const fields = data.fields;
  return typeof fields === 'object' && fields !== null && !Array.isArray(fields)
    ? (fields as Record<string, unknown>)
    : null;
}

/**
 * A record's fields in words, in the pack's order (required first) when its specs are known, else
 * as recorded. A field the record does not hold is left out.
 */
export function fieldsInWords(
  kind: string,
  fields: Readonly<Record<string, unknown>>,
  specs: FieldSpecs | null,
  titleOf: TitleOf,
): FieldInWords[] {
  const byName = new Map((specs ?? []).map((f) => [f.name, f]));
  const names = [
    ...(specs ?? []).map((f) => f.name).filter((n) => Object.hasOwn(fields, n)),
    ...Object.keys(fields).filter((n) => !byName.has(n)),
  ];
  // An interval is in the unit of the record's one quantity (a finding's effect).
  const quantities = Object.values(fields).filter(isQuantity);
  const unit = quantities.length === 1 ? unitSymbol(quantities[0]!.unit) : '';
  return names.flatMap((name): FieldInWords[] => {
    const value = fields[name];
    if (value === null || value === undefined) return [];
    const spec = byName.get(name);
    const help = spec ? fieldDescription(kind, name, spec.description) : null;
    if (isInterval(value)) {
      const level = levelWords(value.level);
      return [
        {
          name,
          label: level === null ? fieldLabel(name, kind) : `${level} interval`,
          words: withUnit(`${value.low}–${value.high}`, unit),
          help,
        },
      ];
    }
    return [
      { name, label: fieldLabel(name, kind), words: valueInWords(value, spec?.codec.spec, titleOf), help },
    ];
  });
}

/** "Effect: 37 %\n95% interval: 30–44 %": the fields as plain lines. */
export const fieldsAsText = (lines: readonly FieldInWords[]): string =>
  lines.map((l) => `${l.label}: ${l.words}`).join('\n');

/** One value by its codec, or by its shape when the codec is unknown. */
function valueInWords(value: unknown, spec: CodecSpec | undefined, titleOf: TitleOf): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    const of = spec?.type === 'list' ? spec.of : undefined;
    return value.map((item) => valueInWords(item, of, titleOf)).join('; ');
  }
  if (typeof value === 'object') {
    if (isQuantity(value)) return withUnit(value.value, unitSymbol(value.unit));
    if (isMoney(value)) return `${value.amount} ${value.currency}`;
    if (isInterval(value)) {
      const level = levelWords(value.level);
      return `${level === null ? '' : `${level} interval `}${value.low}–${value.high}`;
    }
    const sub = spec?.type === 'object' ? spec.fields : undefined;
    return Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${fieldLabel(k)}: ${valueInWords(v, sub?.[k]?.codec, titleOf)}`)
      .join(', ');
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  const text = String(value);
  switch (spec?.type) {
    case 'enum':
      return codeLabel(text);
    case 'ref':
      return referenceWords(text, titleOf);
    case 'date':
      return formatCalendarDate(text);
    case 'language':
      return languageName(text);
    case 'text':
    case 'doi':
    case 'url':
    case 'currency':
    case 'integer':
    case 'decimal':
      return text;
    default:
      // Read by its shape: a record's name, a calendar date.
      if (KIND_SLUG.test(text)) return referenceWords(text, titleOf);
      if (DATE.test(text)) return formatCalendarDate(text);
      return text;
  }
}

/** A unit as it is written after a number: "%", "°C", "mmHg"; nothing for a ratio ("1"). */
function unitSymbol(code: string): string {
  if (code === '%') return '%';
  if (code === '1') return '';
  return unitOf(code)?.label ?? code.replace(/[[\]{}]/gu, '');
}

const withUnit = (number: string, unit: string): string => (unit === '' ? number : `${number} ${unit}`);

/** "0.95" → "95%"; null when there is no level to say. */
function levelWords(level: unknown): string | null {
  const n = typeof level === 'string' || typeof level === 'number' ? Number(level) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > 1) return null;
  return `${Number((n * 100).toPrecision(6))}%`;
}

let languages: Intl.DisplayNames | undefined;
/** "en-GB" → "British English"; the tag itself when it has no name. */
function languageName(tag: string): string {
  try {
    languages ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
    return languages.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

function isQuantity(v: unknown): v is { value: string; unit: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { value?: unknown }).value === 'string' &&
    typeof (v as { unit?: unknown }).unit === 'string'
  );
}

function isMoney(v: object): v is { amount: string; currency: string } {
  return (
    typeof (v as { amount?: unknown }).amount === 'string' &&
    typeof (v as { currency?: unknown }).currency === 'string'
  );
}

function isInterval(v: unknown): v is { low: string; high: string; level?: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    (typeof (v as { low?: unknown }).low === 'string' || typeof (v as { low?: unknown }).low === 'number') &&
    (typeof (v as { high?: unknown }).high === 'string' || typeof (v as { high?: unknown }).high === 'number')
  );
}
