import type { Migration } from '@oh/memory';
import { LIBRARY_MIGRATIONS as LIBRARY } from '@sponge/library';
import type { LibrarySchema } from '@sponge/library';
import { REVIEWED_MIGRATIONS as REVIEWED } from '@sponge/reviewed';

/**
 * The application database's migrations (sponge.db), in one ordered list under the namespace
 * `app`: the API's own tables, the library's (@sponge/library, `LIBRARY_MIGRATIONS`) and reviewed
 * knowledge's profile installs (@sponge/reviewed, `REVIEWED_MIGRATIONS`) where they were released.
 * Reviewed knowledge's revisions, decisions and records live in the same database under a
 * namespace of their own, which @sponge/reviewed migrates when it opens.
 *
 * Append only: a released migration is never edited, a change is a new entry. A migration's id
 * is its position here (migrations.test.ts holds the released list and checks it).
 */
export const APP_MIGRATIONS: Migration[] = [
  {
    name: '001_users_documents_runs',
    statements: [
      `CREATE TABLE users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        is_demo INTEGER NOT NULL DEFAULT 0 CHECK (is_demo IN (0, 1)),
        created_at TEXT NOT NULL
      )`,
      // Login sessions. Only the SHA-256 of the token is kept.
      `CREATE TABLE user_tokens (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      )`,
      `CREATE INDEX user_tokens_user ON user_tokens(user_id)`,
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        key_hash TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      )`,
      ...LIBRARY.documents001,
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        document_id TEXT NOT NULL REFERENCES documents(id),
        owner_id TEXT NOT NULL REFERENCES users(id),
        mode TEXT NOT NULL CHECK (mode IN ('chat', 'staged')),
        status TEXT NOT NULL CHECK (status IN ('live', 'finished')),
        session_id TEXT,
        token_hash TEXT NOT NULL UNIQUE,
        accepted_at TEXT NOT NULL,
        finished_at TEXT
      )`,
      `CREATE INDEX runs_document ON runs(document_id, accepted_at)`,
      `CREATE TABLE transcript_messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES runs(id),
        at TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('you', 'agent')),
        text TEXT NOT NULL
      )`,
      `CREATE INDEX transcript_messages_run ON transcript_messages(run_id, id)`,
      // Recall calls, for transcript cards. Deliberately no names: copying note names into the
      // application database would let them outlive Forget now and the purge.
      `CREATE TABLE recall_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES runs(id),
        session_id TEXT NOT NULL,
        at TEXT NOT NULL,
        mode TEXT NOT NULL,
        count INTEGER NOT NULL
      )`,
      `CREATE INDEX recall_events_run ON recall_events(run_id, id)`,
    ],
  },
  REVIEWED.documentProfiles002,
  LIBRARY.chunks003,
  REVIEWED.profilePacks004,
  LIBRARY.chunksSized005,
  {
    // The hosted runtime (SPEC §7b) claims runs: a claim issues the run's token (the one made at
    // accept is never handed out). claimed_at records when the runtime last took the run.
    name: '006_runs_claimed_at',
    statements: ['ALTER TABLE runs ADD COLUMN claimed_at TEXT'],
  },
  {
    // runtime.pending runs on every poll of the hosted runtime: only live runs are candidates, and
    // finished ones pile up over time, so the lookup reads a partial index of the live ones.
    name: '007_runs_live',
    statements: [`CREATE INDEX runs_live ON runs(accepted_at) WHERE status = 'live'`],
  },
  LIBRARY.library008,
  {
    // Runtime leases (SPEC §7b, issue 24): a claim holds the run until lease_expires_at (ISO-8601,
    // renewed while the turn works, cleared when the runtime lets go). While it holds, the run is
    // left out of runtime.pending and another claim answers CONFLICT `claimed`; NULL: not held.
    name: '009_runs_lease',
    statements: ['ALTER TABLE runs ADD COLUMN lease_expires_at TEXT'],
  },
  {
    // Real accounts (SPEC §6c, issue 26), in the tables better-auth reads through its Kysely
    // adapter (accounts/accounts.ts maps its model and field names onto these). `users` gains an
    // email (demo owners get one at an address that cannot receive mail), `disabled_at` (the
    // `users` command's disable), and better-auth's own columns. Sessions replace the old login
    // tokens: better-auth keeps a session's token as it is (not a hash) and signs the cookie; a
    // session is `ut_…`, 32 random bytes, like the tokens it replaces. Old login tokens are
    // dropped: people signed in before the upgrade sign in again.
    name: '010_accounts',
    statements: [
      'ALTER TABLE users ADD COLUMN email TEXT',
      'ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0',
      'ALTER TABLE users ADD COLUMN image TEXT',
      'ALTER TABLE users ADD COLUMN updated_at TEXT',
      'ALTER TABLE users ADD COLUMN disabled_at TEXT',
      'UPDATE users SET updated_at = created_at',
      `UPDATE users SET email = id || '@demo.invalid' WHERE is_demo = 1`,
      'CREATE UNIQUE INDEX users_email ON users(email)',
      `CREATE TABLE auth_sessions (
        id TEXT PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES users(id),
        expires_at TEXT NOT NULL,
        ip_address TEXT,
        user_agent TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX auth_sessions_user ON auth_sessions(user_id)',
      'CREATE INDEX auth_sessions_expires ON auth_sessions(expires_at)',
      `CREATE TABLE auth_accounts (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id),
        access_token TEXT,
        refresh_token TEXT,
        id_token TEXT,
        access_token_expires_at TEXT,
        refresh_token_expires_at TEXT,
        scope TEXT,
        password TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX auth_accounts_user ON auth_accounts(user_id)',
      `CREATE TABLE auth_verifications (
        id TEXT PRIMARY KEY,
        identifier TEXT NOT NULL,
        value TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      ...LIBRARY.emailShares010,
      'DROP TABLE user_tokens',
    ],
  },
  LIBRARY.keywords011,
  LIBRARY.ocr012,
  LIBRARY.extractionJobs013,
  LIBRARY.searchable014,
  {
    // The research assistant (SPEC §7b, issue 28). `run_library_events`: a card per successful
    // `library.search` (its query, the hits' count, the document it was narrowed to) and
    // `library.read` (the document, the page the passage starts on and its span); no text of the
    // document, and its title is read when the transcript is. `message_citations`: what an agent
    // reply cites, as `agent.say` judged it. A passage keeps its document, page and quote (the
    // quote is cleared when that document is removed, as its text is); a working note never keeps
    // its name — copied here it would outlive Forget now and the purge — but where the run's
    // session log holds it (`note_version`, the log entry, and `note_index`, the change in it), so
    // the transcript shows the name while the log exists. Both stay with their run, as its
    // messages and recall cards do.
    name: '015_research_cards_citations',
    statements: [
      `CREATE TABLE run_library_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES runs(id),
        at TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('searched', 'read')),
        query TEXT,
        count INTEGER,
        document_id TEXT,
        page INTEGER,
        span_start INTEGER,
        span_end INTEGER
      )`,
      'CREATE INDEX run_library_events_run ON run_library_events(run_id, id)',
      `CREATE TABLE message_citations (
        message_id INTEGER NOT NULL REFERENCES transcript_messages(id),
        position INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('verified', 'unverified', 'note')),
        document_id TEXT,
        page INTEGER,
        quote TEXT,
        note_version INTEGER,
        note_index INTEGER,
        PRIMARY KEY (message_id, position)
      )`,
      'CREATE INDEX message_citations_document ON message_citations(document_id) WHERE quote IS NOT NULL',
    ],
  },
  {
    // OAuth sign-in for MCP clients (SPEC §7d, issue 29): the tables of better-auth's OAuth
    // provider (mcp/oauth.ts), under our snake_case names. Clients register themselves (RFC 7591);
    // `/mcp` is the one protected resource (RFC 8707), a row per origin it is reached under; codes
    // live in auth_verifications. Tokens are stored as SHA-256 hashes, never in the clear.
    // String lists and JSON are TEXT (JSON), booleans 0/1, times ISO text, as in 010.
    name: '016_oauth_provider',
    statements: [
      `CREATE TABLE oauth_clients (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL UNIQUE,
        client_secret TEXT,
        client_discovery_id TEXT,
        disabled INTEGER DEFAULT 0,
        skip_consent INTEGER,
        enable_end_session INTEGER,
        subject_type TEXT,
        scopes TEXT,
        client_credentials_scopes TEXT,
        user_id TEXT REFERENCES users(id),
        created_at TEXT,
        updated_at TEXT,
        name TEXT,
        uri TEXT,
        icon TEXT,
        contacts TEXT,
        tos TEXT,
        policy TEXT,
        software_id TEXT,
        software_version TEXT,
        software_statement TEXT,
        redirect_uris TEXT NOT NULL,
        post_logout_redirect_uris TEXT,
        backchannel_logout_uri TEXT,
        backchannel_logout_session_required INTEGER,
        token_endpoint_auth_method TEXT,
        application_type TEXT,
        jwks TEXT,
        jwks_uri TEXT,
        grant_types TEXT,
        response_types TEXT,
        require_pkce INTEGER,
        dpop_bound_access_tokens INTEGER DEFAULT 0,
        reference_id TEXT,
        metadata TEXT
      )`,
      'CREATE INDEX oauth_clients_user ON oauth_clients(user_id)',
      `CREATE TABLE oauth_resources (
        id TEXT PRIMARY KEY,
        identifier TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        access_token_ttl INTEGER,
        refresh_token_ttl INTEGER,
        signing_algorithm TEXT,
        signing_key_id TEXT,
        allowed_scopes TEXT,
        custom_claims TEXT,
        dpop_bound_access_tokens_required INTEGER DEFAULT 0,
        disabled INTEGER DEFAULT 0,
        created_at TEXT,
        updated_at TEXT,
        policy_version INTEGER DEFAULT 1,
        metadata TEXT
      )`,
      `CREATE TABLE oauth_client_resources (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
        resource_id TEXT NOT NULL REFERENCES oauth_resources(identifier) ON DELETE CASCADE,
        metadata TEXT,
        created_at TEXT
      )`,
      'CREATE UNIQUE INDEX oauth_client_resources_pair ON oauth_client_resources(client_id, resource_id)',
      'CREATE INDEX oauth_client_resources_resource ON oauth_client_resources(resource_id)',
      `CREATE TABLE oauth_refresh_tokens (
        id TEXT PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,
        client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
        session_id TEXT REFERENCES auth_sessions(id) ON DELETE SET NULL,
        user_id TEXT NOT NULL REFERENCES users(id),
        reference_id TEXT,
        authorization_code_id TEXT,
        resources TEXT,
        requested_user_info_claims TEXT,
        expires_at TEXT,
        created_at TEXT,
        revoked TEXT,
        rotated_at TEXT,
        rotation_replay_response TEXT,
        rotation_replay_expires_at TEXT,
        auth_time TEXT,
        confirmation TEXT,
        scopes TEXT NOT NULL
      )`,
      'CREATE INDEX oauth_refresh_tokens_client ON oauth_refresh_tokens(client_id)',
      'CREATE INDEX oauth_refresh_tokens_session ON oauth_refresh_tokens(session_id)',
      'CREATE INDEX oauth_refresh_tokens_user ON oauth_refresh_tokens(user_id)',
      'CREATE INDEX oauth_refresh_tokens_code ON oauth_refresh_tokens(authorization_code_id)',
      `CREATE TABLE oauth_access_tokens (
        id TEXT PRIMARY KEY,
        token TEXT UNIQUE,
        client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
        session_id TEXT REFERENCES auth_sessions(id) ON DELETE SET NULL,
        user_id TEXT REFERENCES users(id),
        reference_id TEXT,
        authorization_code_id TEXT,
        resources TEXT,
        requested_user_info_claims TEXT,
        refresh_id TEXT REFERENCES oauth_refresh_tokens(id),
        expires_at TEXT,
        created_at TEXT,
        revoked TEXT,
        confirmation TEXT,
        scopes TEXT NOT NULL
      )`,
      'CREATE INDEX oauth_access_tokens_client ON oauth_access_tokens(client_id)',
      'CREATE INDEX oauth_access_tokens_session ON oauth_access_tokens(session_id)',
      'CREATE INDEX oauth_access_tokens_user ON oauth_access_tokens(user_id)',
      'CREATE INDEX oauth_access_tokens_code ON oauth_access_tokens(authorization_code_id)',
      'CREATE INDEX oauth_access_tokens_refresh ON oauth_access_tokens(refresh_id)',
      `CREATE TABLE oauth_consents (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients(client_id),
        user_id TEXT REFERENCES users(id),
        reference_id TEXT,
        resources TEXT,
        requested_user_info_claims TEXT,
        scopes TEXT NOT NULL,
        created_at TEXT,
        updated_at TEXT
      )`,
      'CREATE INDEX oauth_consents_client ON oauth_consents(client_id)',
      'CREATE INDEX oauth_consents_user ON oauth_consents(user_id)',
      `CREATE TABLE oauth_client_assertions (
        id TEXT PRIMARY KEY,
        expires_at TEXT NOT NULL
      )`,
    ],
  },
  LIBRARY.shareConfirmation017,
  {
    // Connected agents (SPEC §6c, issue 37): when an API key, and an MCP client the owner let in
    // with OAuth, was last used, for the owner's *Connected agents* page. A client's use is kept
    // on the owner's consent to it, which outlives the client's rotating tokens
    // (accounts/connected-agents.ts). Written at most once a minute per credential.
    name: '018_connected_agents_last_used',
    statements: [
      'ALTER TABLE api_keys ADD COLUMN last_used_at TEXT',
      'ALTER TABLE oauth_consents ADD COLUMN last_used_at TEXT',
    ],
  },
  {
    // Limits, queues and upload places shared by every API process on this database (SPEC §6c,
    // issue 37): kept here, not in one process's memory, so two processes count the same
    // failures and a restart forgets nothing. Times are the API clock's epoch milliseconds; a
    // row past its end means nothing and is swept by the next writer (http/limit-store.ts).
    // `limit_windows`: fixed-window counts (failed sign-ins per account and per client address,
    // sign-ups per address); `next_ms`/`turn_ms`, the turns of sign-ins past an account's limit.
    // `limit_buckets`: token buckets (/mcp per key, demo sign-in per address); `granted`, what
    // the last take handed out. `upload_places`: upload bodies being received, per owner.
    name: '019_shared_limits',
    statements: [
      `CREATE TABLE limit_windows (
        key TEXT PRIMARY KEY,
        count INTEGER NOT NULL,
        until_ms INTEGER NOT NULL,
        next_ms INTEGER,
        turn_ms INTEGER
      )`,
      'CREATE INDEX limit_windows_until ON limit_windows(until_ms)',
      `CREATE TABLE limit_buckets (
        key TEXT PRIMARY KEY,
        tokens REAL NOT NULL,
        at_ms INTEGER NOT NULL,
        full_ms INTEGER NOT NULL,
        granted INTEGER NOT NULL
      )`,
      'CREATE INDEX limit_buckets_full ON limit_buckets(full_ms)',
      `CREATE TABLE upload_places (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        until_ms INTEGER NOT NULL
      )`,
      'CREATE INDEX upload_places_owner ON upload_places(owner_id, until_ms)',
      'CREATE INDEX upload_places_until ON upload_places(until_ms)',
    ],
  },
  {
    // Open live streams (`chat.events`, issue 37 point 9): a row per open stream, so that every
    // API process counts the same ones against the caps per run and per owner
    // (runs/stream-places.ts). `until_ms` (the API clock's epoch milliseconds) is the lease the
    // stream's periodic read renews; a row past it (its process gone) counts for nothing and is
    // deleted by the owner's next stream. A closed stream deletes its row.
    name: '020_live_streams',
    statements: [
      `CREATE TABLE live_streams (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        until_ms INTEGER NOT NULL
      )`,
      'CREATE INDEX live_streams_owner ON live_streams(owner_id, until_ms)',
      'CREATE INDEX live_streams_run ON live_streams(run_id, until_ms)',
    ],
  },
  LIBRARY.extractionQueue021,
  LIBRARY.workLeases022,
  LIBRARY.pageStartsCp023,
  {
    // How many similar notes a recall found beside how many it showed the agent (`count`, 0 in
    // shadow), so the transcript's card and the Memory panel's agree (issue 39). NULL before.
    name: '024_recall_events_found',
    statements: ['ALTER TABLE recall_events ADD COLUMN found INTEGER'],
  },
  {
    // Where an agent's reply names its session's notes ([start, end) offsets, never the names), so
    // the transcript reads "a forgotten note" there once the session is closed (issue 39).
    name: '025_transcript_note_spans',
    statements: ['ALTER TABLE transcript_messages ADD COLUMN note_spans TEXT'],
  },
  {
    // Whether a cited passage supports its sentence, as the hosted runtime's check found it, kept
    // on a verified quote only (issue 40); NULL before and on a note, read as `unchecked`.
    name: '026_citation_support',
    statements: ['ALTER TABLE message_citations ADD COLUMN support TEXT'],
  },
  LIBRARY.metadata027,
  LIBRARY.documentTexts028,
  LIBRARY.tagsCut029,
  LIBRARY.documentsListed030,
];

/** The application database's schema as the library's index preparation and repair take it. */
export const APP_SCHEMA: LibrarySchema = { namespace: 'app', migrations: APP_MIGRATIONS };
