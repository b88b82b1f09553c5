import type { z } from 'zod';
import type { ErrorReason } from '@oh/schema';

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

/**
 * A value accepted in a different, preferred form than it was written, and why: a deprecated or
 * aliased language tag (`en-UK` → `en-GB`). Changes of spelling only (letter case, a decimal's
 * leading zeros) are not reported; they do not change what the value says.
 */
export interface ProfileNormalization {
  /** Dotted path, as in `ProfileIssue`. */
  path: string;
  /** The value as written. */
  from: string;
  /** The value as stored. */
  to: string;
  /** In plain words, e.g. `UK is not a region code in the IANA registry; CLDR maps it to GB (United Kingdom)`. */
  why: string;
}

/** A normalisation as the codecs build it, before the path is joined. */
export interface RawNormalization {
  path: PathSegment[];
  from: string;
  to: string;
  why: string;
}

export type ProfileErrorReason = Extract<ErrorReason, 'invalid_input' | 'not_found' | 'integrity'>;

/**
 * Raised by the loader (malformed pack: `invalid_input`; digest mismatch: `integrity`), by the
 * registry (unknown pack: `not_found`) and by `decode`/`encode` given a bad value (`invalid_input`).
 * Its `reason` is one of Oh's refusal reasons (@oh/schema), so a caller maps it like the store's
 * `MemoryError`; it also carries every problem found, each with its path.
 */
export class ProfileError extends Error {
  override readonly name = 'ProfileError';
  readonly reason: ProfileErrorReason;
  readonly issues: ProfileIssue[];

  constructor(
    reason: ProfileErrorReason,
    message: string,
    issues: ProfileIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.issues = issues;
  }
}

function joinPath(path: readonly PathSegment[]): string {
  return path.map(String).join('.');
}

export function toIssues(raw: readonly RawIssue[], prefix: readonly PathSegment[] = []): ProfileIssue[] {
  return raw.map((i) => ({ path: joinPath([...prefix, ...i.path]), message: i.message }));
}

export function toNormalizations(
  raw: readonly RawNormalization[],
  prefix: readonly PathSegment[] = [],
): ProfileNormalization[] {
  return raw.map((n) => ({ path: joinPath([...prefix, ...n.path]), from: n.from, to: n.to, why: n.why }));
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
