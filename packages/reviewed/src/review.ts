/**
 * The review workbench's decision (SPEC §7): the owner turns a proposal — usually a working note —
 * into a decision on record. A decision needs a kind of a profile installed on the document with
 * fields that validate against the release installed there (not a newer one shipped since), a
 * source document the reviewer can read and a passage that occurs in that document's text, plus
 * the decision and a comment. `accept` makes the document's next reviewed revision holding the
 * record; `reject` records the decision only. A decision may take a group (SPEC §7: a finding with
 * its new study and the study's new publication): every record of it is checked the same way, its
 * references may name each other in any order but never in a circle, and an accept makes ONE
 * revision holding them all, or nothing. Either way the record's data names the profile
 * version that validated it, and the decision keeps that release's digest. The record's reference
 * fields (a finding's study…) become its `depends_on` links, and an accept needs every record they
 * name to be reviewed knowledge of the document already, or in the same decision. Notes are never evidence: there is no way
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
import { cycleIssues, linkIssues, referenceLinks } from './links.ts';
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
  /** The records decided with this one (`with`), in the order given: same decision, same revision. */
  with: GroupOutcome[];
}

/** A record decided with the main one: its own name, digest, links, passage and rewrites. */
export type GroupOutcome = Pick<
  ReviewOutcome,
  'id' | 'decision' | 'name' | 'kind' | 'digest' | 'links' | 'normalized' | 'revision' | 'passage' | 'at'
>;

/** The codecs' rewrites, when the profile code reports them (empty otherwise). */
function normalizedOf(result: RecordResult): Normalization[] {
  const list = (result as { normalized?: unknown }).normalized;
  return Array.isArray(list) ? (list as Normalization[]) : [];
}

/** One record of a decision as proposed: the main one (path `[]`) or one of `with` (`['with', i]`). */
interface Proposed {
  at: Array<string | number>;
  kind: string;
  name: string;
  text: string;
  fields: Record<string, unknown>;
  passage: string;
}

/** A proposed record once its fields validated: what is written, and the links they make. */
interface Checked extends Proposed {
  data: ReviewedData;
  normalized: Normalization[];
  refs: ReferenceLink[];
}

type Pack = NonNullable<Awaited<ReturnType<typeof installedPack>>>;

/** What is wrong with one proposed record (its kind, fields, name, text, passage), by its path. */
function recordIssues(
  pack: Pack | null,
  record: Proposed,
  sourceText: string,
  between: ReviewIssue[] = [],
): { issues: ReviewIssue[]; checked: Checked | null } {
  const issues: ReviewIssue[] = [];
  const at = (...path: Array<string | number>) => [...record.at, ...path];
  let checked: Checked | null = null;
  if (pack && !Object.hasOwn(pack.kinds, record.kind)) {
    issues.push({
      path: at('kind'),
      message: `${record.kind} is not a kind of the ${pack.name} profile (kinds: ${Object.keys(pack.kinds).sort().join(', ')})`,
    });
  } else if (pack) {
    const result = validateRecord(pack, record.kind, record.fields);
    if (result.ok) {
      checked = {
        ...record,
        data: { profile: pack.name, version: pack.version, fields: result.value },
        normalized: normalizedOf(result),
        refs: referenceLinks(pack, record.kind, result.value),
      };
    } else {
      for (const e of result.errors)
        issues.push({ path: at('fields', ...(e.path === '' ? [] : e.path.split('.'))), message: e.message });
    }
  }
  if (kindOf(record.name) !== record.kind) {
    issues.push({
      path: at('name'),
      message: `a ${record.kind} record is named ${record.kind}:slug, got ${record.name}`,
    });
  }
  if (record.text.trim() === '') issues.push({ path: at('text'), message: 'text must not be empty' });
  // The main record's comment is the group's: named between its text and its passage.
  issues.push(...between);
  if (record.passage === '') issues.push({ path: at('passage'), message: 'passage must not be empty' });
  else if (!passageOccursIn(record.passage, sourceText))
    issues.push({ path: at('passage'), message: 'passage not found in the source' });
  return { issues, checked };
}

/** The installed release of the decision's profile, or why there is none to validate with. */
async function profileFor(
  db: Client,
  documentId: string,
  profile: string,
): Promise<{ pack: Pack | null; issues: ReviewIssue[] }> {
  const installed = await getInstalledProfile(db, documentId, profile);
  if (!installed)
    return {
      pack: null,
      issues: [{ path: ['profile'], message: `the ${profile} profile is not installed on this document` }],
    };
  const pack = await installedPack(db, installed);
  if (pack) return { pack, issues: [] };
  return {
    pack: null,
    issues: [
      {
        path: ['profile'],
        message: `version ${installed.version} of the ${installed.profile} profile, installed on this document, is no longer available: install the profile again to review with its current version`,
      },
    ],
  };
}

/** The proposal's note must be one of this document's sessions, still there to be read. */
async function requireProposal(notebook: Notebook, reviewerId: string, input: ReviewDecideInput) {
  if ((input.fromSession === undefined) !== (input.fromNote === undefined)) {
    throw invalidIssues([
      {
        path: [input.fromSession === undefined ? 'fromSession' : 'fromNote'],
        message: 'fromSession and fromNote go together',
      },
    ]);
  }
  if (input.fromSession === undefined || input.fromNote === undefined) return;
  const session = await notebook.getSession(input.fromSession);
  if (!session || session.documentId !== input.documentId || session.ownerId !== reviewerId)
    throw notFound('The session');
  const notes = await notebook.notes(session.id);
  if (!notes.some((n) => n.name === input.fromNote)) throw notFound('The working note');
}

/**
 * Checks a proposal and records the decision, for the owner of the document only (`not_found`
 * otherwise); every problem with the proposal, and with each record of its group, is named in one
 * `invalid_input`. Shared by the API's `review.decide` and its demo seed, so a seeded reviewed
 * record passes exactly the checks a person's review does.
 */
export async function decideReview(
  { db, reviewed, notebook }: ReviewDesk,
  reviewerId: string,
  input: ReviewDecideInput,
): Promise<ReviewOutcome> {
  await requireOwnDocument(db, reviewerId, input.documentId);
  await requireProposal(notebook, reviewerId, input);

  // The source must be a document the reviewer can read in the library (own, shared or public).
  const source = await getVisibleDocument(db, reviewerId, input.sourceDocumentId);
  if (!source) throw notFound('The source document');

  const { pack, issues } = await profileFor(db, input.documentId, input.profile);
  const proposed: Proposed[] = [
    { ...input, at: [], passage: normalisePassage(input.passage) },
    ...(input.with ?? []).map((w, i) => ({
      ...w,
      at: ['with', i],
      passage: normalisePassage(w.passage ?? input.passage),
    })),
  ];
  const comment: ReviewIssue[] =
    input.comment.trim() === '' ? [{ path: ['comment'], message: 'a decision needs a comment' }] : [];
  const checked: Checked[] = [];
  for (const record of proposed) {
    const one = recordIssues(pack, record, source.text, record.at.length === 0 ? comment : []);
    issues.push(...one.issues);
    if (one.checked) checked.push(one.checked);
  }
  // One name per record: the contract refuses it too, but an in-process caller (the seed) may not.
  const names = new Set<string>();
  for (const record of proposed) {
    if (names.has(record.name))
      issues.push({
        path: [...record.at, 'name'],
        message: `${record.name} is named twice in this decision`,
      });
    names.add(record.name);
  }
  issues.push(...(await groupLinkIssues(reviewed, input, checked, names)));
  if (issues.length > 0 || checked.length !== proposed.length || !pack) throw invalidIssues(issues);
  const profile = { name: pack.name, version: pack.version, digest: pack.digest };

  const decided = await reviewed.decideAll(
    checked.map((record, i) => ({
      documentId: input.documentId,
      reviewerId,
      decision: input.decision,
      comment: input.comment,
      record: {
        name: record.name,
        text: record.text,
        data: record.data as unknown as JsonValue,
        links: record.refs.map((r) => r.link),
      },
      sourceDocumentId: source.id,
      passage: record.passage,
      profile,
      // The note proposed the main record; the others were made beside it in the dialog.
      ...(i === 0 && input.fromSession !== undefined && input.fromNote !== undefined
        ? { proposedFrom: `note:${input.fromSession}:${input.fromNote}` }
        : {}),
    })),
  );
  const outcomes: GroupOutcome[] = decided.map((d, i) => ({
    id: d.id,
    decision: d.decision,
    name: d.name,
    kind: checked[i]!.kind,
    digest: d.digest,
    links: d.links,
    normalized: checked[i]!.normalized,
    revision: d.revision,
    passage: d.passage,
    at: d.at,
  }));
  const [main, ...rest] = outcomes;
  return {
    ...main!,
    profile,
    latestRevision: main!.revision ?? (await reviewed.latestRevision(input.documentId)),
    with: rest,
  };
}

/**
 * An accepted record's links must reach records in view or in the group, and never lead back to
 * it; records never leave view, so what is there now is there at the revision this accept makes.
 * A reject checks only how many links a record would carry.
 */
async function groupLinkIssues(
  reviewed: ReviewedKnowledge,
  input: ReviewDecideInput,
  checked: readonly Checked[],
  group: ReadonlySet<string>,
): Promise<ReviewIssue[]> {
  const at = (record: Checked) => (issue: ReviewIssue) => ({ ...issue, path: [...record.at, ...issue.path] });
  if (input.decision !== 'accept' || !checked.some((r) => r.refs.length > 0))
    return checked.flatMap((r) =>
      r.refs.length > LIMITS.linksPerRecord ? linkIssues(r.name, r.refs, new Set()).map(at(r)) : [],
    );
  const view = await reviewed.recordsAt(input.documentId, await reviewed.latestRevision(input.documentId));
  const reachable = new Set([...view.map((r) => r.name), ...group]);
  const missing = checked.flatMap((r) => linkIssues(r.name, r.refs, reachable).map(at(r)));
  if (missing.length > 0) return missing;
  return cycleIssues(view, checked).map(({ record, issue }) => at(checked[record]!)(issue));
}
