/**
 * How big a request's body may be (and whether it is JSON), and the defaults of the upload places
 * (http/upload-places.ts) the configuration may change. Only the contract's limits imported, so
 * the configuration stays light.
 */
import { SPONGE_LIMITS } from '@sponge/contract';

/** A JSON body's limit (tRPC and /mcp); the error formatter names it (trpc/procedures.ts). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_BODY_LABEL = '4 MiB';

/** Whether a Content-Type names such a body (`application/json`, its parameters aside). */
export function isJsonContentType(value: string | undefined): boolean {
  return value !== undefined && value.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * `documents.upload` alone takes a bigger body: the file limit plus room for the form's own
 * parts (boundaries, headers, the title). server.ts enforces it while the body streams in.
 */
export const MAX_UPLOAD_BODY_BYTES = SPONGE_LIMITS.uploadBytes + 64 * 1024;
export const UPLOAD_LIMIT_LABEL = `${SPONGE_LIMITS.uploadBytes / 1024 / 1024} MiB`;
/** `documents.import`'s: a reference manager's export with its PDFs (SPEC §6d), and the form's parts. */
export const MAX_IMPORT_BODY_BYTES = SPONGE_LIMITS.importBytes + 64 * 1024;

/**
 * Upload bodies received at once, by every API process on the application database together
 * (UPLOADS_IN_FLIGHT). Each may hold up to the 20 MiB file limit in memory (twice, while the form
 * is parsed), so this with the extraction queue's size bounds what uploads can take. Not
 * measured: a bound on memory (4 × 2 × 20 MiB), not a throughput choice.
 */
export const DEFAULT_UPLOADS_IN_FLIGHT = 4;

/**
 * Of those, one owner's at most (UPLOADS_IN_FLIGHT_PER_OWNER): one owner's bodies (or slow
 * connections) never hold every place. Two, so two tabs of one person both upload; the web app
 * sends one file at a time.
 */
export const DEFAULT_UPLOADS_IN_FLIGHT_PER_OWNER = 2;
