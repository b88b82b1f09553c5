/**
 * Reviewed knowledge in the APPLICATION database (sponge.db), SPEC §1 and §7: decisions on
 * proposed records, each with a reviewer, a comment, a source document and a cited passage;
 * every accept creates the document's next revision. A record is valid over the revision range
 * [from_revision, to_revision), so "the records in view at revision R" never changes once R
 * exists, which is what lets a session pin a revision and the memory store cache it.
 *
 * Sponge's, not Oh's: Oh's notebook store reads it only through `ReviewedKnowledgeReader`
 * (`latestRevision`, `recordsAt`), which this implements. Its tables migrate under their own
 * namespace (migrations.ts, `KNOWLEDGE_MIGRATIONS`), kept from when they lived in @oh/memory.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Client } from '@libsql/client';
import {
  applyMigrations,
  canonicalData,
  canonicalJson,
  isMemoryError,
  kindOf,
  num,
  openDatabase,
  parseInput,
  recordDigest,
  str,
} from '@oh/memory';
import type { Link, ReviewedRecord } from '@oh/memory';
import { LIMITS, dataSchema, linkSchema, nameSchema } from '@sponge/contract';
import { ReviewError } from './errors.ts';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_NAMESPACE } from './migrations.ts';
import { withMarks } from './marks.ts';
import { decisionOut, toDecision, toRecord } from './rows.ts';
import type { ReviewDecision, ReviewDecisionInput, ReviewedKnowledge } from './types.ts';

const nonEmpty = (field: string, max: number) =>
  z
    .string()
    .max(max, `${field} is at most ${max} characters`)
    .refine((s) => s.trim().length > 0, `${field} is required and cannot be blank`);

const reviewDecisionInputSchema = z.strictObject({
  documentId: nonEmpty('documentId', 200),
  reviewerId: nonEmpty('reviewerId', 200),
  decision: z.enum(['accept', 'reject']),
  comment: z.string().max(4_000, 'comment is at most 4,000 characters'),
  record: z.strictObject({
    name: nameSchema,
    text: z.string().max(LIMITS.textChars, `text is at most ${LIMITS.textChars} characters`),
    data: dataSchema.optional(),
    links: z
      .array(linkSchema)
      .max(LIMITS.linksPerRecord, `at most ${LIMITS.linksPerRecord} links`)
      .optional(),
  }),
  // Notes are never evidence: no reviewed record exists without a source and a cited passage.
  sourceDocumentId: nonEmpty('sourceDocumentId', 200),
  passage: nonEmpty('passage', 20_000),
  proposedFrom: z.string().max(400).optional(),
  profile: z
    .strictObject({
      name: nonEmpty('profile.name', 64),
      version: nonEmpty('profile.version', 64),
      digest: z.string().regex(/^[0-9a-f]{64}$/, 'profile.digest is 64 lowercase hex digits (SHA-256)'),
    })
    .optional(),
});

export type ReviewedKnowledgeOptions =
  { url: string; authToken?: string; now?: () => Date } | { client: Client; now?: () => Date };

const RECORD_COLUMNS =
  'document_id, name, kind, text, data, links, digest, from_revision, decision_id, source_document_id, passage, reviewer_id, comment, created_at';
const DECISION_COLUMNS =
  'id, document_id, name, kind, text, data, links, decision, comment, reviewer_id, source_document_id, passage, digest, revision, at, profile_name, profile_version, profile_digest';
const DECISION_INSERT = `INSERT INTO reviewed_decisions (id, document_id, name, kind, decision, comment, reviewer_id,
  source_document_id, passage, text, data, links, digest, profile_name, profile_version, profile_digest, revision, proposed_from, at)`;

/** A concurrent accept on another connection took the revision we computed: try again. */
const ACCEPT_ATTEMPTS = 8;

/** Is this a UNIQUE/PRIMARY KEY violation (another accept took the revision), not a trigger's RAISE? */
function isUniqueViolation(error: unknown): boolean {
  // The driver repeats the SQLite message on `cause`.
  const messages =
    error instanceof Error
      ? [error.message, error.cause instanceof Error ? error.cause.message : '']
      : [String(error)];
  return messages.some((m) => /UNIQUE constraint failed|PRIMARY KEY/i.test(m));
}

/**
 * Opens reviewed knowledge over the application database (migrating its tables under the
 * `reviewed` namespace). Pass `client` to share the API's connection; `close()` then leaves it open.
 *
 * @example
 * const reviewed = await createReviewedKnowledge({ url: 'file:./data/sponge.db' });
 * await reviewed.decide({ documentId, reviewerId, decision: 'accept', comment: 'checked',
 *   record: { name: 'finding:x', text: '…' }, sourceDocumentId, passage: '…' });
 */
export async function createReviewedKnowledge(options: ReviewedKnowledgeOptions): Promise<ReviewedKnowledge> {
  const owned = !('client' in options);
  const client =
    'client' in options
      ? options.client
      : await openDatabase({ url: options.url, authToken: options.authToken });
  const now = options.now ?? (() => new Date());
  try {
    await applyMigrations(client, KNOWLEDGE_NAMESPACE, KNOWLEDGE_MIGRATIONS, now);
  } catch (error) {
    if (owned) client.close();
    throw error;
  }

  async function latestRevision(documentId: string): Promise<number> {
    const rs = await client.execute({
      sql: 'SELECT COALESCE(MAX(revision), 0) AS latest FROM reviewed_revisions WHERE document_id = ?',
      args: [documentId],
    });
    return num(rs.rows[0]?.latest);
  }

  /** The records in view at `revision`, each with its marks (marks.ts), as Oh's store expects. */
  async function recordsAt(documentId: string, revision: number): Promise<ReviewedRecord[]> {
    if (!Number.isInteger(revision) || revision < 0)
      throw new ReviewError('invalid_input', 'revision is a whole number ≥ 0');
    const rs = await client.execute({
      sql: `SELECT ${RECORD_COLUMNS} FROM reviewed_records
             WHERE document_id = ? AND from_revision <= ? AND (to_revision IS NULL OR to_revision > ?)
             ORDER BY name`,
      args: [documentId, revision, revision],
    });
    return withMarks(rs.rows.map(toRecord));
  }

  /**
   * Refuses links to anything but a reviewed record of the document once the accept applies: one
   * in view now, or one the same accept makes (`group`).
   */
  async function requireLinkTargets(
    documentId: string,
    name: string,
    links: Link[],
    group: ReadonlySet<string>,
  ): Promise<void> {
    const targets = [...new Set(links.map((l) => l.to))].filter((to) => to !== name && !group.has(to));
    if (targets.length === 0) return;
    // Records never leave view (they only get a newer version of the same name), so a target
    // current now is still in view at the revision this accept creates.
    const rs = await client.execute({
      sql: `SELECT DISTINCT r.name FROM json_each(?) AS j
              JOIN reviewed_records AS r ON r.document_id = ? AND r.name = j.value AND r.to_revision IS NULL`,
      args: [JSON.stringify(targets), documentId],
    });
    const found = new Set(rs.rows.map((r) => str(r.name)));
    const index = links.findIndex((l) => l.to !== name && !group.has(l.to) && !found.has(l.to));
    if (index >= 0) {
      throw new ReviewError(
        'invalid_input',
        `record.links.${index}: ${links[index]!.to} is not a reviewed record of this document; a reviewed record links only to reviewed records`,
      );
    }
  }

  /** The input checked as Oh checks a record, every problem named, refused in reviewed knowledge's terms. */
  function checked(input: ReviewDecisionInput) {
    try {
      const valid = parseInput(reviewDecisionInputSchema, input, 'decision');
      // The driver reads text only up to U+0000 (see @oh/memory's remember): it could not be read back.
      for (const [field, value] of Object.entries({
        'record.text': valid.record.text,
        passage: valid.passage,
        comment: valid.comment,
      })) {
        if (value.includes('\u0000'))
          throw new ReviewError('invalid_input', `${field} cannot contain the NUL character (U+0000)`);
      }
      const kind = kindOf(valid.record.name);
      const data = canonicalData(valid.record.data, 'record.data');
      const links = (valid.record.links ?? []).map((l) => ({ rel: l.rel, to: l.to }));
      const digest = recordDigest({
        kind,
        name: valid.record.name,
        text: valid.record.text,
        data: valid.record.data,
        links,
      });
      return { valid, kind, data, links, digest };
    } catch (error) {
      if (isMemoryError(error) && error.reason === 'invalid_input')
        throw new ReviewError('invalid_input', error.message, { cause: error });
      throw error;
    }
  }

  /** One group's decisions as one: the same document, reviewer and decision, each name once. */
  function checkedGroup(inputs: readonly ReviewDecisionInput[]) {
    if (inputs.length === 0) throw new ReviewError('invalid_input', 'a decision needs a record');
    const group = inputs.map(checked);
    const [first] = group;
    const names = new Set<string>();
    for (const { valid } of group) {
      const { documentId, reviewerId, decision } = valid;
      if (
        documentId !== first!.valid.documentId ||
        reviewerId !== first!.valid.reviewerId ||
        decision !== first!.valid.decision
      )
        throw new ReviewError(
          'invalid_input',
          'the records of one decision share its document, reviewer and decision',
        );
      if (names.has(valid.record.name))
        throw new ReviewError('invalid_input', `${valid.record.name} is named twice in this decision`);
      names.add(valid.record.name);
    }
    return { group, names };
  }

  async function decide(input: ReviewDecisionInput): Promise<ReviewDecision> {
    const [decided] = await decideAll([input]);
    return decided!;
  }

  async function decideAll(inputs: readonly ReviewDecisionInput[]): Promise<ReviewDecision[]> {
    const { group, names } = checkedGroup(inputs);
    const at = now().toISOString();
    const made = group.map((c) => {
      const id = randomUUID();
      const { valid, kind, data, links, digest } = c;
      const args = [
        id,
        valid.documentId,
        valid.record.name,
        kind,
        valid.decision,
        valid.comment,
        valid.reviewerId,
        valid.sourceDocumentId,
        valid.passage,
        valid.record.text,
        data,
        canonicalJson(links),
        digest,
        valid.profile?.name ?? null,
        valid.profile?.version ?? null,
        valid.profile?.digest ?? null,
      ];
      return { ...c, id, args, out: decisionOut(valid, { id, kind, data, links, digest, at }) };
    });
    const { documentId, decision } = made[0]!.valid;

    if (decision === 'reject') {
      await client.batch(
        made.map(({ args, valid }) => ({
          sql: `${DECISION_INSERT} VALUES (${args.map(() => '?').join(', ')}, NULL, ?, ?)`,
          args: [...args, valid.proposedFrom ?? null, at],
        })),
        'write',
      );
      return made.map(({ out }) => ({ ...out, revision: null }));
    }

    for (const { valid, links } of made)
      await requireLinkTargets(documentId, valid.record.name, links, names);

    // Accept: revision latest+1 and, for every record of the group, its decision, the end of its
    // name's previous version and the new record, in ONE batch: all of them or none. The revision
    // is computed inside the batch (MAX+1), named by the first decision, and the (document_id,
    // revision) primary key refuses a duplicate if another writer got there first.
    const revisionId = made[0]!.id;
    const revisionOf = '(SELECT revision FROM reviewed_revisions WHERE decision_id = ?)';
    for (let attempt = 1; ; attempt++) {
      try {
        const results = await client.batch(
          [
            {
              sql: `INSERT INTO reviewed_revisions (document_id, revision, decision_id, created_at)
                    SELECT ?, COALESCE(MAX(revision), 0) + 1, ?, ? FROM reviewed_revisions WHERE document_id = ?`,
              args: [documentId, revisionId, at, documentId],
            },
            ...made.flatMap(({ id, args, valid, kind, data, links, digest }) => [
              {
                sql: `${DECISION_INSERT} VALUES (${args.map(() => '?').join(', ')}, ${revisionOf}, ?, ?)`,
                args: [...args, revisionId, valid.proposedFrom ?? null, at],
              },
              {
                sql: `UPDATE reviewed_records SET to_revision = ${revisionOf}
                       WHERE document_id = ? AND name = ? AND to_revision IS NULL`,
                args: [revisionId, documentId, valid.record.name],
              },
              {
                sql: `INSERT INTO reviewed_records (document_id, name, kind, text, data, links, digest, from_revision, to_revision,
                        decision_id, source_document_id, passage, reviewer_id, comment, created_at)
                      VALUES (?, ?, ?, ?, ?, ?, ?, ${revisionOf}, NULL, ?, ?, ?, ?, ?, ?)`,
                args: [
                  documentId,
                  valid.record.name,
                  kind,
                  valid.record.text,
                  data,
                  canonicalJson(links),
                  digest,
                  revisionId,
                  id,
                  valid.sourceDocumentId,
                  valid.passage,
                  valid.reviewerId,
                  valid.comment,
                  at,
                ],
              },
            ]),
            { sql: `SELECT revision FROM reviewed_revisions WHERE decision_id = ?`, args: [revisionId] },
          ],
          'write',
        );
        const revision = num(results.at(-1)?.rows[0]?.revision);
        return made.map(({ out }) => ({ ...out, revision }));
      } catch (error) {
        if (attempt < ACCEPT_ATTEMPTS && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  async function decisions(documentId: string): Promise<ReviewDecision[]> {
    const rs = await client.execute({
      sql: `SELECT ${DECISION_COLUMNS} FROM reviewed_decisions WHERE document_id = ? ORDER BY at DESC, rowid DESC`,
      args: [documentId],
    });
    return rs.rows.map(toDecision);
  }

  let closed = false;
  return {
    latestRevision,
    recordsAt,
    decide,
    decideAll,
    decisions,
    close() {
      if (closed) return;
      closed = true;
      if (owned) client.close();
    },
  };
}
