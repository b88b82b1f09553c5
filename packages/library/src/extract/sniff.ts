/**
 * What an upload is, decided from its bytes: the file name and media type the browser sends are
 * only used to tell Markdown from plain text, never to decide whether something is a PDF.
 */

export type Sniffed = { kind: 'pdf' } | { kind: 'text' | 'markdown'; text: string } | { kind: 'other' };

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"
/** pdf.js, like Acrobat, accepts a header anywhere in the first KiB (after mail or HTTP junk). */
const HEADER_WINDOW = 1024;

const MARKDOWN_NAME = /\.(md|markdown)$/i;
const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown']);

export function sniff(bytes: Uint8Array, filename: string, mediaType: string): Sniffed {
  const header = findPdfHeader(bytes);
  if (header === 0) return { kind: 'pdf' };
  const text = decodeText(bytes);
  // A header further in makes a PDF only of a file that is not text anyway: a Markdown note that
  // quotes "%PDF-1.7" in its first lines stays a note.
  if (text === null) return header > 0 ? { kind: 'pdf' } : { kind: 'other' };
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  const markdown = MARKDOWN_NAME.test(filename.trim()) || MARKDOWN_TYPES.has(type);
  return { kind: markdown ? 'markdown' : 'text', text };
}

/** Offset of "%PDF-" in the first KiB, or -1. */
function findPdfHeader(bytes: Uint8Array): number {
  const end = Math.min(bytes.length, HEADER_WINDOW) - PDF_MAGIC.length;
  for (let i = 0; i <= end; i++) if (PDF_MAGIC.every((b, j) => bytes[i + j] === b)) return i;
  return -1;
}

/**
 * The file as text when it is strictly valid UTF-8 without NUL bytes, else null. Images, archives
 * and office files fail one test or the other within their first bytes, and so does UTF-16 text
 * (the library takes UTF-8 only). The decoder drops a leading BOM itself.
 */
function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
