/**
 * `documents.upload`'s form (SPEC §6b): one `file` (PDF, plain text or Markdown) and an optional
 * `title`, read and checked before anything is stored; and what the library's upload (library.ts)
 * makes of an extraction: the document, or the contract's error for a refusal
 * (`invalid_document`, `no_text`, `too_large`; `busy` comes from the queue).
 */
import { TRPCError } from '@trpc/server';
import { DOCUMENT_REASON_TO_CODE, LIMITS, cleanLine, uploadFieldsSchema } from '@sponge/contract';
import { ApiError, invalidInput } from '../errors.ts';
import { DocumentRejected } from '@sponge/library';

export function tooLarge(message: string): ApiError {
  return new ApiError({ code: DOCUMENT_REASON_TO_CODE.too_large, reason: 'too_large', message });
}

/** An uploaded file as the library takes it: the form read and checked, not yet extracted. */
export interface UploadFile {
  bytes: Uint8Array;
  filename: string;
  mediaType: string;
  /** The form's title field, cleaned by its schema; undefined when none was given. */
  title: string | undefined;
  /** The title from the file's name: the document's while its text is extracted, and after it when the file has none of its own. */
  fallbackTitle: string;
}

/**
 * The upload's form with its cheap checks: exactly one file, known fields, the size limit, not
 * empty. Nothing is stored yet.
 */
export async function readUploadForm(form: FormData): Promise<UploadFile> {
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
  return {
    bytes: new Uint8Array(await file.arrayBuffer()),
    filename: file.name,
    mediaType: file.type,
    title: parsed.data.title,
    fallbackTitle: titleFromFilename(file.name),
  };
}

/** An extraction's refusal as the contract's error (`invalid_document`, `no_text`, `too_large`). */
export function uploadRefusal(err: unknown): unknown {
  if (err instanceof DocumentRejected)
    return new ApiError({
      code: DOCUMENT_REASON_TO_CODE[err.reason],
      reason: err.reason,
      message: err.message,
    });
  return err;
}

/** What an upload whose request was closed answers (nobody reads it). */
export function clientGone(): TRPCError {
  return new TRPCError({
    code: 'CLIENT_CLOSED_REQUEST',
    message: 'The upload was closed by its client before its text was read.',
  });
}

/** `kelp-canopy_2019.pdf` → `kelp-canopy 2019`; never empty, within the title limit. */
function titleFromFilename(name: string): string {
  const base = cleanLine(name)
    .replace(/\.[A-Za-z0-9]{1,8}$/, '')
    .replace(/[_]+/g, ' ')
    .trim();
  return (base || 'Untitled document').slice(0, LIMITS.titleChars);
}
