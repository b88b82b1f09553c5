/**
 * Reading `documents.upload`'s form (SPEC §6b): one `file` (PDF, plain text or Markdown) and an
 * optional `title`. Extraction runs in a worker with a time limit (extract/), when the upload
 * queue gives the owner a turn; its refusals become the contract's errors (`invalid_document`,
 * `no_text`, `too_large`; `busy` from the queue).
 */
import { DOCUMENT_REASON_TO_CODE, LIMITS, cleanLine, uploadFieldsSchema } from '@sponge/contract';
import { ApiError, invalidInput } from '../errors.ts';
import { DocumentRejected, extractDocument } from './extract/index.ts';
import type { ExtractOptions } from './extract/index.ts';
import type { NewLibraryDocument } from './library.ts';

export function tooLarge(message: string): ApiError {
  return new ApiError({ code: DOCUMENT_REASON_TO_CODE.too_large, reason: 'too_large', message });
}

export async function readUpload(
  form: FormData,
  options: Pick<ExtractOptions, 'schedule'> = {},
): Promise<NewLibraryDocument> {
  const fields: Record<string, string> = {};
  let file: File | null = null;
  for (const [name, value] of form.entries()) {
    if (name === 'file') {
      if (file !== null || typeof value === 'string') throw invalidInput('file: attach exactly one file.');
      file = value;
    } else if (typeof value !== 'string' || name in fields) {
      throw invalidInput(`${name}: not a field of an upload (file, title).`);
    } else fields[name] = value;
  }
  if (file === null) throw invalidInput('file: attach a PDF, plain text or Markdown file.');
  const parsed = uploadFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidInput(`${issue?.path.join('.') || 'form'}: ${issue?.message ?? 'invalid'}`);
  }
  if (file.size > LIMITS.uploadBytes)
    throw tooLarge(`The file is larger than the ${LIMITS.uploadBytes / 1024 / 1024} MiB limit.`);
  if (file.size === 0)
    throw new ApiError({ code: 'BAD_REQUEST', reason: 'invalid_document', message: 'The file is empty.' });

  let extracted;
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    extracted = await extractDocument({ bytes, filename: file.name, mediaType: file.type }, options);
  } catch (err) {
    if (err instanceof DocumentRejected)
      throw new ApiError({
        code: DOCUMENT_REASON_TO_CODE[err.reason],
        reason: err.reason,
        message: err.message,
      });
    throw err;
  }
  // A PDF's own title and a file name lose control and bidi characters as a typed title does
  // (SPEC §6c); the title field was cleaned by its schema.
  const pdfTitle = extracted.title === null ? '' : cleanLine(extracted.title).trim();
  const title = (parsed.data.title ?? (pdfTitle || titleFromFilename(file.name))).slice(0, LIMITS.titleChars);
  // Scanned pages are read by OCR after the upload has answered (library/ocr/), from the file.
  const scan = extracted.scanned.length > 0 ? { pdf: bytes, pages: extracted.scanned } : undefined;
  return { title, authors: [], source: extracted.source, pages: extracted.pages, ...(scan ? { scan } : {}) };
}

/** `kelp-canopy_2019.pdf` → `kelp-canopy 2019`; never empty, within the title limit. */
function titleFromFilename(name: string): string {
  const base = cleanLine(name)
    .replace(/\.[A-Za-z0-9]{1,8}$/, '')
    .replace(/[_]+/g, ' ')
    .trim();
  return (base || 'Untitled document').slice(0, LIMITS.titleChars);
}
