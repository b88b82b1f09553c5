/**
 * The working-memory database (memory.db): sessions, the append-only log, the per-change history
 * it projects into, the current notes, a link index, and the purge worker's credential.
 *
 * The rules of SPEC §4 live HERE, as constraints and triggers, so they hold across processes and
 * over a remote libSQL server, where the store cannot hold a lock between statements:
 *
 *   - a remember call is ONE write batch: a `log` row, its `note_changes` rows, a final check;
 *   - the log row's BEFORE trigger refuses a closed/expired session (session_closed) and a
 *     version other than current+1 (stale_version), so of N racing calls with the same basedOn
 *     exactly one commits; the others' batches roll back entirely;
 *   - each `note_changes` row's BEFORE trigger refuses add of a live name (name_exists) and
 *     replace/remove of a missing one (no_such_note); its AFTER triggers apply the change to
 *     `notes`, `link_index` and the session's note count (quota);
 *   - sessions are created only in state `opening`, move only forward, and are never deleted.
 *
 * Triggers raise `sponge:<reason>[:<detail>]`; errors.ts maps that to a MemoryError.
 *
 * No FOREIGN KEY clauses on the hot tables: the triggers already guarantee every reference (a
 * change exists only for the call just logged on an open session, notes only through changes),
 * a remote server may run with foreign keys off, and each FK adds to the trigger program the
 * driver recompiles for every statement (it has no statement cache for local files).
 * Released migrations are never edited: add a new entry instead.
 */
import type { Client } from '@libsql/client';
import { LIMITS } from '@oh/schema';
import { applyMigrations, openDatabase } from './db/index.ts';
import type { OpenDatabaseOptions } from './db/index.ts';
import { toMemoryError } from './errors.ts';

const MEMORY_NAMESPACE = 'memory';

const NOTE_QUOTA = LIMITS.notesPerSession;

/** Tables holding a session's content; the purger deletes them in this order (children first). */
export const CONTENT_TABLES = ['link_index', 'notes', 'note_changes', 'log'] as const;

const MEMORY_MIGRATIONS: { name: string; statements: string[] }[] = [
  {
    name: '001_sessions_log_notes',
    statements: [
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY NOT NULL,
        owner_id TEXT NOT NULL,
        document_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('opening', 'open', 'forgotten', 'purged', 'empty')),
        version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
        note_count INTEGER NOT NULL DEFAULT 0 CHECK (note_count >= 0),
        pinned_revision INTEGER NOT NULL CHECK (pinned_revision >= 0),
        started_at TEXT NOT NULL,
        expires_at TEXT NOT NULL CHECK (expires_at > started_at),
        forgotten_at TEXT,
        purged_at TEXT,
        content_cleared INTEGER NOT NULL DEFAULT 0 CHECK (content_cleared IN (0, 1))
      )`,
      `CREATE INDEX sessions_document ON sessions (document_id, started_at)`,
      // The purge worker's two scans: open sessions by expiry, and stuck 'opening' by start time.
      `CREATE INDEX sessions_state_expiry ON sessions (state, expires_at)`,
      `CREATE INDEX sessions_state_start ON sessions (state, started_at)`,
      // Purged sessions whose content is not deleted yet (a crash mid-purge is finished later).
      `CREATE INDEX sessions_uncleared ON sessions (id) WHERE state = 'purged' AND content_cleared = 0`,

      // Nothing can create a session in any state but 'opening' (so the purge worker, which never
      // inserts, cannot create one, and nobody can insert an 'open' row for a purged id).
      `CREATE TRIGGER sessions_insert_opening BEFORE INSERT ON sessions
       WHEN NEW.state <> 'opening' OR NEW.version <> 0 OR NEW.note_count <> 0 OR NEW.content_cleared <> 0
         OR NEW.forgotten_at IS NOT NULL OR NEW.purged_at IS NOT NULL
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:a session is created in state opening with no content'); END`,
      // The tombstone (ids, owner, document, run, times, state) stays forever.
      `CREATE TRIGGER sessions_no_delete BEFORE DELETE ON sessions
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:session rows are never deleted; the tombstone stays'); END`,
      // Identity, pin and lifetime are fixed at creation: nobody extends an expired session.
      `CREATE TRIGGER sessions_identity_fixed BEFORE UPDATE OF id, owner_id, document_id, run_id, pinned_revision, started_at, expires_at ON sessions
       WHEN NEW.id IS NOT OLD.id OR NEW.owner_id IS NOT OLD.owner_id OR NEW.document_id IS NOT OLD.document_id
         OR NEW.run_id IS NOT OLD.run_id OR NEW.pinned_revision IS NOT OLD.pinned_revision
         OR NEW.started_at IS NOT OLD.started_at OR NEW.expires_at IS NOT OLD.expires_at
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:a session''s identity, pinned revision and lifetime never change'); END`,
      // opening→open|empty, open→forgotten|purged, forgotten→purged. Never back to open.
      `CREATE TRIGGER sessions_state_forward BEFORE UPDATE OF state ON sessions
       WHEN NEW.state IS NOT OLD.state AND NOT (
            (OLD.state = 'opening' AND NEW.state IN ('open', 'empty'))
         OR (OLD.state = 'open' AND NEW.state IN ('forgotten', 'purged'))
         OR (OLD.state = 'forgotten' AND NEW.state = 'purged'))
       BEGIN SELECT RAISE(ABORT, 'sponge:session_closed:a session state only moves forward; a closed session never reopens'); END`,
      `CREATE TRIGGER sessions_closing_times_once BEFORE UPDATE OF forgotten_at, purged_at ON sessions
       WHEN (OLD.forgotten_at IS NOT NULL AND NEW.forgotten_at IS NOT OLD.forgotten_at)
         OR (OLD.purged_at IS NOT NULL AND NEW.purged_at IS NOT OLD.purged_at)
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:forgotten_at and purged_at are set once'); END`,
      // The version moves only through the log, one step at a time, while open.
      `CREATE TRIGGER sessions_version_step BEFORE UPDATE OF version ON sessions
       WHEN NEW.version IS NOT OLD.version AND (NEW.version <> OLD.version + 1 OR OLD.state <> 'open')
       BEGIN SELECT RAISE(ABORT, 'sponge:stale_version'); END`,
      `CREATE TRIGGER sessions_note_quota BEFORE UPDATE OF note_count ON sessions
       WHEN NEW.note_count > ${NOTE_QUOTA} AND NEW.note_count > OLD.note_count
       BEGIN SELECT RAISE(ABORT, 'sponge:quota:a session holds at most 10,000 notes'); END`,

      // One row per applied remember call: who, when, request id, the ops and the result.
      `CREATE TABLE log (
        session_id TEXT NOT NULL,
        version INTEGER NOT NULL CHECK (version >= 1),
        request_id TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        author TEXT NOT NULL,
        at TEXT NOT NULL,
        ops TEXT NOT NULL CHECK (json_valid(ops)),
        result TEXT NOT NULL CHECK (json_valid(result)),
        PRIMARY KEY (session_id, version),
        UNIQUE (session_id, request_id)
      )`,
      // The two write rules that make concurrent calls exactly-once / no-lost-update.
      `CREATE TRIGGER log_accepts_only_open_current BEFORE INSERT ON log
       BEGIN
         SELECT RAISE(ABORT, 'sponge:session_closed')
          WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE id = NEW.session_id AND state = 'open' AND NEW.at < expires_at);
         SELECT RAISE(ABORT, 'sponge:stale_version')
          WHERE NEW.version IS NOT (SELECT version + 1 FROM sessions WHERE id = NEW.session_id);
       END`,
      `CREATE TRIGGER log_bumps_version AFTER INSERT ON log
       BEGIN UPDATE sessions SET version = NEW.version WHERE id = NEW.session_id; END`,
      `CREATE TRIGGER log_append_only BEFORE UPDATE ON log
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:the log is append-only'); END`,
      `CREATE TRIGGER log_delete_only_closed BEFORE DELETE ON log
       WHEN (SELECT state FROM sessions WHERE id = OLD.session_id) NOT IN ('forgotten', 'purged')
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:the log of a live session is never deleted'); END`,

      // Every change of every call, in call order (seq). History for changed_since and for
      // answering and explaining "as of version V"; the notes table is its projection.
      `CREATE TABLE note_changes (
        session_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL CHECK (seq >= 0 AND seq < ${LIMITS.changesPerCall}),
        op TEXT NOT NULL CHECK (op IN ('add', 'replace', 'remove')),
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT,
        data TEXT,
        links TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(links)),
        digest TEXT,
        author TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (session_id, version, seq),
        CHECK ((op = 'remove') = (digest IS NULL)),
        CHECK (op = 'remove' OR text IS NOT NULL)
      )`,
      `CREATE INDEX note_changes_name ON note_changes (session_id, name, version)`,
      `CREATE TRIGGER note_changes_check BEFORE INSERT ON note_changes
       BEGIN
         SELECT RAISE(ABORT, 'sponge:integrity:a note change belongs to the call just logged on an open session')
          WHERE NEW.version IS NOT (SELECT version FROM sessions WHERE id = NEW.session_id AND state = 'open');
         SELECT RAISE(ABORT, 'sponge:integrity:a note''s kind is the part of its name before the colon')
          WHERE NEW.kind IS NOT substr(NEW.name, 1, instr(NEW.name, ':') - 1);
         SELECT RAISE(ABORT, 'sponge:name_exists')
          WHERE NEW.op = 'add' AND EXISTS (SELECT 1 FROM notes WHERE session_id = NEW.session_id AND name = NEW.name);
         SELECT RAISE(ABORT, 'sponge:no_such_note')
          WHERE NEW.op <> 'add' AND NOT EXISTS (SELECT 1 FROM notes WHERE session_id = NEW.session_id AND name = NEW.name);
       END`,
      `CREATE TRIGGER note_changes_apply_add AFTER INSERT ON note_changes WHEN NEW.op = 'add'
       BEGIN
         INSERT INTO notes (session_id, name, kind, text, data, links, digest, author, created_at, updated_at, version, seq, created_version)
         VALUES (NEW.session_id, NEW.name, NEW.kind, NEW.text, NEW.data, NEW.links, NEW.digest, NEW.author, NEW.at, NEW.at, NEW.version, NEW.seq, NEW.version);
         UPDATE sessions SET note_count = note_count + 1 WHERE id = NEW.session_id;
       END`,
      `CREATE TRIGGER note_changes_apply_replace AFTER INSERT ON note_changes WHEN NEW.op = 'replace'
       BEGIN
         UPDATE notes SET text = NEW.text, data = NEW.data, links = NEW.links, digest = NEW.digest, author = NEW.author,
                          updated_at = NEW.at, version = NEW.version, seq = NEW.seq
          WHERE session_id = NEW.session_id AND name = NEW.name;
       END`,
      `CREATE TRIGGER note_changes_apply_remove AFTER INSERT ON note_changes WHEN NEW.op = 'remove'
       BEGIN
         DELETE FROM notes WHERE session_id = NEW.session_id AND name = NEW.name;
         UPDATE sessions SET note_count = note_count - 1 WHERE id = NEW.session_id;
       END`,
      `CREATE TRIGGER note_changes_index_links AFTER INSERT ON note_changes WHEN NEW.op <> 'remove'
       BEGIN
         INSERT INTO link_index (session_id, version, seq, idx, from_name, rel, to_name)
         SELECT NEW.session_id, NEW.version, NEW.seq, CAST(j.key AS INTEGER), NEW.name,
                json_extract(j.value, '$.rel'), json_extract(j.value, '$.to')
           FROM json_each(NEW.links) AS j;
       END`,
      `CREATE TRIGGER note_changes_append_only BEFORE UPDATE ON note_changes
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:the change history is append-only'); END`,
      `CREATE TRIGGER note_changes_delete_only_closed BEFORE DELETE ON note_changes
       WHEN (SELECT state FROM sessions WHERE id = OLD.session_id) NOT IN ('forgotten', 'purged')
       BEGIN SELECT RAISE(ABORT, 'sponge:integrity:the history of a live session is never deleted'); END`,

      // The current notes: the projection of the log, maintained by the triggers above.
      `CREATE TABLE notes (
        session_id TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        data TEXT,
        links TEXT NOT NULL,
        digest TEXT NOT NULL,
        author TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        created_version INTEGER NOT NULL,
        PRIMARY KEY (session_id, name)
      )`,
      `CREATE INDEX notes_version ON notes (session_id, version, seq)`,

      // Every link of every change (a copy of note_changes.links, rebuildable from it). Keyed by the
      // change that carried it, so "who links to X as of version V" is an index range plus a
      // liveness probe, never a session scan.
      `CREATE TABLE link_index (
        session_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        from_name TEXT NOT NULL,
        rel TEXT NOT NULL CHECK (rel IN ('depends_on', 'supports', 'contradicts')),
        to_name TEXT NOT NULL,
        PRIMARY KEY (session_id, version, seq, idx)
      )`,
      `CREATE INDEX link_index_to ON link_index (session_id, to_name, from_name, version)`,
      `CREATE INDEX link_index_contradicts ON link_index (session_id, to_name, from_name, version) WHERE rel = 'contradicts'`,

      // The last statement of a remember batch that carries links: every link of this call's
      // changes must point to a note that exists once the call applied, or to one of the reviewed
      // records in view (passed as a JSON list; the pinned revision is immutable, so the store
      // can resolve those itself). A view with an INSTEAD OF trigger stores nothing.
      `CREATE VIEW call_checks AS SELECT NULL AS session_id, NULL AS version, NULL AS reviewed_targets`,
      `CREATE TRIGGER call_checks_links INSTEAD OF INSERT ON call_checks
       BEGIN
         SELECT RAISE(ABORT, 'sponge:no_such_note')
          WHERE EXISTS (
            SELECT 1 FROM link_index AS l
             WHERE l.session_id = NEW.session_id AND l.version = NEW.version
               AND NOT EXISTS (SELECT 1 FROM notes AS n WHERE n.session_id = l.session_id AND n.name = l.to_name)
               AND l.to_name NOT IN (SELECT value FROM json_each(NEW.reviewed_targets)));
       END`,

      // The purge worker's credential: sha256 of its key, registered on first use.
      `CREATE TABLE purge_credential (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        key_hash TEXT NOT NULL,
        registered_at TEXT NOT NULL
      )`,
      `CREATE TRIGGER purge_credential_fixed BEFORE UPDATE ON purge_credential
       BEGIN SELECT RAISE(ABORT, 'sponge:unauthenticated:the purge credential cannot be changed in place'); END`,
    ],
  },
];

/**
 * Opens the memory database and brings its schema up to date: what the store, the purge worker
 * and the verifier each do first. Failures leave the package as MemoryErrors, and a client whose
 * migrations failed is closed again.
 */
export async function openMemoryDatabase(options: OpenDatabaseOptions, now: () => Date): Promise<Client> {
  let client: Client;
  try {
    client = await openDatabase(options);
  } catch (error) {
    throw toMemoryError(error, 'opening the memory database');
  }
  try {
    await applyMigrations(client, MEMORY_NAMESPACE, MEMORY_MIGRATIONS, now);
  } catch (error) {
    client.close();
    throw toMemoryError(error, 'migrating the memory database');
  }
  return client;
}
