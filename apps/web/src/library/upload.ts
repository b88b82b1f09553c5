// `documents.upload` (SPEC §6b): one file as multipart/form-data, straight to tRPC's endpoint.
// Through XMLHttpRequest, not the tRPC client or fetch: only XHR reports upload progress. The
// session cookie goes along on its own (same origin). Answers are turned into plain words here,
// so the dialog only shows them.
import { SPONGE_LIMITS } from '@sponge/contract';
import type { RouterOutputs } from '../trpc.ts';

const UPLOAD_URL = '/trpc/documents.upload';

/** For the file picker: what the API can read. */
export const ACCEPT = '.pdf,.txt,.md,text/plain,text/markdown,application/pdf';
const EXTENSIONS = ['.pdf', '.txt', '.md', '.markdown'];
const TYPES = ['application/pdf', 'text/plain', 'text/markdown', 'text/x-markdown'];

/** What the dialog shows of the API's answer, and all that `isUploaded` checks is there. */
export type UploadedDocument = Pick<
  RouterOutputs['documents']['upload'],
  'id' | 'title' | 'pages' | 'characters'
>;

/** Why an upload failed: the API's reason, or what went wrong on the way. */
type UploadFailure =
  | 'invalid_document'
  | 'no_text'
  | 'too_large'
  | 'invalid_input'
  | 'unauthenticated'
  | 'busy'
  | 'quota'
  | 'network'
  | 'aborted'
  | 'server';

type UploadOutcome =
  | { ok: true; document: UploadedDocument }
  /** The library already has these bytes or this DOI (SPEC §6d): nothing was stored. */
  | { ok: false; reason: 'duplicate'; message: string; existingId: string }
  | { ok: false; reason: UploadFailure; message: string };

/** "512 bytes", "14 KB", "3.4 MB" (binary units, as the limit is set). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${Math.round(kb)} KB`;
  const mb = kb / 1024;
  return `${mb < 10 ? mb.toFixed(1).replace(/\.0$/u, '') : Math.round(mb)} MB`;
}

/** Refuses, before sending, what the API would refuse by its size or its kind; null when fine. */
export function checkFile(file: { name: string; size: number; type: string }): string | null {
  if (file.size > SPONGE_LIMITS.uploadBytes) {
    return `This file is ${formatBytes(file.size)}; a file can be at most ${formatBytes(SPONGE_LIMITS.uploadBytes)}.`;
  }
  const name = file.name.toLowerCase();
  if (!EXTENSIONS.some((ext) => name.endsWith(ext)) && !TYPES.includes(file.type)) {
    return 'Only PDF, plain-text (.txt) and Markdown (.md) files can be added.';
  }
  return null;
}

const WORDS: Partial<Record<UploadFailure, string>> = {
  unauthenticated: 'You are signed out. Sign in again, then add the file once more.',
  network: 'The upload did not reach the server (network failure). Check the connection and try again.',
  aborted: 'The upload was cancelled.',
};

/**
 * The answer of POST /trpc/documents.upload, as an outcome: `{ result: { data } }` or
 * `{ error: { message, data: { reason, httpStatus } } }`. The API's own message is shown for the
 * document refusals (it names the limit, or says that scanned pages need OCR); an answer that is
 * not tRPC's (a proxy's 413 or 502 page) is said by its status.
 */
export function readUploadAnswer(status: number, body: string): UploadOutcome {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  const answer = (json && typeof json === 'object' ? json : {}) as {
    result?: { data?: unknown };
    error?: {
      message?: unknown;
      data?: { reason?: unknown; retryAfterSeconds?: unknown; existingId?: unknown };
    };
  };
  const data = answer.result?.data;
  if (status >= 200 && status < 300 && isUploaded(data)) return { ok: true, document: data };
  const apiMessage = typeof answer.error?.message === 'string' ? answer.error.message.trim() : '';
  const existingId = answer.error?.data?.existingId;
  if (answer.error?.data?.reason === 'duplicate' && typeof existingId === 'string' && existingId !== '')
    return { ok: false, reason: 'duplicate', message: apiMessage, existingId };

  const reason = readReason(answer.error?.data?.reason, status);
  if (reason === 'busy')
    return { ok: false, reason, message: busyWords(answer.error?.data?.retryAfterSeconds) };
  const message =
    WORDS[reason] ??
    (apiMessage ||
      (reason === 'too_large'
        ? `The file is larger than the server accepts (at most ${formatBytes(SPONGE_LIMITS.uploadBytes)}).`
        : `The server could not add the file (HTTP ${status}). Try again later.`));
  return { ok: false, reason, message };
}

function readReason(reason: unknown, status: number): UploadFailure {
  switch (reason) {
    case 'invalid_document':
    case 'no_text':
    case 'too_large':
    case 'invalid_input':
    case 'unauthenticated':
    case 'busy':
    case 'quota':
      return reason;
  }
  if (status === 413) return 'too_large';
  if (status === 429) return 'busy';
  if (status === 401) return 'unauthenticated';
  if (status === 400) return 'invalid_input';
  return 'server';
}

/**
 * A full upload queue (SPEC §6b): the file was not kept, and the answer says when to send it
 * again (`retryAfterSeconds`).
 */
function busyWords(retryAfterSeconds: unknown): string {
  const seconds =
    typeof retryAfterSeconds === 'number' && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0
      ? Math.ceil(retryAfterSeconds)
      : null;
  return seconds === null
    ? 'The server is busy; try again in a moment.'
    : `The server is busy; try again in ${seconds} s.`;
}

function isUploaded(data: unknown): data is UploadedDocument {
  if (!data || typeof data !== 'object') return false;
  const d = data as Record<string, unknown>;
  return (
    typeof d.id === 'string' &&
    typeof d.title === 'string' &&
    typeof d.pages === 'number' &&
    typeof d.characters === 'number'
  );
}

/**
 * Sends one file; `onProgress` gets the share sent so far (0..1). Never rejects: every failure,
 * the network's included, comes back as an outcome with its words.
 */
export function uploadDocument(
  file: File,
  options: { title?: string; onProgress?: (sent: number) => void; signal?: AbortSignal } = {},
): Promise<UploadOutcome> {
  const body = new FormData();
  body.append('file', file, file.name);
  if (options.title) body.append('title', options.title);
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    const fail = (reason: UploadFailure) => resolve({ ok: false, reason, message: WORDS[reason] ?? '' });
    xhr.open('POST', UPLOAD_URL);
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) options.onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => resolve(readUploadAnswer(xhr.status, xhr.responseText));
    xhr.onerror = () => fail('network');
    xhr.ontimeout = () => fail('network');
    xhr.onabort = () => fail('aborted');
    options.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}
