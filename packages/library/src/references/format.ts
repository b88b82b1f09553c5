/**
 * Documents' metadata out as references (SPEC §6d `documents.cite`): BibTeX, RIS, CSL-JSON, or
 * text formatted by a CSL style (APA, Vancouver, Harvard — the three styles citation-js's CSL
 * plugin ships, with its en-US locale: nothing is fetched when a style runs).
 */
import { parse as parseName } from '@citation-js/name';
import type { CslItem, CslName } from '@citation-js/core';
import { plugins } from '@citation-js/core';
import '@citation-js/plugin-csl';
import '@citation-js/plugin-ris';
import { cslFromDocument } from './entries.ts';
import type { CitableDocument } from './entries.ts';

export type CiteFormat = 'bibtex' | 'ris' | 'csl-json' | 'text';
export type CiteStyle = 'apa' | 'vancouver' | 'harvard1';

/** The documents as references in `format`, in the order given (a style may sort them). */
export function formatReferences(
  docs: readonly CitableDocument[],
  format: CiteFormat,
  style: CiteStyle = 'apa',
): string {
  if (format === 'bibtex') return docs.map(bibtexEntry).join('\n');
  const items = docs.map(cslFromDocument);
  if (format === 'csl-json') return `${JSON.stringify(items, null, 2)}\n`;
  if (format === 'ris') return items.map((item, i) => risRecord(item, docs[i]!)).join('\n');
  return plugins.output.format('bibliography', items, { template: style, lang: 'en-US', format: 'text' });
}

/**
 * One BibTeX entry, written here rather than by citation-js's BibTeX output: that leaves out the
 * abstract and keywords, and it either writes accents as `{\' A}lvarez` (which its own parser
 * reads back as a particle, "Álvarez" apart from "Noriega") or, in UTF-8, leaves `&`, `%`, `$`
 * and braces unescaped, which breaks LaTeX and the file. This is UTF-8 BibTeX as Zotero writes
 * it, every special character escaped, the title in double braces so styles keep its case.
 */
function bibtexEntry(doc: CitableDocument): string {
  const fields: Array<[string, string]> = [['title', `{${tex(doc.title)}}`]];
  if (doc.authors.length > 0)
    fields.push(['author', doc.authors.map((a) => bibtexName(parseName(a))).join(' and ')]);
  if (doc.venue) fields.push(['journal', tex(doc.venue)]);
  if (doc.year !== null) fields.push(['year', String(doc.year)]);
  // A DOI is verbatim in BibTeX: written as it is, unless its braces would break the entry.
  if (doc.doi && !/[{}\\]/.test(doc.doi)) fields.push(['doi', doc.doi]);
  // Paragraphs apart as LaTeX writes them (`\par`): a blank line is read back as a space.
  if (doc.abstract)
    fields.push([
      'abstract',
      doc.abstract
        .split(/\n\s*\n/)
        .map((p) => tex(p.replace(/\s+/g, ' ').trim()))
        .filter((p) => p !== '')
        .join(' \\par '),
    ]);
  if (doc.tags.length > 0) fields.push(['keywords', doc.tags.map(tex).join(', ')]);
  const body = fields.map(([name, value]) => `\t${name} = {${value}},\n`).join('');
  return `@${doc.venue ? 'article' : 'misc'}{${bibtexKey(doc.citationKey)},\n${body}}\n`;
}

/**
 * One RIS record: citation-js maps the item to RIS tags, and the record is written here with the
 * names, key and lines as Zotero writes them. citation-js's own text cuts every line after 70
 * characters, mid-word (readers join the pieces with a space: "Ünï cödé"), drops a name's
 * particle ("Beethoven, Ludwig") and cuts the ID to 20 characters.
 */
function risRecord(item: CslItem, doc: CitableDocument): string {
  const [tags] = plugins.output.format('ris', [item], { format: 'object' }) as unknown as Array<
    Record<string, string | string[]>
  >;
  const record: Record<string, string | string[]> = { ...tags, ID: doc.citationKey };
  if (doc.authors.length > 0) record.AU = doc.authors.map((a) => risName(parseName(a)));
  const { TY = 'GEN', ...rest } = record;
  const lines = [`TY  - ${String(TY)}`];
  for (const [tag, value] of Object.entries(rest))
    for (const v of [value].flat()) lines.push(`${tag}  - ${String(v).replace(/\s+/g, ' ').trim()}`);
  return `${lines.join('\n')}\nER  - \n`;
}

/** "van Beethoven, Ludwig", "King, Martin Luther, Jr.", or a literal name as it is. */
function risName(name: CslName): string {
  if (name.literal) return name.literal;
  const family = [name['non-dropping-particle'], name.family].filter(Boolean).join(' ');
  const given = [name.given, name['dropping-particle']].filter(Boolean).join(' ');
  return [family, given, name.suffix].filter(Boolean).join(', ');
}

/** "Family, Given" (with a particle before the family, a suffix between), or a literal in braces. */
function bibtexName(name: CslName): string {
  if (name.literal) return `{${tex(name.literal)}}`;
  const family = [name['non-dropping-particle'], name.family].filter(Boolean).join(' ');
  if (!name.given) return `{${tex(family)}}`;
  const given = [name.given, name['dropping-particle']].filter(Boolean).join(' ');
  return [family, name.suffix, given]
    .filter((p) => p !== undefined && p !== '')
    .map((p) => (/ and /i.test(p!) ? `{${tex(p!)}}` : tex(p!)))
    .join(', ');
}

const TEX_ESCAPES: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
};

/** A value as BibTeX text: LaTeX's special characters escaped, everything else as it is (UTF-8). */
function tex(value: string): string {
  return value.replace(/[\\{}&%$#_^~]/g, (c) => TEX_ESCAPES[c]!);
}

/** A key BibTeX accepts: no spaces, commas, braces, quotes, `#`, `%` or `=`. */
function bibtexKey(key: string): string {
  return key.replace(/[\s,{}"#%='()\\]/g, '') || 'ref';
}
