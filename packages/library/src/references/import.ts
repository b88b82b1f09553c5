/**
 * An import from a reference manager (SPEC §6d `documents.import`): a bibliography with the PDFs
 * it names, as separate files or a `.zip` of the export folder. Each entry becomes a document
 * with its metadata — through the upload (the same queue as any upload: one file of an owner's
 * read at a time, behind other owners' turns) when its PDF came, else added with its abstract as
 * its text — or is reported: a duplicate of a document the owner has, or refused with the reason
 * in words. An entry is added whole or not at all (the library's add and upload are); the entries
 * before a failure stay added.
 */
import { SPONGE_LIMITS, cleanLine } from '@sponge/contract';
import { LibraryError, isLibraryError } from '../errors.ts';
import type { Library } from '../library.ts';
import { baseName, foldName } from './entries.ts';
import type { ReferenceEntry } from './entries.ts';
import { parseOnThread } from './thread.ts';
import { readExportZip } from './zip.ts';

/** A file of the import's form, or of its archive. */
interface ImportFile {
  /** Its path in the archive, or its name as sent. */
  path: string;
  bytes: Uint8Array;
}

export interface ImportInput {
  bibliography: { name: string; bytes: Uint8Array };
  files: ImportFile[];
}

export interface ImportResult {
  /** `missingFile`: the PDF the entry names that was not among the files sent (its text is then its abstract, or what the reference says). */
  added: Array<{ id: string; title: string; missingFile?: string }>;
  /** `entry`: what a person recognises the entry by — its title, else its key. */
  duplicates: Array<{ entry: string; existingId: string }>;
  failed: Array<{ entry: string; reason: string }>;
}

/** How long one import may add documents; the entries not reached by then are reported as such. */
const DEFAULT_IMPORT_SECONDS = 600;

/**
 * `documents.import`'s form read and checked: one `file` (the bibliography, or the export
 * folder's `.zip`) and any number of `files` (PDFs), within the import's limits. `invalid_input`
 * or `too_large`, in words, before anything is stored.
 */
export async function readImportForm(form: FormData): Promise<ImportInput> {
  let main: File | null = null;
  const parts: File[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string' || (name !== 'file' && name !== 'files'))
      throw new LibraryError('invalid_input', `${shown(name)}: not a part of an import (file, files).`);
    if (name === 'files') parts.push(value);
    else if (main !== null)
      throw new LibraryError('invalid_input', 'file: attach exactly one bibliography or .zip.');
    else main = value;
  }
  if (main === null)
    throw new LibraryError(
      'invalid_input',
      'file: attach the bibliography your reference manager exported (.bib, .ris, .json) or a .zip of its export folder.',
    );
  const total = [main, ...parts].reduce((n, f) => n + f.size, 0);
  if (total > SPONGE_LIMITS.importBytes)
    throw tooLarge(`The import is larger than the ${mib(SPONGE_LIMITS.importBytes)} limit.`);
  for (const part of parts)
    if (part.size > SPONGE_LIMITS.uploadBytes)
      throw tooLarge(
        `${shown(part.name)} is larger than the ${mib(SPONGE_LIMITS.uploadBytes)} limit of a file.`,
      );
  const files = await Promise.all(parts.map(async (f) => ({ path: shown(f.name), bytes: await bytesOf(f) })));
  const bytes = await bytesOf(main);
  if (/\.zip$/i.test(main.name) || isZip(bytes)) {
    const zip = await readExportZip(bytes);
    return {
      bibliography: { name: zip.bibliography.name, bytes: zip.bibliography.bytes },
      files: [...zip.files.map((f) => ({ path: f.path, bytes: f.bytes })), ...files],
    };
  }
  if (main.size > SPONGE_LIMITS.importBibliographyBytes)
    throw tooLarge(
      `${shown(main.name)} is larger than the ${mib(SPONGE_LIMITS.importBibliographyBytes)} limit of a bibliography.`,
    );
  return { bibliography: { name: shown(main.name), bytes }, files };
}

/**
 * `documents.import`: the form read, then its entries imported, once the owner's library has room
 * for one more document at all (`quota` otherwise, before the form is read).
 */
export async function importFromForm(
  library: Pick<Library, 'add' | 'upload' | 'checkRoom'>,
  ownerId: string,
  form: FormData,
  options: { now: () => Date; signal?: AbortSignal | undefined },
): Promise<ImportResult> {
  await library.checkRoom(ownerId);
  return importReferences(library, ownerId, await readImportForm(form), options);
}

/**
 * Imports every entry of the bibliography into the owner's library, in its order, one at a time.
 * A refused bibliography (none of the formats, over 500 entries) throws before anything is added;
 * the request ending (`signal`) throws `aborted` after the entry under way is settled.
 */
export async function importReferences(
  library: Pick<Library, 'add' | 'upload'>,
  ownerId: string,
  input: ImportInput,
  options: { now: () => Date; signal?: AbortSignal | undefined; seconds?: number },
): Promise<ImportResult> {
  const text = decodeText(input.bibliography.bytes, input.bibliography.name);
  // Seconds of work for a hostile bibliography: on the references thread, not the API's.
  const entries = await parseOnThread(text, input.bibliography.name);
  const deadline = options.now().getTime() + 1000 * (options.seconds ?? DEFAULT_IMPORT_SECONDS);
  const result: ImportResult = { added: [], duplicates: [], failed: [] };
  for (const [i, entry] of entries.entries()) {
    if (options.signal?.aborted)
      throw new LibraryError(
        'aborted',
        'The import was closed by its client; the entries before were added.',
      );
    const label = entry.title || entry.key || `Entry ${i + 1}`;
    const fail = (reason: string) => void result.failed.push({ entry: label, reason });
    if (!entry.title) {
      fail('It has no title.');
      continue;
    }
    if (options.now().getTime() > deadline) {
      fail(
        `Not imported: the import stopped after ${Math.round((options.seconds ?? DEFAULT_IMPORT_SECONDS) / 60)} minutes. Import this entry again.`,
      );
      continue;
    }
    const pdf = pdfFor(entry, input.files);
    if (pdf.kind === 'ambiguous') {
      fail(`Two of the files sent are named ${pdf.name}; import this entry again with its own PDF.`);
      continue;
    }
    // The upload reads any text file, by its bytes: a "PDF" that is none would come in as text.
    if (pdf.file && !isPdf(pdf.file.bytes)) {
      fail(`${baseName(pdf.file.path)} is not a PDF.`);
      continue;
    }
    const metadata = {
      title: entry.title,
      authors: entry.authors,
      year: entry.year,
      doi: entry.doi,
      venue: entry.venue,
      abstract: entry.abstract,
      tags: entry.tags,
    };
    try {
      const added = pdf.file
        ? await library.upload(
            ownerId,
            {
              bytes: pdf.file.bytes,
              filename: baseName(pdf.file.path),
              mediaType: 'application/pdf',
              title: entry.title,
              fallbackTitle: entry.title,
            },
            { metadata, ...(options.signal ? { signal: options.signal } : {}) },
          )
        : await library.add(
            ownerId,
            { title: entry.title, authors: entry.authors, source: 'text', pages: [textOf(entry)], metadata },
            options.now(),
          );
      const named = pdf.file ? undefined : entry.paths.find((p) => /\.pdf$/i.test(p));
      result.added.push({
        id: added.id,
        title: added.title,
        ...(named === undefined ? {} : { missingFile: baseName(named) }),
      });
    } catch (err) {
      if (!isLibraryError(err) || err.reason === 'aborted') throw err;
      if (err.reason === 'duplicate' && err.existingId !== undefined)
        result.duplicates.push({ entry: label, existingId: err.existingId });
      else fail(err.message);
    }
  }
  return result;
}

/**
 * The PDF an entry names among the files sent: the one whose path ends with the most of the
 * entry's path (`files/12/a.pdf` in a zip of `Exported Items/`), by name at least. None when the
 * entry names no PDF or none came; ambiguous when two fit as well.
 */
function pdfFor(
  entry: ReferenceEntry,
  files: readonly ImportFile[],
): { kind: 'one'; file: ImportFile | null } | { kind: 'ambiguous'; name: string } {
  const segments = (path: string) => path.split(/[/\\]/).map(foldName).filter(Boolean);
  const candidates = files.map((f) => ({ file: f, segs: segments(f.path) }));
  for (const path of entry.paths) {
    if (!/\.pdf$/i.test(path)) continue;
    const want = segments(path);
    let best = 0;
    let found: ImportFile[] = [];
    for (const { file, segs } of candidates) {
      let n = 0;
      while (n < want.length && n < segs.length && want[want.length - 1 - n] === segs[segs.length - 1 - n])
        n++;
      if (n === 0 || n < best) continue;
      if (n > best) found = [];
      best = n;
      found.push(file);
    }
    if (found.length === 1) return { kind: 'one', file: found[0]! };
    if (found.length > 1) return { kind: 'ambiguous', name: baseName(path) };
  }
  return { kind: 'one', file: null };
}

/** The text of an entry without its PDF: its abstract, else what the reference says. */
function textOf(entry: ReferenceEntry): string {
  if (entry.abstract) return entry.abstract;
  const line = [entry.authors.join(', '), entry.year, entry.venue].filter(Boolean).join(' · ');
  return [entry.title, line].filter(Boolean).join('\n');
}

/** UTF-8 (a byte order mark dropped); `invalid_input` for bytes that are not text. */
function decodeText(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    // Older exports (BibTeX from JabRef 2, Mendeley on Windows) may be Latin-1.
    const latin1 = new TextDecoder('latin1').decode(bytes);
    if ([...latin1.slice(0, 65_536)].some((c) => c < '\t' || (c > '\r' && c < ' ')))
      throw new LibraryError(
        'invalid_input',
        `${name} is not a text file: export the bibliography as BibTeX, RIS or CSL JSON.`,
      );
    return latin1;
  }
}

/** A PDF's header may come after up to 1,024 bytes of something else (ISO 32000-1, 7.5.2). */
const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 1024 + 5)).includes('%PDF-');
/** A name a person sent, as a typed title is kept: without control or bidi characters. */
const shown = (name: string) => cleanLine(name).slice(0, 300);
const isZip = (bytes: Uint8Array) =>
  bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
const bytesOf = async (file: File) => new Uint8Array(await file.arrayBuffer());
const tooLarge = (message: string) => new LibraryError('too_large', message);
const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
