/**
 * The review workbench's decision (SPEC §7): the owner turns a proposal — usually a working note —
 * into a decision on record. A decision needs a kind of a profile installed on the document with
 * fields that validate against the release installed there (not a newer one shipped since), a
 * source document the reviewer can read and a passage that occurs in that document's text, plus
 * the decision and a comment. `accept` makes the document's next reviewed revision holding the
 * record; `reject` records the decision only. Either way the record's data names the profile
 * version that validated it, and the decision keeps that release's digest. The record's reference
 * fields (a finding's study…) become its `depends_on` links, and an accept needs every record they
 * name to be reviewed knowledge of the document already. Notes are never evidence: there is no way
 * to make a reviewed record without a source and a passage.
 *
 * New runs pin the newest revision; a session already running keeps the revision it pinned, so an
 * accept never changes what a running agent sees.
 */
import type { Client } from '@libsql/client';
import type { MemoryStore } from '@oh/memory';
import { validateRecord } from '@oh/profiles';
import type { RecordResult } from '@oh/profiles';
import { LIMITS, kindOf, normalisePassage, passageOccursIn } from '@sponge/contract';
import type { JsonValue, Link, ReviewDecideInput } from '@sponge/contract';
import { getVisibleDocument } from '@sponge/library';
import { invalidIssues, notFound } from './errors.ts';
import type { ReviewIssue } from './errors.ts';
import { linkIssues, referenceLinks } from './links.ts';
import type { ReferenceLink } from './links.ts';
import { requireOwnDocument } from './own-document.ts';
import { getInstalledProfile, installedPack } from './profiles.ts';
import type { ReviewedKnowledge } from './types.ts';

/** Where a proposal may come from: a working note of one of the document's sessions (Oh's store). */
export type Notebook = Pick<MemoryStore, 'getSession' | 'notes'>;

/** What a decision is checked against and recorded in. */
export interface ReviewDesk {
  /** The application database: the library's documents, the profiles installed on them. */
  db: Client;
  reviewed: ReviewedKnowledge;
  notebook: Notebook;
}

/** The reviewed record's `data`: the profile release that validated it, its fields in canonical form. */
interface ReviewedData {
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
 * Checks a proposal and records the decision, for the owner of the document only (`not_found`
 * otherwise); every problem with the proposal is named in one `invalid_input`. Shared by the API's
 * `review.decide` and its demo seed, so a seeded reviewed record passes exactly the checks a
 * person's review does.
 */
export async function decideReview(
  { db, reviewed, notebook }: ReviewDesk,
  reviewerId: string,
  input: ReviewDecideInput,
): Promise<ReviewOutcome> {
  await requireOwnDocument(db, reviewerId, input.documentId);

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
    const session = await notebook.getSession(input.fromSession);
    if (!session || session.documentId !== input.documentId || session.ownerId !== reviewerId)
      throw notFound('The session');
    const notes = await notebook.notes(session.id);
    if (!notes.some((n) => n.name === input.fromNote)) throw notFound('The working note');
  }

  // The source must be a document the reviewer can read in the library (own, shared or public).
  const source = await getVisibleDocument(db, reviewerId, input.sourceDocumentId);
  if (!source) throw notFound('The source document');

  const issues: ReviewIssue[] = [];
  let data: ReviewedData | null = null;
  let normalized: Normalization[] = [];
  let refs: ReferenceLink[] = [];
  const installed = await getInstalledProfile(db, input.documentId, input.profile);
  const pack = installed && (await installedPack(db, installed));
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
    const latest = await reviewed.latestRevision(input.documentId);
    const inView = new Set((await reviewed.recordsAt(input.documentId, latest)).map((r) => r.name));
    issues.push(...linkIssues(input.name, refs, inView));
  } else if (refs.length > LIMITS.linksPerRecord) {
    issues.push(...linkIssues(input.name, refs, new Set()));
  }
  if (issues.length > 0 || data === null || !pack) throw invalidIssues(issues);
  const profile = { name: pack.name, version: pack.version, digest: pack.digest };

  const decided = await reviewed.decide({
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
    latestRevision: decided.revision ?? (await reviewed.latestRevision(input.documentId)),
    passage: decided.passage,
    at: decided.at,
  };
}
