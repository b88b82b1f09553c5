/** Why the notebook store refused a call: the machine-readable reason every refusal carries. */
export const ERROR_REASONS = [
  'stale_version',
  'name_exists',
  'no_such_note',
  'request_id_reused',
  'session_closed',
  'memory_off',
  'stale_digest',
  'explain_token_invalid',
  'invalid_input',
  'unauthenticated',
  'forbidden',
  'not_found',
  'quota',
  'integrity',
  'unavailable',
] as const;
export type ErrorReason = (typeof ERROR_REASONS)[number];
