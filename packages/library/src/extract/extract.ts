/**
 * The text of an uploaded document (SPEC §6b): a PDF, page by page, or a plain text or Markdown
 * file. Bad input is refused with a DocumentRejected whose reason and message (for the owner, as
 * it stands) the library's upload passes on as a LibraryError.
 */
import { SPONGE_LIMITS } from '@sponge/contract';
import type { DocumentReason } from '@sponge/contract';
import type { PaperMetadata } from './metadata.ts';
import { MESSAGES } from './messages.ts';
import { readPdfOnThread } from './pdf-thread.ts';
import { sniff } from './sniff.ts';
import { hasText, normaliseLines } from './text.ts';

type ExtractedSource = 'pdf' | 'text' | 'markdown';

export interface ExtractedDocument {
  source: ExtractedSource;
  /**
   * Text of each page, in order (one entry for text and Markdown). Never empty; a page of a PDF is
   * '' when it has no text layer (it is in `scanned`), and text or Markdown always has text.
   */
  pages: string[];
  /** The PDF's title (`metadata.title`) when it has a usable one, else null. */
  title: string | null;
  /**
   * What a PDF says the paper is (its Info dictionary and XMP, a DOI on its first pages, the title
   * as typeset on page 1: metadata.ts), with the title as `title` has it; absent when it says
   * nothing, and for text and Markdown.
   */
  metadata?: PaperMetadata;
  /** Pages (1-based) without a text layer, for OCR; empty for text and Markdown. */
  scanned: number[];
}

/** An upload refused for what it is; `message` is plain words for the owner. */
export class DocumentRejected extends Error {
  override readonly name = 'DocumentRejected';
  readonly reason: DocumentReason;

  constructor(reason: DocumentReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface ExtractOptions {
  /** How long a PDF may take to read; default 30,000. */
  timeoutMs?: number;
  /** Default SPONGE_LIMITS.documentPages. */
  maxPages?: number;
  /** Characters of text, counted after line endings are normalised; default SPONGE_LIMITS.documentChars. */
  maxChars?: number;
  /**
   * Runs the PDF read when its turn comes (the upload queue, upload-queue.ts), which may refuse
   * it; the signal stops the read. Default: at once. Text and Markdown need no turn.
   */
  schedule?: <T>(read: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  /**
   * Called once the file is known to be a document worth reading, before a PDF waits for its turn
   * or any text is kept: the upload stores its document as `extracting` here. A rejection stops
   * the extraction with it.
   */
  begin?: (source: ExtractedSource) => Promise<void>;
  /** A PDF's pages read so far, of its page count, as its thread reads them. */
  onProgress?: (done: number, total: number) => void;
}

// How long one PDF may take to read. Not measured against real files: longer lets a big PDF finish,
// shorter frees its thread (and the owners queued behind it) sooner.
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The document's text. The type is decided from the bytes (sniff.ts); the name and media type only
 * tell Markdown from plain text. Rejects with DocumentRejected for anything wrong with the file,
 * and with other errors only for faults of our own (a broken build).
 */
export async function extractDocument(
  input: { bytes: Uint8Array; filename: string; mediaType: string },
  options: ExtractOptions = {},
): Promise<ExtractedDocument> {
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const maxPages = positive('maxPages', options.maxPages ?? SPONGE_LIMITS.documentPages);
  const maxChars = positive('maxChars', options.maxChars ?? SPONGE_LIMITS.documentChars);

  const sniffed = sniff(input.bytes, input.filename, input.mediaType);
  switch (sniffed.kind) {
    case 'other':
      throw new DocumentRejected('invalid_document', MESSAGES.notADocument);
    case 'pdf': {
      await options.begin?.('pdf');
      const read = (signal?: AbortSignal) =>
        readPdfOnThread(
          { bytes: input.bytes, maxPages, maxChars },
          {
            timeoutMs,
            ...(signal ? { signal } : {}),
            ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          },
        );
      const outcome = options.schedule ? await options.schedule(read) : await read();
      if (!outcome.ok) throw new DocumentRejected(outcome.reason, outcome.message);
      const title = usableTitle(outcome.metadata.title ?? null);
      const { title: _, ...rest } = outcome.metadata;
      const metadata = { ...(title === null ? {} : { title }), ...rest };
      return {
        source: 'pdf',
        pages: outcome.pages,
        title,
        scanned: outcome.scanned,
        ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      };
    }
    default: {
      const text = normaliseLines(sniffed.text);
      if (!hasText(text)) throw new DocumentRejected('no_text', MESSAGES.emptyText);
      if (text.length > maxChars)
        throw new DocumentRejected('too_large', MESSAGES.textTooLong(text.length, maxChars));
      await options.begin?.(sniffed.kind);
      return { source: sniffed.kind, pages: [text], title: null, scanned: [] };
    }
  }
}

function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a positive number`);
  return value;
}

/**
 * A title worth showing: control characters and runs of whitespace made single spaces, and null
 * for what producers write when there is none (empty, "Untitled", only punctuation). Cut to the
 * contract's title length, at a word where one is near, so the router can use it as it is.
 */
export function usableTitle(raw: string | null): string | null {
  if (raw === null) return null;
  const title = raw.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  if (!/[\p{L}\p{N}]/u.test(title) || /^untitled\b/i.test(title)) return null;
  if (title.length <= SPONGE_LIMITS.titleChars) return title;
  let cut = title.slice(0, SPONGE_LIMITS.titleChars - 1);
  // Never end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = cut.lastIndexOf(' ');
  if (space > SPONGE_LIMITS.titleChars * 0.8) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}
