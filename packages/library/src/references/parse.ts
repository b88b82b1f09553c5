/**
 * Reads a bibliography as Zotero, Mendeley and JabRef export it — BibTeX (or BibLaTeX), RIS,
 * CSL-JSON — into entries (SPEC §6d), with citation-js. Only the format's own parser runs (its
 * type is forced): citation-js can also fetch a URL or a DOI it is handed, which an import never
 * asks of it. What citation-js drops on the way to CSL — the files an entry links to, Mendeley's
 * and JabRef's groups — is read from the format's raw fields.
 */
import { plugins } from '@citation-js/core';
import type { CslItem } from '@citation-js/core';
import '@citation-js/plugin-bibtex';
import '@citation-js/plugin-ris';
import { SPONGE_LIMITS } from '@sponge/contract';
import { LibraryError } from '../errors.ts';
import { entryFromCsl } from './entries.ts';
import type { ReferenceEntry } from './entries.ts';

type BibliographyFormat = 'bibtex' | 'ris' | 'csl-json';

/**
 * The entries of an exported bibliography, in its order. `invalid_input`, in words, for a file
 * that is none of the three formats, one that cannot be read as the one it is, or one with more
 * entries than an import takes.
 */
export function parseBibliography(text: string, filename: string): ReferenceEntry[] {
  const format = bibliographyFormat(text, filename);
  if (format === null)
    throw refused(
      `${filename} is not a bibliography this library reads: export BibTeX (.bib), RIS (.ris) or CSL JSON (.json).`,
    );
  let entries: ReferenceEntry[];
  try {
    entries =
      format === 'bibtex' ? bibtexEntries(text) : format === 'ris' ? risEntries(text) : cslJsonEntries(text);
  } catch (err) {
    if (err instanceof LibraryError) throw err;
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw refused(`${filename} could not be read as ${FORMAT_NAMES[format]}: ${why}`);
  }
  if (entries.length === 0) throw refused(`${filename} holds no entries.`);
  return entries;
}

const FORMAT_NAMES: Record<BibliographyFormat, string> = {
  bibtex: 'BibTeX',
  ris: 'RIS',
  'csl-json': 'CSL JSON',
};

/** The format by the file's extension, else by how its text starts. */
function bibliographyFormat(text: string, filename: string): BibliographyFormat | null {
  const ext = /\.([a-z]+)$/i.exec(filename)?.[1]?.toLowerCase();
  if (ext === 'bib' || ext === 'bibtex') return 'bibtex';
  if (ext === 'ris') return 'ris';
  if (ext === 'json') return 'csl-json';
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (/^TY {2}- /m.test(start.slice(0, 4096))) return 'ris';
  if (start.startsWith('[') || start.startsWith('{')) return 'csl-json';
  if (/^\s*@[a-z]+\s*[{(]/im.test(start.slice(0, 65_536))) return 'bibtex';
  return null;
}

const refused = (message: string) => new LibraryError('invalid_input', message);

/** Refuses a bibliography with more entries than one import takes, before they are read. */
function bounded<T>(items: T[]): T[] {
  if (items.length > SPONGE_LIMITS.importEntries)
    throw refused(
      `The bibliography has ${items.length.toLocaleString('en')} entries; an import takes at most ${SPONGE_LIMITS.importEntries}. Export it in parts (a collection at a time).`,
    );
  return items;
}

interface BibtexEntry {
  type: string;
  label: string;
  properties: Record<string, string>;
}

function bibtexEntries(text: string): ReferenceEntry[] {
  const raw = plugins.input.data(text.replace(/^\uFEFF/, ''), '@biblatex/text') as BibtexEntry[];
  return bounded(raw).map((entry) => {
    const [item] = plugins.input.chain(entry, {
      forceType: '@biblatex/entry+object',
      generateGraph: false,
    }) as CslItem[];
    const p = entry.properties;
    // Zotero's tags are `keywords` (CSL already has them); JabRef 4+ (and Better BibTeX's
    // collections) write `groups`, Mendeley `mendeley-groups` and `mendeley-tags`.
    const groups = [p.groups, p['mendeley-groups'], p['mendeley-tags']].flatMap((v) => listField(v));
    const keywords = listField(p.keywords);
    return entryFromCsl(
      // `\par` parts paragraphs in LaTeX (this library's BibTeX writes them so); citation-js
      // leaves it as written.
      {
        ...item,
        keyword: undefined,
        ...(item?.abstract ? { abstract: item.abstract.replace(/\s*\\par\b\s*/g, '\n\n') } : {}),
      },
      { key: entry.label, tags: [...keywords, ...groups], paths: bibtexFilePaths(p.file ?? p.pdf ?? '') },
    );
  });
}

/**
 * A BibTeX list field (keywords, groups): comma- or semicolon-separated, its LaTeX read by
 * citation-js as it reads a title (citation-js leaves the fields it does not map as written).
 */
function listField(value: string | undefined): string[] {
  if (!value) return [];
  const [item] = plugins.input.chain(
    { type: 'misc', label: 'list', properties: { title: value } },
    { forceType: '@biblatex/entry+object', generateGraph: false },
  ) as CslItem[];
  return (item?.title ?? value).split(/[,;]/).map((v) => v.trim());
}

/**
 * The paths in a BibTeX `file` field, as Zotero (`Full Text PDF:files/12/a.pdf:application/pdf`,
 * `;` between files, `\` escaping `\ : ; $`), JabRef (`:papers/a.pdf:PDF`) and Mendeley
 * (`:C$\backslash$:/Users/me/a.pdf:pdf`, its name in LaTeX) write it; a bare path too.
 */
export function bibtexFilePaths(field: string): string[] {
  const unescapedSplit = (s: string, sep: string) => {
    const out = [''];
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      if (c === '\\' && i + 1 < s.length && '\\:;$'.includes(s[i + 1]!)) out[out.length - 1] += c + s[++i]!;
      else if (c === sep) out.push('');
      else out[out.length - 1] += c;
    }
    return out;
  };
  const unescape = (s: string) => s.replace(/\\([\\:;$])/g, '$1');
  return unescapedSplit(field.replace(/\$\\backslash\$/g, '\\'), ';')
    .map((link) => {
      const parts = unescapedSplit(link, ':');
      // description:path:type; a path with a drive letter's colon was escaped, or is all that is there.
      const path =
        parts.length >= 3 ? parts.slice(1, -1).join(':') : parts.length === 2 ? parts[1]! : parts[0]!;
      return decodeLatex(unescape(path)).trim();
    })
    .filter(Boolean);
}

/** Accents and braces as BibTeX exporters write them in names (`M{\"{u}}ller` → `Müller`). */
function decodeLatex(value: string): string {
  const marks: Record<string, string> = {
    '"': '\u0308',
    "'": '\u0301',
    '`': '\u0300',
    '^': '\u0302',
    '~': '\u0303',
    '=': '\u0304',
    '.': '\u0307',
    c: '\u0327',
    v: '\u030C',
    u: '\u0306',
    H: '\u030B',
    r: '\u030A',
    k: '\u0328',
  };
  return value
    .replace(
      /\\(["'`^~=.])\s*\{?([A-Za-z])\}?|\\([cvuHrk])\s*\{([A-Za-z])\}/g,
      (_m, a?: string, l?: string, b?: string, l2?: string) => `${l ?? l2}${marks[a ?? b ?? ''] ?? ''}`,
    )
    .replace(/[{}]/g, '')
    .normalize('NFC');
}

function risEntries(text: string): ReferenceEntry[] {
  const records = plugins.input.data(text.replace(/^\uFEFF/, ''), '@ris/file') as Array<
    Record<string, string | string[] | undefined>
  >;
  return bounded(records).map((record) => {
    const [item] = plugins.input.chain(record, {
      forceType: '@ris/record',
      generateGraph: false,
    }) as CslItem[];
    const all = (tag: string) => [record[tag] ?? []].flat();
    // L1 is the file attached (Zotero: `files/12/a.pdf` in an export folder, else a file:// URL);
    // L4 is a figure or other attachment.
    const paths = [...all('L1'), ...all('L4')].flatMap((v) => v.split(/;\s*/)).map(fileUrlPath);
    const key = all('ID')[0] ?? '';
    return entryFromCsl({ ...item, keyword: undefined }, { key, tags: all('KW'), paths });
  });
}

/** `file:///C:/Users/me/a%20b.pdf` → `C:/Users/me/a b.pdf`; anything else as it is. */
function fileUrlPath(value: string): string {
  if (!/^file:\/\//i.test(value)) return value;
  try {
    // file:///C:/… is the Windows path C:/….
    return decodeURIComponent(value.replace(/^file:\/\/(localhost)?/i, '')).replace(/^\/([a-z]:)/i, '$1');
  } catch {
    return value;
  }
}

function cslJsonEntries(text: string): ReferenceEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw refused(`The file is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const items = Array.isArray(data) ? data : [data];
  if (!items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i)))
    throw refused(
      'The file is JSON but not CSL JSON: expected a list of items like {"type", "title", "author"}.',
    );
  return bounded(items as CslItem[]).map((item) => {
    const [csl] = plugins.input.chain([item], {
      forceType: '@csl/list+object',
      generateGraph: false,
    }) as CslItem[];
    return entryFromCsl(csl ?? item);
  });
}
