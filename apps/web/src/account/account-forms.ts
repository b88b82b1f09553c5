// The account forms' checks before sending (SPEC §6c): the contract's own schemas decide what is
// wrong, so the page refuses what the API would, and the words here say it to a person. Password
// length is counted in characters as a person counts them (an emoji is one), as the page states
// the rule, so the page may ask for a little more than the API's count of UTF-16 units.
import { emailSchema, ownerInputs, passwordSchema, personNameSchema } from '@sponge/contract';

export interface PasswordRules {
  minLength: number;
  maxLength: number;
}

export type SignUpProblems = Partial<Record<'name' | 'email' | 'password', string>>;
export type SignInProblems = Partial<Record<'email' | 'password', string>>;

const apiKeyLabelSchema = ownerInputs['auth.createApiKey'].shape.label;
// A name, a password and a label are all plain strings to zod; an email is a pipe.
type TextSchema = typeof emailSchema | typeof passwordSchema;

/** The first issue of a failed parse, or null when the value passes. */
function firstIssue(schema: TextSchema, value: string): { code: string; message: string } | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0] ?? null);
}

/** A text rule the contract enforces (no U+0000, no lone surrogates): its own words, as a sentence. */
function sentence(message: string): string {
  const text = message.trim();
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

function emailProblem(email: string, empty = 'Enter your email address.'): string | undefined {
  if (!email.trim()) return empty;
  const issue = firstIssue(emailSchema, email);
  if (!issue) return undefined;
  if (issue.code === 'too_big') return 'An email address is at most 254 characters.';
  if (issue.code === 'custom') return sentence(issue.message);
  return 'Enter an email address like name@example.org.';
}

/** What is wrong with a sign-up form, field by field, in words; null when it can be sent. */
export function signUpProblems(
  input: { name: string; email: string; password: string },
  rules: PasswordRules,
): SignUpProblems | null {
  const found: SignUpProblems = {};

  const nameIssue = firstIssue(personNameSchema, input.name);
  if (nameIssue) {
    found.name =
      nameIssue.code === 'too_small'
        ? 'Enter your name.'
        : nameIssue.code === 'too_big'
          ? 'A name is at most 100 characters.'
          : sentence(nameIssue.message);
  }

  const email = emailProblem(input.email);
  if (email) found.email = email;

  const passwordIssue = firstIssue(passwordSchema, input.password);
  const length = [...input.password].length;
  if (!input.password) found.password = 'Choose a password.';
  else if (passwordIssue?.code === 'too_small' || length < rules.minLength)
    found.password = `A password has at least ${rules.minLength} characters; this one has ${length}.`;
  else if (passwordIssue?.code === 'too_big' || length > rules.maxLength)
    found.password = `A password has at most ${rules.maxLength} characters; this one has ${length}.`;
  else if (passwordIssue) found.password = sentence(passwordIssue.message);

  return Object.keys(found).length > 0 ? found : null;
}

/**
 * What is missing from a sign-in form; null when it can be sent. Only the shape is checked: any
 * password goes to the server, which alone says whether it is right (no hint from the length).
 */
export function signInProblems(input: { email: string; password: string }): SignInProblems | null {
  const found: SignInProblems = {};
  const email = emailProblem(input.email);
  if (email) found.email = email;
  if (!input.password) found.password = 'Enter your password.';
  return Object.keys(found).length > 0 ? found : null;
}

/** What is wrong with a new API key's label, in words; undefined when it can be sent. */
export function apiKeyLabelProblem(label: string): string | undefined {
  const issue = firstIssue(apiKeyLabelSchema, label);
  if (!issue) return undefined;
  if (issue.code === 'too_small') return 'Give the key a label, so you know later where it is used.';
  if (issue.code === 'too_big') return 'A label is at most 100 characters.';
  return sentence(issue.message);
}

/** The password rules as the sign-up page shows them. */
export function passwordRulesText(rules: PasswordRules): string {
  return `At least ${rules.minLength} characters (at most ${rules.maxLength}). A few unrelated words make a good one.`;
}

/**
 * Any origin does as the base: only whether `next` stays on it matters, and the sign-in page is
 * also rendered where there is no `window` (its tests).
 */
const THIS_SITE = 'https://this-site.invalid';

/**
 * Where to go after signing in: a path of this site, never another origin. `next` is resolved as
 * the browser will resolve it (which drops tabs and line breaks, reads `\\` as `/` and removes dot
 * segments, so `/\t/evil.example` is `//evil.example`), and only its path, query and fragment are
 * kept, and only when they stay here; anything else is the library (`/`).
 */
export function safeNext(next: string | null, origin: string = THIS_SITE): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  if (url.origin !== origin) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can leave a path that starts `//host`: another origin once it is used in turn.
  return new URL(path, origin).origin === origin ? path : '/';
}

/**
 * An MCP client's authorization request (`/oauth/…`, answered by the API, not by this app's
 * router): after signing in the browser goes there itself, and on to the consent page.
 */
export function isServerNext(next: string): boolean {
  return next.startsWith('/oauth/');
}

/** Goes on to `next` after signing in: within the app, or to the API for an authorization request. */
export async function goNext(next: string, navigate: (to: string, opts: { replace: true }) => unknown) {
  if (isServerNext(next)) window.location.replace(next);
  else await navigate(next, { replace: true });
}

/** What is wrong with the address a document is shared with; undefined when it can be sent. */
export const shareEmailProblem = (email: string): string | undefined =>
  emailProblem(email, "Enter the person's email address.");

/**
 * The API's per-field problems (`errorIssues`) for the fields of one form, as sentences; the
 * first problem of a field wins.
 */
export function issuesByField<F extends string>(
  issues: ReadonlyArray<{ path: string; message: string }>,
  fields: readonly F[],
): Partial<Record<F, string>> {
  const found: Partial<Record<F, string>> = {};
  for (const issue of issues) {
    const field = fields.find((f) => f === issue.path);
    if (field && !found[field]) found[field] = sentence(issue.message);
  }
  return found;
}
