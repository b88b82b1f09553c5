/**
 * Reviewed knowledge's tables in the application database (SPEC §7). Two kinds:
 *
 * - The vocabulary profiles installed on documents and the packs as installed (profiles.ts): entries
 *   of the app's one migration list, by the id and name they were released under there
 *   (`REVIEWED_MIGRATIONS`), which the app assembles with its own and the library's, as it does the
 *   library's (apps/api/src/migrations.ts). A migration's id is its position in that list: never
 *   edit or reorder a released entry; a change is a new entry, appended by the app where its list
 *   ends.
 * - Revisions, decisions and records (knowledge.ts), under a namespace of their own that
 *   `createReviewedKnowledge` migrates when it opens (`KNOWLEDGE_MIGRATIONS`).
 *
 * The statements reference the app's `users` and the library's `documents` by id; reviewed
 * knowledge reads `users` (id, name: who reviewed) and never writes it.
 */
import type { Migration } from '@oh/memory';

/** The entries of the app's migration list that hold reviewed knowledge's tables, by released id. */
export const REVIEWED_MIGRATIONS = {
  documentProfiles002: {
    // Vocabulary profiles installed on a document (SPEC §7): the pack's name, and the version and
    // digest that were installed, so a later pack release can be told apart from what was chosen.
    name: '002_document_profiles',
    statements: [
      `CREATE TABLE document_profiles (
        document_id TEXT NOT NULL REFERENCES documents(id),
        profile TEXT NOT NULL,
        version TEXT NOT NULL,
        digest TEXT NOT NULL CHECK (length(digest) = 64),
        installed_by TEXT NOT NULL REFERENCES users(id),
        installed_at TEXT NOT NULL,
        PRIMARY KEY (document_id, profile)
      )`,
    ],
  },
  profilePacks004: {
    // The packs as installed (SPEC §7), once per digest: review validates a document's records
    // with the release installed on it, and after a pack release only the newest one ships.
    // Installs made before this migration resolve while their release still ships.
    name: '004_profiles_installed_packs',
    statements: [
      `CREATE TABLE profile_packs (
        digest TEXT PRIMARY KEY CHECK (length(digest) = 64),
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        pack TEXT NOT NULL
      )`,
    ],
  },
} satisfies Record<string, Migration>;

/**
 * The namespace of reviewed knowledge's own tables (revisions, decisions, records), which
 * `createReviewedKnowledge` migrates when it opens. Their own namespace and names since they were
 * made (in @oh/memory, before Sponge kept reviewed knowledge itself): a database made then goes on.
 */
export const KNOWLEDGE_NAMESPACE = 'reviewed';

export const KNOWLEDGE_MIGRATIONS: Migration[] = [
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
