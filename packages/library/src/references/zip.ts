/**
 * A `.zip` of a reference manager's export folder (Zotero: `Exported Items.bib` beside
 * `files/12/…pdf`), read in memory with fflate and bounded before anything is inflated: the
 * number of files, what each declares it unpacks to (a PDF to the upload limit, the bibliography
 * to its own, all of them to the import's), and the ratio deflate can reach. A file is inflated
 * into a buffer of its declared size, so a size that lies yields a cut file (refused when read),
 * never more memory. Nothing is written to disk; a name that climbs out of the folder (`../`, an
 * absolute path) marks the archive as no export folder.
 */
import { unzipSync } from 'fflate';
import { SPONGE_LIMITS, cleanLine } from '@sponge/contract';
import { LibraryError } from '../errors.ts';
import { baseName } from './entries.ts';

export interface ExportFile {
  /** Its path inside the archive. */
  path: string;
  name: string;
  bytes: Uint8Array;
}

/** Files one archive may list (an export of 500 entries with a PDF and a snapshot each, and room). */
const MAX_ZIP_FILES = 5_000;
/** Deflate's best ratio is about 1,032:1; a file declaring more is no honest deflate stream. */
const MAX_RATIO = 1_100;

const BIBLIOGRAPHY = /\.(bib|bibtex|ris|json)$/i;
const PDF = /\.pdf$/i;

/**
 * The bibliography and the PDFs of an export folder's archive. `invalid_input` for what is no
 * export folder (not a zip, no bibliography or two, a path out of the folder, too many files, a
 * damaged entry); `too_large` for what unpacks past the limits.
 */
export async function readExportZip(
  zip: Uint8Array,
): Promise<{ bibliography: ExportFile; files: ExportFile[] }> {
  const listed: Array<{ name: string; size: number; originalSize: number }> = [];
  try {
    unzipSync(zip, {
      filter: (file) => {
        if (listed.length >= MAX_ZIP_FILES)
          throw refused(
            `The zip holds more than ${MAX_ZIP_FILES.toLocaleString('en')} files; it is not one export folder.`,
          );
        listed.push({ name: file.name, size: file.size, originalSize: file.originalSize });
        return false;
      },
    });
  } catch (err) {
    if (err instanceof LibraryError) throw err;
    throw refused(`The file is not a zip archive that can be read (${errorText(err)}).`);
  }
  const wanted = listed.filter((f) => !f.name.endsWith('/') && !hidden(f.name));
  const outside = wanted.find((f) => climbsOut(f.name));
  if (outside)
    throw refused(
      `The zip holds a file outside its folder (${shown(outside.name)}); it is not an export folder.`,
    );
  const bibliographies = wanted.filter((f) => BIBLIOGRAPHY.test(f.name));
  if (bibliographies.length === 0)
    throw refused(
      'The zip holds no bibliography (.bib, .ris or .json): zip the folder your reference manager exported.',
    );
  if (bibliographies.length > 1)
    throw refused(
      `The zip holds more than one bibliography (${bibliographies.map((f) => shown(f.name)).join(', ')}): zip one export folder at a time.`,
    );
  const [bibliography] = bibliographies as [(typeof bibliographies)[number]];
  if (bibliography.originalSize > SPONGE_LIMITS.importBibliographyBytes)
    throw tooLarge(
      `${shown(bibliography.name)} unpacks to ${mib(bibliography.originalSize)}; a bibliography may be ${mib(SPONGE_LIMITS.importBibliographyBytes)}.`,
    );
  const pdfs = wanted.filter((f) => PDF.test(f.name));
  for (const f of [bibliography, ...pdfs]) {
    if (f.originalSize > SPONGE_LIMITS.uploadBytes)
      throw tooLarge(
        `${shown(f.name)} unpacks to ${mib(f.originalSize)}; a PDF may be ${mib(SPONGE_LIMITS.uploadBytes)}.`,
      );
    if (f.originalSize > MAX_RATIO * f.size + 64 * 1024)
      throw refused(`${shown(f.name)} declares more than deflate can unpack from it; the zip is damaged.`);
  }
  const total = [bibliography, ...pdfs].reduce((n, f) => n + f.originalSize, 0);
  if (total > SPONGE_LIMITS.importBytes)
    throw tooLarge(
      `The zip's bibliography and PDFs unpack to ${mib(total)}; an import may be ${mib(SPONGE_LIMITS.importBytes)}.`,
    );
  const read = async (path: string): Promise<ExportFile> => {
    // One file per turn of the event loop: a 200 MiB archive never holds the process for long.
    await new Promise((resolve) => setImmediate(resolve));
    let bytes: Uint8Array | undefined;
    try {
      bytes = unzipSync(zip, { filter: (f) => f.name === path })[path];
    } catch (err) {
      throw refused(`${shown(path)} could not be unpacked (${errorText(err)}); the zip is damaged.`);
    }
    if (!bytes) throw refused(`${shown(path)} could not be unpacked; the zip is damaged.`);
    return { path: shown(path), name: baseName(shown(path)), bytes };
  };
  const files: ExportFile[] = [];
  for (const f of pdfs) files.push(await read(f.name));
  return { bibliography: await read(bibliography.name), files };
}

/** macOS's resource forks (`__MACOSX/`) and dot files are no part of an export. */
const hidden = (name: string) =>
  name.startsWith('__MACOSX/') || name.split('/').some((p) => p.startsWith('.') && p !== '.' && p !== '..');

const climbsOut = (name: string) =>
  name.startsWith('/') ||
  name.startsWith('\\') ||
  /^[a-z]:/i.test(name) ||
  name.split(/[/\\]/).includes('..');

/** A name from the archive as a person reads it: without control or bidi characters. */
const shown = (name: string) => cleanLine(name).slice(0, 300);
const refused = (message: string) => new LibraryError('invalid_input', message);
const tooLarge = (message: string) => new LibraryError('too_large', message);
const mib = (bytes: number) => `${Math.ceil(bytes / 1024 / 1024).toLocaleString('en')} MiB`;
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
