/**
 * The error contract (SPEC §9): every refusal is a tRPC `code` plus a machine-readable `reason`
 * in `error.data`. The codes are tRPC's names, written out here so the contract needs no server.
 */

import { ERROR_REASONS } from '@oh/schema';
import type { ErrorReason } from '@oh/schema';

/** The reasons the store gives are Oh's (`@oh/schema`); the API adds its own below. */
export { ERROR_REASONS };
export type { ErrorReason };

/** Refusals of an added or uploaded document (SPEC §6b), given by the API, not the store. */
export const DOCUMENT_REASONS = ['invalid_document', 'no_text', 'too_large'] as const;
export type DocumentReason = (typeof DOCUMENT_REASONS)[number];
export const DOCUMENT_REASON_TO_CODE = {
  invalid_document: 'BAD_REQUEST',
  no_text: 'BAD_REQUEST',
  too_large: 'PAYLOAD_TOO_LARGE',
} as const satisfies Record<DocumentReason, ErrorCode>;

/**
 * Every reason on the wire: the store's, the library's, the API's run cut-off, a full extraction
 * queue (`busy`, with `retryAfterSeconds`), a run another runtime's lease holds (`claimed`, with
 * `leaseExpiresAt`), too many failed sign-ins or sign-ups (`rate_limited`, with
 * `retryAfterSeconds`), an email that already has an account at sign-up (`email_taken`), a
 * document the owner already has — the same bytes or DOI (`duplicate`, CONFLICT, with
 * `existingId`, SPEC §6d), an
 * upload whose body stopped arriving (`too_slow`, 408) and an opaque internal failure.
 */
export const API_REASONS = [
  ...ERROR_REASONS,
  ...DOCUMENT_REASONS,
  'runs_closed',
  'busy',
  'claimed',
  'rate_limited',
  'email_taken',
  'duplicate',
  'too_slow',
  'internal',
] as const;
export type ApiReason = (typeof API_REASONS)[number];

type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE_CONTENT'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'SERVICE_UNAVAILABLE';

/**
 * The tRPC code for each store reason, as SPEC §9 lists them. `unavailable` (503) is a database
 * that cannot be reached (a libSQL server down or restarting): nothing is known about a write in
 * flight, and the same call sent again with the same requestId is applied at most once.
 */
export const REASON_TO_CODE: Record<ErrorReason, ErrorCode> = {
  stale_version: 'CONFLICT',
  name_exists: 'CONFLICT',
  no_such_note: 'NOT_FOUND',
  request_id_reused: 'UNPROCESSABLE_CONTENT',
  session_closed: 'PRECONDITION_FAILED',
  memory_off: 'PRECONDITION_FAILED',
  stale_digest: 'CONFLICT',
  explain_token_invalid: 'BAD_REQUEST',
  invalid_input: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  quota: 'TOO_MANY_REQUESTS',
  integrity: 'INTERNAL_SERVER_ERROR',
  unavailable: 'SERVICE_UNAVAILABLE',
};
