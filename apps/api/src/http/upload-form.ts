/**
 * `documents.upload`'s form (SPEC §6b): one `file` (PDF, plain text or Markdown) and an optional
 * `title`, read and checked before anything is stored, as the file the library's upload takes.
 * The body was size-checked while it streamed in (server.ts); tRPC parsed it into the form.
 */
import { DOCUMENT_REASON_TO_CODE, SPONGE_LIMITS, cleanLine, uploadFieldsSchema } from '@sponge/contract';
import type { UploadFile } from '@sponge/library';
import { ApiError, invalidInput } from '../errors.ts';

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
  if (file.size > SPONGE_LIMITS.uploadBytes)
    throw new ApiError({
      code: DOCUMENT_REASON_TO_CODE.too_large,
      reason: 'too_large',
      message: `The file is larger than the ${SPONGE_LIMITS.uploadBytes / 1024 / 1024} MiB limit.`,
    });
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

/** `kelp-canopy_2019.pdf` → `kelp-canopy 2019`; never empty, within the title limit. */
function titleFromFilename(name: string): string {
  const base = cleanLine(name)
    .replace(/\.[A-Za-z0-9]{1,8}$/, '')
    .replace(/[_]+/g, ' ')
    .trim();
  return (base || 'Untitled document').slice(0, SPONGE_LIMITS.titleChars);
}
