import type { z } from 'zod';
import { MemoryError } from '../errors.ts';
import type { ErrorReason } from '../types.ts';

/** One problem, located by a dotted path such as `kinds.finding.fields.effect.codec.type`. */
export interface ProfileIssue {
  /** Dotted path to the offending value; `''` is the value itself. */
  path: string;
  message: string;
}

export type PathSegment = string | number;

/** An issue as the codecs build it, before the path is joined. */
export interface RawIssue {
  path: PathSegment[];
  message: string;
}

export type ProfileErrorReason = Extract<ErrorReason, 'invalid_input' | 'not_found' | 'integrity'>;

/**
 * Raised by the loader (malformed pack: `invalid_input`; digest mismatch: `integrity`), by the
 * registry (unknown pack: `not_found`) and by `decode`/`encode` given a bad value (`invalid_input`).
 * It is a `MemoryError` (the package's one error class, so the API maps it like any other) that
 * also carries every problem found, each with its path.
 */
export class ProfileError extends MemoryError {
  declare readonly reason: ProfileErrorReason;
  readonly issues: ProfileIssue[];

  constructor(
    reason: ProfileErrorReason,
    message: string,
    issues: ProfileIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(reason, message, options);
    this.issues = issues;
  }
}

export function joinPath(path: readonly PathSegment[]): string {
  return path.map(String).join('.');
}

export function toIssues(raw: readonly RawIssue[], prefix: readonly PathSegment[] = []): ProfileIssue[] {
  return raw.map((i) => ({ path: joinPath([...prefix, ...i.path]), message: i.message }));
}

/** `path: message` lines, the form the loader's error message uses. */
export function formatIssues(issues: readonly ProfileIssue[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('\n');
}

/** Zod issues as profile issues; a bad record key says which key and why (zod only says "Invalid key"). */
export function fromZod(error: z.ZodError): ProfileIssue[] {
  return error.issues.map((i) => {
    const path = joinPath(i.path as PathSegment[]);
    if (i.code === 'invalid_key') {
      const key = String(i.path.at(-1));
      const why = i.issues[0]?.message;
      return { path, message: `"${key}" is not allowed here${why ? `: ${why}` : ''}` };
    }
    return { path, message: i.message };
  });
}
