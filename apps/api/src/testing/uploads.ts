/**
 * What the upload tests share: a file POSTed to documents.upload as a client sends it (multipart,
 * a bearer token), an answer that may come after the test ends, and waiting for a state the
 * server reaches on its own (a job queued, a thread started, a place taken).
 */
import type { Json, TestServer } from './harness.ts';

export interface UploadAnswer {
  status: number;
  /** The Retry-After header, when the answer has one. */
  retryAfter: string | null;
  body: Json;
}

/**
 * POSTs one file to documents.upload: a PDF's bytes, or a text's (`type`); `signal` lets the
 * test walk away from it.
 */
export async function upload(
  s: TestServer,
  token: string,
  bytes: Uint8Array | string,
  name: string,
  options: { type?: string; signal?: AbortSignal } = {},
): Promise<UploadAnswer> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: options.type ?? 'application/pdf' }), name);
  const res = await fetch(`${s.url}/trpc/documents.upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: JSON.parse(await res.text()),
  };
}

/** A request whose answer may come after the test ends (the server is closed under it). */
export function pending<T>(p: Promise<T>): { settled: () => boolean; answer: Promise<T | Error> } {
  let done = false;
  const answer = p.then(
    (a) => ((done = true), a),
    (e: Error) => ((done = true), e),
  );
  return { settled: () => done, answer };
}

/** Waits for a condition the server reaches on its own, looking every 10 ms. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setTimeout(r, 10));
}
