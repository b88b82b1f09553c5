/**
 * The review workbench (SPEC §7): the owner turns a proposal — usually a working note — into a
 * decision on record. A decision needs a kind of a profile installed on the document with fields
 * that validate against the release installed there (not a newer one shipped since), a source
 * document of the owner's library and a passage that occurs in that document's text, plus the
 * decision and a comment. `accept` makes the document's next reviewed revision holding the record;
 * `reject` records the decision only. Either way the record's data names the profile version that
 * validated it, and the decision keeps that release's digest. The record's reference fields (a
 * finding's study…) become its `depends_on` links, and an accept needs every record they name to
 * be reviewed knowledge of the document already. Notes are never evidence: there is no way to
 * make a reviewed record without a source and a passage.
 *
 * New runs pin the newest revision (runs.accept); a session already running keeps the revision it
 * pinned, so an accept here never changes what a running agent sees.
 */
import type { TRPCRouterRecord } from '@trpc/server';
import { validateRecord } from '@oh/profiles';
import type { RecordResult } from '@oh/profiles';
import { LIMITS, kindOf, normalisePassage, ownerInputs, passageOccursIn } from '@sponge/contract';
import type { JsonValue, Link, ReviewDecideInput } from '@sponge/contract';
import { requireOwnedDocument } from '../access.ts';
import { getVisibleDocument } from '@sponge/library';
import { getInstalledProfile, installedPack } from '../data/profiles.ts';
import type { AppDeps } from '../deps.ts';
import { ApiError, notFound } from '../errors.ts';
import { reviewExport, reviewExportInputSchema, reviewHistory } from '../reviewed/history.ts';
import { linkIssues, referenceLinks } from '../reviewed/links.ts';
import type { ReferenceLink } from '../reviewed/links.ts';
import { ownerProcedure } from '../trpc.ts';

export const reviewDecideInputSchema = ownerInputs['review.decide'];
export type { ReviewDecideInput };

export interface ReviewIssue {
  path: Array<string | number>;
  message: string;
}

/**
 * BAD_REQUEST / invalid_input carrying every problem with its path (`fields.effect.unit`,
 * `passage`…); the error formatter puts them in `data.issues` and names them in the message.
 */
export function invalidIssues(issues: ReviewIssue[]): ApiError {
  const described = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return new ApiError({
    code: 'BAD_REQUEST',
    reason: 'invalid_input',
    message: `Invalid input: ${described}`,
    cause: Object.assign(new Error(described), { issues }),
  });
}

/** The reviewed record's `data`: the profile release that validated it, its fields in canonical form. */
export interface ReviewedData {
  profile: string;
  /** The version installed on the document at the decision, which stays on record after upgrades. */
  version: string;
  fields: Record<string, JsonValue>;
}

/** A value a codec rewrote to its preferred form (e.g. the language tag `en-UK` → `en-GB`). */
export interface Normalization {
  /** Relative to the fields, like an issue's path without `fields.` (`language`, `versions.1.doi`). */
  path: string;
  from: string;
  to: string;
  why: string;
}

export interface ReviewOutcome {
  id: string;
  decision: 'accept' | 'reject';
  name: string;
  kind: string;
  digest: string;
  /** The record's links, derived from its reference fields (reviewed/links.ts). */
  links: Link[];
  /** The profile release that validated the fields. */
  profile: { name: string; version: string; digest: string };
  /** What the codecs rewrote to its preferred form; the record holds the `to` values. */
  normalized: Normalization[];
  /** The revision the accept created; null for a reject. */
  revision: number | null;
  /** The document's newest revision after this decision. */
  latestRevision: number;
  /** The passage as recorded (whitespace-normalised). */
  passage: string;
  at: string;
}

/** The codecs' rewrites, when the profile code reports them (empty otherwise). */
function normalizedOf(result: RecordResult): Normalization[] {
  const list = (result as { normalized?: unknown }).normalized;
  return Array.isArray(list) ? (list as Normalization[]) : [];
}

/**
 * Checks a proposal and records the decision. Shared by `review.decide` and the demo seed, so
 * the seeded reviewed record passes exactly the checks a person's review does.
 */
export async function decideReview(
  deps: AppDeps,
  reviewerId: string,
  input: ReviewDecideInput,
): Promise<ReviewOutcome> {
  await requireOwnedDocument(deps, reviewerId, input.documentId);

  // Provenance: the note must be one of this document's sessions, still there to be read.
  if ((input.fromSession === undefined) !== (input.fromNote === undefined)) {
    throw invalidIssues([
      {
        path: [input.fromSession === undefined ? 'fromSession' : 'fromNote'],
        message: 'fromSession and fromNote go together',
      },
    ]);
  }
  if (input.fromSession !== undefined && input.fromNote !== undefined) {
    const session = await deps.store.getSession(input.fromSession);
    if (!session || session.documentId !== input.documentId || session.ownerId !== reviewerId)
      throw notFound('The session');
    const notes = await deps.store.notes(session.id);
    if (!notes.some((n) => n.name === input.fromNote)) throw notFound('The working note');
  }

  // The source must be a document the reviewer can read in the library (own, shared or public).
  const source = await getVisibleDocument(deps.app, reviewerId, input.sourceDocumentId);
  if (!source) throw notFound('The source document');

  const issues: ReviewIssue[] = [];
  let data: ReviewedData | null = null;
  let normalized: Normalization[] = [];
  let refs: ReferenceLink[] = [];
  const installed = await getInstalledProfile(deps.app, input.documentId, input.profile);
  const pack = installed && (await installedPack(deps.app, installed));
  if (!installed) {
    issues.push({
      path: ['profile'],
      message: `the ${input.profile} profile is not installed on this document`,
    });
  } else if (!pack) {
    issues.push({
      path: ['profile'],
      message: `version ${installed.version} of the ${installed.profile} profile, installed on this document, is no longer available: install the profile again to review with its current version`,
    });
  } else if (!Object.hasOwn(pack.kinds, input.kind)) {
    issues.push({
      path: ['kind'],
      message: `${input.kind} is not a kind of the ${pack.name} profile (kinds: ${Object.keys(pack.kinds).sort().join(', ')})`,
    });
  } else {
    const checked = validateRecord(pack, input.kind, input.fields);
    if (checked.ok) {
      data = { profile: pack.name, version: pack.version, fields: checked.value };
      normalized = normalizedOf(checked);
      refs = referenceLinks(pack, input.kind, checked.value);
    } else {
      for (const e of checked.errors) {
        issues.push({ path: ['fields', ...(e.path === '' ? [] : e.path.split('.'))], message: e.message });
      }
    }
  }
  if (kindOf(input.name) !== input.kind) {
    issues.push({
      path: ['name'],
      message: `a ${input.kind} record is named ${input.kind}:slug, got ${input.name}`,
    });
  }
  if (input.text.trim() === '') issues.push({ path: ['text'], message: 'text must not be empty' });
  if (input.comment.trim() === '') issues.push({ path: ['comment'], message: 'a decision needs a comment' });
  const passage = normalisePassage(input.passage);
  if (passage === '') issues.push({ path: ['passage'], message: 'passage must not be empty' });
  else if (!passageOccursIn(passage, source.text))
    issues.push({ path: ['passage'], message: 'passage not found in the source' });
  // An accepted record's links must reach records already accepted on this document; records
  // never leave view, so what is there now is there at the revision this accept makes.
  if (input.decision === 'accept' && refs.length > 0) {
    const latest = await deps.reviewed.latestRevision(input.documentId);
    const inView = new Set((await deps.reviewed.recordsAt(input.documentId, latest)).map((r) => r.name));
    issues.push(...linkIssues(input.name, refs, inView));
  } else if (refs.length > LIMITS.linksPerRecord) {
    issues.push(...linkIssues(input.name, refs, new Set()));
  }
  if (issues.length > 0 || data === null || !pack) throw invalidIssues(issues);
  const profile = { name: pack.name, version: pack.version, digest: pack.digest };

  const decided = await deps.reviewed.decide({
    documentId: input.documentId,
    reviewerId,
    decision: input.decision,
    comment: input.comment,
    record: {
      name: input.name,
      text: input.text,
      data: data as unknown as JsonValue,
      links: refs.map((r) => r.link),
    },
    sourceDocumentId: source.id,
    passage,
    profile,
    ...(input.fromSession !== undefined && input.fromNote !== undefined
      ? { proposedFrom: `note:${input.fromSession}:${input.fromNote}` }
      : {}),
  });
  return {
    id: decided.id,
    decision: decided.decision,
    name: decided.name,
    kind: input.kind,
    digest: decided.digest,
    links: decided.links,
    profile,
    normalized,
    revision: decided.revision,
    latestRevision: decided.revision ?? (await deps.reviewed.latestRevision(input.documentId)),
    passage: decided.passage,
    at: decided.at,
  };
}

export const reviewRouter = {
  /** Propose and decide in one step (the workbench's "Record decision"). Owner only. */
  decide: ownerProcedure
    .input(reviewDecideInputSchema)
    .mutation(({ ctx, input }) => decideReview(ctx.deps, ctx.user.id, input)),

  /**
   * Every decision on the document, newest first: the record as decided (text, profile fields,
   * links), the profile release, the reviewer, the comment and the cited passage. Owner only.
   */
  history: ownerProcedure
    .input(ownerInputs['review.history'])
    .query(({ ctx, input }) => reviewHistory(ctx.deps, ctx.user.id, input.documentId)),

  /** The records in view at a revision (the newest by default) with their provenance, as canonical JSON. Owner only. */
  export: ownerProcedure
    .input(reviewExportInputSchema)
    .query(({ ctx, input }) => reviewExport(ctx.deps, ctx.user.id, input)),
} satisfies TRPCRouterRecord;
