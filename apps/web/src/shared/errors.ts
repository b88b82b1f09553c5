import { TRPCClientError } from '@trpc/client';

/**
 * The tRPC error code of a failed call (`NOT_FOUND`, `UNAUTHORIZED`, …), or `null` for a
 * network failure or a server error (5xx), which are worth retrying.
 */
export function errorCode(error: unknown): string | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data: unknown = error.data;
  if (!data || typeof data !== 'object') return null;
  const { code, httpStatus } = data as { code?: unknown; httpStatus?: unknown };
  if (typeof httpStatus === 'number' && httpStatus >= 500) return null;
  return typeof code === 'string' ? code : null;
}

export const isNotFound = (error: unknown): boolean => errorCode(error) === 'NOT_FOUND';

/** A sentence for a person; tRPC messages are written for people by the API (SPEC §9). */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError && error.message) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return 'Something went wrong.';
}

/** The API's per-field problems (`data.issues`: `{ path: 'fields.effect.unit', message }`), if any. */
export function errorIssues(error: unknown): Array<{ path: string; message: string }> {
  if (!(error instanceof TRPCClientError)) return [];
  const issues: unknown = (error.data as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.flatMap((i: unknown) => {
    if (!i || typeof i !== 'object') return [];
    const { path, message } = i as { path?: unknown; message?: unknown };
    return typeof path === 'string' && typeof message === 'string' ? [{ path, message }] : [];
  });
}
