/**
 * Reviewed knowledge in the APPLICATION database (sponge.db), SPEC §1 and §7: decisions on
 * proposed records, each with a reviewer, a comment, a source document and a cited passage;
 * every accept creates the document's next revision. A record is valid over the revision range
 * [from_revision, to_revision), so "the records in view at revision R" never changes once R
 * exists, which is what lets a session pin a revision and the memory store cache it.
 *
 * Sponge's, not Oh's: Oh's notebook store reads it only through `ReviewedKnowledgeReader`
 * (`latestRevision`, `recordsAt`), which this implements. The migrations keep the `reviewed`
 * namespace and their names from when they lived in @oh/memory, so existing databases go on.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Client } from '@libsql/client';
import {
  applyMigrations,
  canonicalData,
  canonicalJson,
  kindOf,
  MemoryError,
  num,
  openDatabase,
  parseInput,
  recordDigest,
  str,
  toMemoryError,
} from '@oh/memory';
import type { Link, ReviewedRecord } from '@oh/memory';
import { LIMITS, dataSchema, linkSchema, nameSchema } from '@sponge/contract';
import { withMarks } from './marks.ts';
import { decisionOut, toDecision, toRecord } from './rows.ts';
import type { ReviewDecision, ReviewDecisionInput, ReviewedKnowledge } from './types.ts';

export const REVIEWED_NAMESPACE = 'reviewed';

export const REVIEWED_MIGRATIONS: { name: string; statements: string[] }[] = [
  {
    name: '001_revisions_decisions_records',
    statements: [
      // One row per revision of a document's reviewed knowledge. The primary key is what makes
      // two concurrent accepts unable to create the same revision.
      `CREATE TABLE reviewed_revisions (
        document_id TEXT NOT NULL,
        revision INTEGER NOT NULL CHECK (revision >= 1),
        decision_id TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (document_id, revision)
      )`,
      `CREATE TABLE reviewed_decisions (
        id TEXT PRIMARY KEY NOT NULL,
        document_id TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('accept', 'reject')),
        comment TEXT NOT NULL,
        reviewer_id TEXT NOT NULL CHECK (length(reviewer_id) > 0),
        source_document_id TEXT NOT NULL CHECK (length(trim(source_document_id)) > 0),
        passage TEXT NOT NULL CHECK (length(trim(passage)) > 0),
        text TEXT NOT NULL,
        data TEXT,
        links TEXT NOT NULL CHECK (json_valid(links)),
        digest TEXT NOT NULL,
        revision INTEGER,
        proposed_from TEXT,
        at TEXT NOT NULL,
        CHECK ((decision = 'accept') = (revision IS NOT NULL))
      )`,
      `CREATE INDEX reviewed_decisions_document ON reviewed_decisions (document_id, at)`,
      `CREATE TABLE reviewed_records (
        document_id TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        data TEXT,
        links TEXT NOT NULL CHECK (json_valid(links)),
        digest TEXT NOT NULL,
        from_revision INTEGER NOT NULL CHECK (from_revision >= 1),
        to_revision INTEGER CHECK (to_revision IS NULL OR to_revision > from_revision),
        decision_id TEXT NOT NULL UNIQUE REFERENCES reviewed_decisions (id),
        source_document_id TEXT NOT NULL CHECK (length(trim(source_document_id)) > 0),
        passage TEXT NOT NULL CHECK (length(trim(passage)) > 0),
        reviewer_id TEXT NOT NULL,
        comment TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (document_id, name, from_revision)
      )`,
      // At most one current version of a name per document.
      `CREATE UNIQUE INDEX reviewed_records_current ON reviewed_records (document_id, name) WHERE to_revision IS NULL`,
      // Decisions and revisions are on record for good; records only ever get their end revision.
      `CREATE TRIGGER reviewed_revisions_fixed BEFORE UPDATE ON reviewed_revisions
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:revisions are immutable'); END`,
      `CREATE TRIGGER reviewed_revisions_kept BEFORE DELETE ON reviewed_revisions
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:revisions are kept'); END`,
      `CREATE TRIGGER reviewed_decisions_fixed BEFORE UPDATE ON reviewed_decisions
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:decisions stay on record unchanged'); END`,
      `CREATE TRIGGER reviewed_decisions_kept BEFORE DELETE ON reviewed_decisions
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:decisions stay on record'); END`,
      `CREATE TRIGGER reviewed_records_end_once BEFORE UPDATE ON reviewed_records
       WHEN OLD.to_revision IS NOT NULL
         OR NEW.document_id IS NOT OLD.document_id OR NEW.name IS NOT OLD.name OR NEW.kind IS NOT OLD.kind
         OR NEW.text IS NOT OLD.text OR NEW.data IS NOT OLD.data OR NEW.links IS NOT OLD.links
         OR NEW.digest IS NOT OLD.digest OR NEW.from_revision IS NOT OLD.from_revision
         OR NEW.decision_id IS NOT OLD.decision_id OR NEW.source_document_id IS NOT OLD.source_document_id
         OR NEW.passage IS NOT OLD.passage OR NEW.reviewer_id IS NOT OLD.reviewer_id
         OR NEW.comment IS NOT OLD.comment OR NEW.created_at IS NOT OLD.created_at
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:a reviewed record only gets its end revision, once'); END`,
      `CREATE TRIGGER reviewed_records_kept BEFORE DELETE ON reviewed_records
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:reviewed records are kept'); END`,
    ],
  },
  {
    // The profile release that validated a decision's fields (issue 18): its name and version
    // were inside `data` already; the pack digest names the exact release, so the history and
    // an export can be checked against it. Decisions made before this migration have NULLs.
    name: '002_decision_profile',
    statements: [
      `ALTER TABLE reviewed_decisions ADD COLUMN profile_name TEXT`,
      `ALTER TABLE reviewed_decisions ADD COLUMN profile_version TEXT`,
      `ALTER TABLE reviewed_decisions ADD COLUMN profile_digest TEXT
         CHECK (profile_digest IS NULL OR (length(profile_digest) = 64 AND profile_digest NOT GLOB '*[^0-9a-f]*'))`,
    ],
  },
];

const nonEmpty = (field: string, max: number) =>
  z
    .string()
    .max(max, `${field} is at most ${max} characters`)
    .refine((s) => s.trim().length > 0, `${field} is required and cannot be blank`);

export const reviewDecisionInputSchema = z.strictObject({
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
    await applyMigrations(client, REVIEWED_NAMESPACE, REVIEWED_MIGRATIONS, now);
  } catch (error) {
    if (owned) client.close();
    throw toMemoryError(error, 'opening reviewed knowledge');
  }

  const guard = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw toMemoryError(error, what);
    }
  };

  async function latestRevision(documentId: string): Promise<number> {
    return guard('latestRevision', async () => {
      const rs = await client.execute({
        sql: 'SELECT COALESCE(MAX(revision), 0) AS latest FROM reviewed_revisions WHERE document_id = ?',
        args: [documentId],
      });
      return num(rs.rows[0]?.latest);
    });
  }

  /** The records in view at `revision`, each with its marks (marks.ts), as Oh's store expects. */
  async function recordsAt(documentId: string, revision: number): Promise<ReviewedRecord[]> {
    return guard('recordsAt', async () => {
      if (!Number.isInteger(revision) || revision < 0)
        throw new MemoryError('invalid_input', 'revision is a whole number ≥ 0');
      const rs = await client.execute({
        sql: `SELECT ${RECORD_COLUMNS} FROM reviewed_records
               WHERE document_id = ? AND from_revision <= ? AND (to_revision IS NULL OR to_revision > ?)
               ORDER BY name`,
        args: [documentId, revision, revision],
      });
      return withMarks(rs.rows.map(toRecord));
    });
  }

  /** Refuses links to anything but a reviewed record of the document (once the accept applies). */
  async function requireLinkTargets(documentId: string, name: string, links: Link[]): Promise<void> {
    const targets = [...new Set(links.map((l) => l.to))].filter((to) => to !== name);
    if (targets.length === 0) return;
    // Records never leave view (they only get a newer version of the same name), so a target
    // current now is still in view at the revision this accept creates.
    const rs = await client.execute({
      sql: `SELECT DISTINCT r.name FROM json_each(?) AS j
              JOIN reviewed_records AS r ON r.document_id = ? AND r.name = j.value AND r.to_revision IS NULL`,
      args: [JSON.stringify(targets), documentId],
    });
    const found = new Set(rs.rows.map((r) => str(r.name)));
    const index = links.findIndex((l) => l.to !== name && !found.has(l.to));
    if (index >= 0) {
      throw new MemoryError(
        'invalid_input',
        `record.links.${index}: ${links[index]!.to} is not a reviewed record of this document; a reviewed record links only to reviewed records`,
      );
    }
  }

  async function decide(input: ReviewDecisionInput): Promise<ReviewDecision> {
    return guard('decide', async () => {
      const valid = parseInput(reviewDecisionInputSchema, input, 'decision');
      // The driver reads text only up to U+0000 (see @oh/memory's remember): it could not be read back.
      for (const [field, value] of Object.entries({
        'record.text': valid.record.text,
        passage: valid.passage,
        comment: valid.comment,
      })) {
        if (value.includes('\u0000'))
          throw new MemoryError('invalid_input', `${field} cannot contain the NUL character (U+0000)`);
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
      const id = randomUUID();
      const at = now().toISOString();
      const decisionArgs = [
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
      const out = decisionOut(valid, { id, kind, data, links, digest, at });

      if (valid.decision === 'reject') {
        await client.execute({
          sql: `${DECISION_INSERT} VALUES (${decisionArgs.map(() => '?').join(', ')}, NULL, ?, ?)`,
          args: [...decisionArgs, valid.proposedFrom ?? null, at],
        });
        return { ...out, revision: null };
      }

      await requireLinkTargets(valid.documentId, valid.record.name, links);

      // Accept: revision latest+1, the decision, the end of the name's previous version and the
      // new record, in ONE batch. The revision is computed inside the batch (MAX+1) and the
      // (document_id, revision) primary key refuses a duplicate if another writer got there first.
      const revisionOf = '(SELECT revision FROM reviewed_revisions WHERE decision_id = ?)';
      for (let attempt = 1; ; attempt++) {
        try {
          const results = await client.batch(
            [
              {
                sql: `INSERT INTO reviewed_revisions (document_id, revision, decision_id, created_at)
                      SELECT ?, COALESCE(MAX(revision), 0) + 1, ?, ? FROM reviewed_revisions WHERE document_id = ?`,
                args: [valid.documentId, id, at, valid.documentId],
              },
              {
                sql: `${DECISION_INSERT} VALUES (${decisionArgs.map(() => '?').join(', ')}, ${revisionOf}, ?, ?)`,
                args: [...decisionArgs, id, valid.proposedFrom ?? null, at],
              },
              {
                sql: `UPDATE reviewed_records SET to_revision = ${revisionOf}
                       WHERE document_id = ? AND name = ? AND to_revision IS NULL`,
                args: [id, valid.documentId, valid.record.name],
              },
              {
                sql: `INSERT INTO reviewed_records (document_id, name, kind, text, data, links, digest, from_revision, to_revision,
                        decision_id, source_document_id, passage, reviewer_id, comment, created_at)
                      VALUES (?, ?, ?, ?, ?, ?, ?, ${revisionOf}, NULL, ?, ?, ?, ?, ?, ?)`,
                args: [
                  valid.documentId,
                  valid.record.name,
                  kind,
                  valid.record.text,
                  data,
                  canonicalJson(links),
                  digest,
                  id,
                  id,
                  valid.sourceDocumentId,
                  valid.passage,
                  valid.reviewerId,
                  valid.comment,
                  at,
                ],
              },
              { sql: `SELECT revision FROM reviewed_revisions WHERE decision_id = ?`, args: [id] },
            ],
            'write',
          );
          const revision = num(results[4]?.rows[0]?.revision);
          return { ...out, revision };
        } catch (error) {
          if (attempt < ACCEPT_ATTEMPTS && isUniqueViolation(error)) continue;
          throw error;
        }
      }
    });
  }

  async function decisions(documentId: string): Promise<ReviewDecision[]> {
    return guard('decisions', async () => {
      const rs = await client.execute({
        sql: `SELECT ${DECISION_COLUMNS} FROM reviewed_decisions WHERE document_id = ? ORDER BY at DESC, rowid DESC`,
        args: [documentId],
      });
      return rs.rows.map(toDecision);
    });
  }

  let closed = false;
  return {
    latestRevision,
    recordsAt,
    decide,
    decisions,
    close() {
      if (closed) return;
      closed = true;
      if (owned) client.close();
    },
  };
}
