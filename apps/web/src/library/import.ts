// "Import from Zotero, BibTeX, RIS…" (SPEC §6d): a reference manager's export — a BibTeX, RIS or
// CSL-JSON file with the PDFs it names, or a .zip of the export folder — sent to
// `documents.import` as multipart/form-data, and its answer said entry by entry in words.
import { SPONGE_LIMITS } from '@sponge/contract';
import type { RouterOutputs } from '../trpc.ts';
import { readUploadAnswer, formatBytes } from './upload.ts';

const IMPORT_URL = '/trpc/documents.import';
const MiB = 1024 * 1024;
/** The import's own bounds (SPEC §6d): the bibliography, and the whole request. */
const BIBLIOGRAPHY_BYTES = 5 * MiB;
const ZIP_BYTES = 200 * MiB;
const REQUEST_BYTES = 200 * MiB;

export const BIBLIOGRAPHY_ACCEPT = '.bib,.bibtex,.ris,.json,.zip';
export const PDF_ACCEPT = '.pdf,application/pdf';

/** What `documents.import` answers: `{ added, duplicates, failed }`, entry by entry. */
export type ImportAnswer = RouterOutputs['documents']['import'];

type Sized = { name: string; size: number };

/** Refuses, before sending, what the API would refuse for its kind or size; null when fine. */
export function checkImport(file: Sized | null, pdfs: readonly Sized[]): string | null {
  if (!file)
    return 'Choose the exported file: a BibTeX (.bib), RIS (.ris) or CSL-JSON (.json) file, or a .zip.';
  const name = file.name.toLowerCase();
  const zip = name.endsWith('.zip');
  if (!BIBLIOGRAPHY_ACCEPT.split(',').some((ext) => name.endsWith(ext)))
    return `“${file.name}” is not an export Sponge reads: choose a BibTeX (.bib), RIS (.ris) or CSL-JSON (.json) file, or a .zip of the export folder.`;
  if (!zip && file.size > BIBLIOGRAPHY_BYTES)
    return `“${file.name}” is ${formatBytes(file.size)}; a bibliography can be at most ${formatBytes(BIBLIOGRAPHY_BYTES)}.`;
  if (zip && file.size > ZIP_BYTES)
    return `“${file.name}” is ${formatBytes(file.size)}; an import can be at most ${formatBytes(ZIP_BYTES)}.`;
  const notPdf = pdfs.find((p) => !p.name.toLowerCase().endsWith('.pdf'));
  if (notPdf) return `“${notPdf.name}” is not a PDF: only the PDFs the export names go with it.`;
  const big = pdfs.find((p) => p.size > SPONGE_LIMITS.uploadBytes);
  if (big)
    return `“${big.name}” is ${formatBytes(big.size)}; a PDF can be at most ${formatBytes(SPONGE_LIMITS.uploadBytes)}.`;
  const total = pdfs.reduce((sum, p) => sum + p.size, file.size);
  if (total > REQUEST_BYTES)
    return `The files come to ${formatBytes(total)}; one import can be at most ${formatBytes(REQUEST_BYTES)}. Import them in parts.`;
  return null;
}

/** One line of the result, for a person: what happened to one entry. */
type ImportLine =
  | { kind: 'added'; id: string; title: string; note: string | null }
  | { kind: 'duplicate'; entry: string; existingId: string }
  | { kind: 'failed'; entry: string; why: string };

/** "3 added, 1 already in your library, 1 not added." */
export function importSummary(answer: ImportAnswer): string {
  const parts = [
    `${answer.added.length} added`,
    answer.duplicates.length > 0 && `${answer.duplicates.length} already in your library`,
    answer.failed.length > 0 && `${answer.failed.length} not added`,
  ].filter(Boolean);
  return `${parts.join(', ')}.`;
}

/** Every entry's line: the added first, then those the library had, then those that failed. */
export function importLines(answer: ImportAnswer): ImportLine[] {
  return [
    ...answer.added.map((a) => ({
      kind: 'added' as const,
      id: a.id,
      title: a.title,
      note:
        a.missingFile === undefined ? null : `without its PDF: ${a.missingFile} was not among the files sent`,
    })),
    ...answer.duplicates.map((d) => ({
      kind: 'duplicate' as const,
      entry: d.entry,
      existingId: d.existingId,
    })),
    ...answer.failed.map((f) => ({ kind: 'failed' as const, entry: f.entry, why: failureWords(f.reason) })),
  ];
}

/** The API's reason, said for a person when it is a code rather than a sentence. */
function failureWords(reason: string): string {
  const known: Record<string, string> = {
    no_text: 'its PDF has no text to read (scanned pages need OCR)',
    invalid_document: 'its PDF could not be read',
    too_large: 'its file is larger than the upload limit',
    invalid_input: 'the entry could not be read',
    quota: 'your library is full',
  };
  return known[reason] ?? (/\s/u.test(reason) ? reason : 'it could not be added');
}

function isImportAnswer(data: unknown): data is ImportAnswer {
  if (!data || typeof data !== 'object') return false;
  const d = data as Record<string, unknown>;
  return Array.isArray(d.added) && Array.isArray(d.duplicates) && Array.isArray(d.failed);
}

/**
 * Sends the export and its PDFs; `onProgress` gets the share sent (0..1). Never rejects: a
 * refusal comes back with the API's words, or what went wrong on the way.
 */
export function importReferences(
  file: File,
  pdfs: readonly File[],
  options: { onProgress?: (sent: number) => void } = {},
): Promise<{ ok: true; answer: ImportAnswer } | { ok: false; message: string }> {
  const body = new FormData();
  body.append('file', file, file.name);
  for (const pdf of pdfs) body.append('files', pdf, pdf.name);
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', IMPORT_URL);
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) options.onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => resolve(readImportAnswer(xhr.status, xhr.responseText));
    xhr.onerror = () =>
      resolve({ ok: false, message: 'The import did not reach the server (network failure). Try again.' });
    xhr.send(body);
  });
}

/** The answer of POST /trpc/documents.import: the entries' results, or why nothing was imported. */
export function readImportAnswer(
  status: number,
  body: string,
): { ok: true; answer: ImportAnswer } | { ok: false; message: string } {
  try {
    const data: unknown = (JSON.parse(body) as { result?: { data?: unknown } }).result?.data;
    if (status >= 200 && status < 300 && isImportAnswer(data)) return { ok: true, answer: data };
  } catch {
    // Not tRPC's answer: said by its status below.
  }
  // The refusals are an upload's (size, sign-in, a busy queue): said the same way.
  const outcome = readUploadAnswer(status, body);
  return {
    ok: false,
    message: outcome.ok ? `The server could not import (HTTP ${status}).` : outcome.message,
  };
}
