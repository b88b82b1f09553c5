/**
 * The cap on upload bodies being received at once (SPEC §6b "Fair and bounded"). tRPC buffers an
 * upload's whole form before the procedure runs, so without it a burst of 20 MiB uploads would
 * take as much memory as it liked before the extraction queue could say no. Past the cap an
 * upload is answered 429 `busy` (server.ts reads its body and throws it away, never keeping it).
 *
 * With the queue's own bounds this bounds what uploads can hold: bodies being received (this
 * cap), files waiting and files being read (upload-queue.ts), each at most the file limit.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.ts';

/** How soon a refused upload may try again: receiving a body takes seconds, not minutes (not measured). */
const RETRY_AFTER_SECONDS = 2;

export interface UploadsInFlight {
  /**
   * Counts `req` until its body has been read or the request has ended; false (nothing
   * counted) when `max` bodies are being received already.
   */
  enter(req: IncomingMessage): boolean;
  count(): number;
  /** The 429 `busy` a refused upload gets. */
  busy(): ApiError;
}

export function createUploadsInFlight(max: number): UploadsInFlight {
  let count = 0;
  return {
    enter(req) {
      if (count >= max) return false;
      count++;
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        count--;
      };
      req.once('end', leave);
      req.once('close', leave);
      return true;
    },
    count: () => count,
    busy: () =>
      new ApiError({
        code: 'TOO_MANY_REQUESTS',
        reason: 'busy',
        message: `${max} uploads are being received already. The server is busy; try again in ${RETRY_AFTER_SECONDS} s.`,
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      }),
  };
}

/**
 * tRPC's `responseMeta` for the upload handler: a `Retry-After` header beside a `busy` answer's
 * `retryAfterSeconds`, for clients that read the header rather than the body.
 */
export function retryAfterMeta(opts: { data: readonly unknown[] }): { headers?: Record<string, string> } {
  for (const item of opts.data) {
    const seconds = (item as { error?: { data?: { retryAfterSeconds?: unknown } } }).error?.data
      ?.retryAfterSeconds;
    if (typeof seconds === 'number') return { headers: { 'retry-after': String(seconds) } };
  }
  return {};
}
