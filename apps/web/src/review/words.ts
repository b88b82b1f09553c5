/**
 * The review dialog in the researcher's words (UI.md, *In the researcher's words*): a profile's
 * kinds, fields and enum values by label, units from a short list in words with their UCUM code
 * behind, and the statement a note proposes. The pack's own names (`effectMeasure`,
 * `randomized-controlled-trial`, `Cel`) stay behind these, under *Advanced* at most.
 */
import { noteSourceOf } from '@sponge/contract';

/** Words a field's name does not spell out by itself. */
const ACRONYMS: Record<string, string> = {
  doi: 'DOI',
  url: 'Web address',
  id: 'ID',
  isbn: 'ISBN',
  issn: 'ISSN',
};

/**
 * Labels that read better than the name spelled out, by `kind.field` first, then by field. Only
 * where the derived label would mislead or read oddly: everything else is derived.
 */
const LABELS: Record<string, string> = {
  'finding.study': 'From study',
  'finding.sample': 'In sample',
  'sample.study': 'Of study',
  pValue: 'P-value',
  level: 'Confidence level',
  published: 'Published on',
};

/** "effectMeasure" → "Effect measure", "pValue" → "P-value", "doi" → "DOI". */
export function fieldLabel(name: string, kind?: string): string {
  const mapped = (kind !== undefined ? LABELS[`${kind}.${name}`] : undefined) ?? LABELS[name];
  if (mapped) return mapped;
  const acronym = ACRONYMS[name.toLowerCase()];
  if (acronym) return acronym;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => {
      const known = ACRONYMS[w.toLowerCase()];
      // DOI stays in capitals; "Web address" is words, lower case inside a label.
      return known === undefined
        ? w.toLowerCase()
        : known === known.toUpperCase()
          ? known
          : known.toLowerCase();
    });
  return sentenceCase(words.join(' '));
}

/** A kind or an enum value as words: "usage-example" → "Usage example". */
export function codeLabel(code: string): string {
  return sentenceCase(code.replace(/[-_]+/g, ' ').trim());
}

/** The kind in a sentence: "a finding", "an expression of concern". */
export function kindInSentence(kind: string): string {
  const words = codeLabel(kind).toLowerCase();
  return `${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words}`;
}

function sentenceCase(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * Units a reviewer picks by name, each with the UCUM code the profile records. A code not in the
 * list is shown as "other", with the code itself.
 */
export const UNITS: ReadonlyArray<{ label: string; code: string }> = [
  { label: 'percent', code: '%' },
  { label: 'ratio (no unit)', code: '1' },
  { label: 'count', code: '{count}' },
  { label: '°C', code: 'Cel' },
  { label: '°F', code: '[degF]' },
  { label: 'mg/L', code: 'mg/L' },
  { label: 'µg/L', code: 'ug/L' },
  { label: 'mg/dL', code: 'mg/dL' },
  { label: 'mmol/L', code: 'mmol/L' },
  { label: 'mmHg', code: 'mm[Hg]' },
  { label: 'mm', code: 'mm' },
  { label: 'cm', code: 'cm' },
  { label: 'm', code: 'm' },
  { label: 'km', code: 'km' },
  { label: 'm²', code: 'm2' },
  { label: 'km²', code: 'km2' },
  { label: 'hectares', code: 'har' },
  { label: 'g', code: 'g' },
  { label: 'kg', code: 'kg' },
  { label: 'tonnes', code: 't' },
  { label: 'litres', code: 'L' },
  { label: 'hours', code: 'h' },
  { label: 'days', code: 'd' },
  { label: 'weeks', code: 'wk' },
  { label: 'months', code: 'mo' },
  { label: 'years', code: 'a' },
];

/** The listed unit for a code, or null ("other"). Codes are case-sensitive, as UCUM's are. */
export function unitOf(code: string): { label: string; code: string } | null {
  return UNITS.find((u) => u.code === code) ?? null;
}

/** Help that reads better than the pack's description, where that speaks of the codes behind the words. */
const HELP: Record<string, string> = {
  'finding.effect': 'The size of the effect, with its unit (a ratio has none).',
};

/** What a field holds, in words: the pack's description unless it speaks of codes. */
export function fieldDescription(kind: string, name: string, description: string): string {
  return HELP[`${kind}.${name}`] ?? description;
}

/** The help under a field: the pack's description, and how to write values a codec is strict about. */
export function fieldHelp(
  description: string,
  spec: { type: string; min?: string | number; max?: string | number; partial?: boolean },
): string {
  const extra = ((): string => {
    switch (spec.type) {
      case 'date':
        return spec.partial === false ? 'Written as 2021-06-01.' : 'Written as 2021-06-01, 2021-06 or 2021.';
      case 'doi':
        return 'For example 10.1038/nature21707.';
      case 'url':
        return 'A web address starting with https://.';
      case 'language':
        return 'A language code, for example en or en-GB.';
      case 'currency':
        return 'Three letters, for example EUR.';
      case 'integer':
      case 'decimal':
        if (spec.min !== undefined && spec.max !== undefined)
          return `A number from ${spec.min} to ${spec.max}.`;
        if (spec.min !== undefined) return `A number of at least ${spec.min}.`;
        return '';
      default:
        return '';
    }
  })();
  return [description, extra].filter(Boolean).join(' ');
}

/** Lines an agent writes about how it came to a note, not what the note says. */
const FRAMING = /^(asked:|research step on\b|check against\b)/i;
/** A stretch in typographic or straight double quotes. */
const QUOTED = /[“"]([^”"]{3,})[”"]/g;

/**
 * The statement a note proposes, as it would read in the reviewed record: the note's own text,
 * unless it opens with the question that led to it ("Asked: “How much…?”"), in which case its
 * finding sentence (the last quoted stretch) or else the quote of its source (`data.source`).
 */
export function statementFrom(note: { text: string; data: unknown }): string {
  const text = note.text.trim();
  const quote = noteSourceOf(note.data)?.quote.trim() ?? '';
  const first = (text.split('\n')[0] ?? '').split(/(?<=[.!?]["”]?)\s+/)[0] ?? '';
  if (!FRAMING.test(text) && !/\?["”]?$/.test(first)) return text || quote;
  const quoted = [...text.matchAll(QUOTED)].map((m) => m[1]!.trim());
  const last = quoted.at(-1);
  // The question is quoted too: the finding sentence is the last quote that is not a question.
  if (last && quoted.length > 1 && !last.endsWith('?')) return last;
  const rest = FRAMING.test(text) ? '' : text.slice(first.length).trim();
  return quote || rest || last || text;
}

/** The dialog's title: the statement in quotes, clipped to a line. */
export function proposalTitle(statement: string): string {
  const line = statement.replace(/\s+/g, ' ').trim();
  if (!line) return 'Propose for review';
  const clipped = line.length > 90 ? `${line.slice(0, 89).trimEnd()}…` : line;
  return `Propose for review: “${clipped}”`;
}

/**
 * The profile that fits a note, by kind: the one with a kind named as the note's kind, else
 * Research (a note of the agent's — a lead, a todo — is most often a finding). Null when no
 * listed profile fits.
 */
export function fittingProfile<P extends { name: string; kinds: readonly string[] }>(
  profiles: readonly P[],
  noteKind: string,
): P | null {
  return (
    profiles.find((p) => p.kinds.includes(noteKind)) ??
    profiles.find((p) => p.name === 'research') ??
    profiles[0] ??
    null
  );
}

/** The kinds in the order a researcher meets them (Research's), the rest by name. */
const KIND_ORDER = ['finding', 'study', 'publication', 'method', 'sample', 'correction'];

export function orderKinds<K extends { name: string }>(kinds: readonly K[]): K[] {
  const rank = (k: K) => {
    const i = KIND_ORDER.indexOf(k.name);
    return i === -1 ? KIND_ORDER.length : i;
  };
  return [...kinds].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** "findings, studies, publications, methods, samples and corrections". */
export function kindsInWords(kinds: readonly string[]): string {
  const plural = (k: string) => {
    const w = codeLabel(k).toLowerCase();
    return /[^aeiou]y$/.test(w) ? `${w.slice(0, -1)}ies` : /(s|x|ch|sh)$/.test(w) ? `${w}es` : `${w}s`;
  };
  const words = orderKinds(kinds.map((name) => ({ name }))).map((k) => plural(k.name));
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
