import type { Migration } from '@oh/memory';

/**
 * The API's own tables in the application database (sponge.db). Reviewed knowledge lives in the
 * same database but belongs to @oh/memory, which migrates it under its own namespace.
 *
 * Append only: a released migration is never edited, a change is a new entry.
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
      `CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES users(id),
        title TEXT NOT NULL,
        authors TEXT NOT NULL DEFAULT '[]',
        abstract TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL DEFAULT '',
        memory_in_staged_runs INTEGER NOT NULL DEFAULT 0 CHECK (memory_in_staged_runs IN (0, 1)),
        created_at TEXT NOT NULL,
        removed_at TEXT
      )`,
      `CREATE INDEX documents_owner ON documents(owner_id)`,
      `CREATE TABLE shares (
        document_id TEXT NOT NULL REFERENCES documents(id),
        user_id TEXT NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        PRIMARY KEY (document_id, user_id)
      )`,
      `CREATE INDEX shares_user ON shares(user_id)`,
      `CREATE TABLE publications (
        document_id TEXT PRIMARY KEY REFERENCES documents(id),
        published_at TEXT NOT NULL
      )`,
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
  {
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
  {
    // Search vectors over the library (issue 6): one row per chunk of a document's title, abstract
    // and text, tied to the digest of that content. Derived data: rebuilt when the digest or the
    // embedding model differs. Sized for the default local adapter (256); a deployment whose
    // adapter has another dimension gets the table recreated at start (see library/index-store.ts).
    name: '003_document_chunks',
    statements: [
      `CREATE TABLE document_chunks (
        document_id TEXT NOT NULL REFERENCES documents(id),
        chunk INTEGER NOT NULL,
        digest TEXT NOT NULL,
        model TEXT NOT NULL,
        embedding F32_BLOB(256) NOT NULL,
        PRIMARY KEY (document_id, chunk)
      )`,
    ],
  },
  {
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
  {
    // document_chunks as derived tables (issue 6): 003 sized the column for the default adapter,
    // but the adapter is only known at start, so from here the table follows its dimension and is
    // rebuilt when that changes (vectors are derived data, re-embedded lazily by search). Applied
    // by prepareDocumentIndex, which passes the dimension; without it this entry is skipped.
    name: '005_document_chunks_sized',
    derive: ({ dimensions }) => {
      if (dimensions === undefined) return undefined;
      if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1) {
        throw new RangeError(
          `document_chunks: dimensions must be a positive integer, not ${String(dimensions)}`,
        );
      }
      // v2 (issue 17): each chunk keeps its page and passage, so search answers with them without
      // reading the document. The shape names the version: a v1 table is rebuilt, and
      // library/index-store.ts sends every document whose chunks are gone back to indexing.
      return {
        shape: `v2 F32_BLOB(${dimensions})`,
        statements: [
          `CREATE TABLE document_chunks (
            document_id TEXT NOT NULL REFERENCES documents(id),
            chunk INTEGER NOT NULL,
            page INTEGER NOT NULL,
            text TEXT NOT NULL,
            digest TEXT NOT NULL,
            model TEXT NOT NULL,
            embedding F32_BLOB(${dimensions}) NOT NULL,
            PRIMARY KEY (document_id, chunk)
          )`,
        ],
      };
    },
    drop: ['DROP TABLE IF EXISTS document_chunks'],
  },
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
  {
    // Your own library (issue 17, SPEC §6b). A document keeps its whole text in \`text\` (pages
    // joined by a blank line) and where each page starts in \`page_starts\` (JSON offsets), so
    // page numbers cost no second copy of the text. Indexing is resumable state on the row:
    // \`indexing\` until every chunk is embedded, then \`ready\`, or \`failed\` with a reason.
    // \`library_versions\` moves whenever an owner's searchable chunks change, so every API
    // process can tell at a glance whether its in-memory index of that owner is current.
    name: '008_document_library',
    statements: [
      `ALTER TABLE documents ADD COLUMN source TEXT NOT NULL DEFAULT 'text'
         CHECK (source IN ('text', 'markdown', 'pdf'))`,
      `ALTER TABLE documents ADD COLUMN page_starts TEXT NOT NULL DEFAULT '[0]'`,
      `ALTER TABLE documents ADD COLUMN characters INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE documents ADD COLUMN index_state TEXT NOT NULL DEFAULT 'indexing'
         CHECK (index_state IN ('indexing', 'ready', 'failed'))`,
      `ALTER TABLE documents ADD COLUMN index_error TEXT`,
      `ALTER TABLE documents ADD COLUMN index_done INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE documents ADD COLUMN index_total INTEGER NOT NULL DEFAULT 0`,
      `UPDATE documents SET characters = length(text)`,
      `CREATE INDEX documents_indexing ON documents(created_at)
         WHERE index_state = 'indexing' AND removed_at IS NULL`,
      `CREATE TABLE library_versions (
        owner_id TEXT PRIMARY KEY REFERENCES users(id),
        version INTEGER NOT NULL
      )`,
    ],
  },
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
      // Shares by email (SPEC §6c): the owner shares with an address; whoever holds an account
      // with it (now or later) reads the document. The answer never says whether one exists.
      `CREATE TABLE email_shares (
        document_id TEXT NOT NULL REFERENCES documents(id),
        email TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (document_id, email)
      )`,
      'CREATE INDEX email_shares_email ON email_shares(email)',
      'DROP TABLE user_tokens',
    ],
  },
  {
    // The keyword index (SPEC §6b, issue 27): FTS5 with BM25 beside the vectors, derived like them
    // (rebuilt, empty, whenever 005 rebuilds document_chunks or this shape changes; the indexer
    // refills it, see library/keyword-index.ts). `document_chunk_spans` gives every indexed chunk
    // an integer id (the FTS rowid) and its character span in the document's text. The keyword
    // table holds the passage (`text`) and a `scope` of one owner token and one document token, so
    // a search intersects with the owner's postings instead of filtering every owner's matches.
    // Porter stemming over unicode61 without diacritics: a DOI, "8 DHW" or --max-pages are
    // searched as phrases of their parts (library/keyword-index.ts matchQuery). secure-delete:
    // a removed document's terms leave the index at once, as its text leaves the database.
    name: '011_document_keywords',
    derive: () => ({
      shape: 'v1 porter unicode61 remove_diacritics 2',
      statements: [
        `CREATE TABLE document_chunk_spans (
          id INTEGER PRIMARY KEY,
          document_id TEXT NOT NULL,
          chunk INTEGER NOT NULL,
          start INTEGER NOT NULL,
          end INTEGER NOT NULL,
          UNIQUE (document_id, chunk)
        )`,
        `CREATE VIRTUAL TABLE document_keywords USING fts5(
          text, scope, tokenize = "porter unicode61 remove_diacritics 2"
        )`,
        `INSERT INTO document_keywords (document_keywords, rank) VALUES ('secure-delete', 1)`,
      ],
    }),
    drop: ['DROP TABLE IF EXISTS document_keywords', 'DROP TABLE IF EXISTS document_chunk_spans'],
  },
  {
    // OCR of scanned pages (SPEC §6b, issue 27). A PDF with pages that have no text layer is
    // stored with those pages empty and an OCR job: the file itself (kept only until OCR ends),
    // the pages to read (JSON, 1-based, at most OCR_MAX_PAGES of them) and how many are done, so a
    // restart resumes; `missed` lists pages that timed out or could not be drawn. While its job
    // exists a document is `recognizing` and the indexer leaves it alone. The document keeps which
    // pages OCR recognised (`ocr_pages`, JSON) and what OCR left out (`ocr_note`).
    name: '012_ocr',
    statements: [
      `CREATE TABLE ocr_jobs (
        document_id TEXT PRIMARY KEY REFERENCES documents(id),
        owner_id TEXT NOT NULL REFERENCES users(id),
        pdf BLOB NOT NULL,
        pages TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        missed TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL
      )`,
      'CREATE INDEX ocr_jobs_created ON ocr_jobs(created_at)',
      `ALTER TABLE documents ADD COLUMN ocr_pages TEXT NOT NULL DEFAULT '[]'`,
      'ALTER TABLE documents ADD COLUMN ocr_note TEXT',
    ],
  },
  {
    // Extraction in view (SPEC §6b, issue 27): an upload's document row is stored, without text,
    // as soon as its file is in, with a job row while its text is extracted: `done` of `total`
    // pages read (0 of 0 until the PDF's page count is known). While the job row exists the
    // document is `extracting` and nothing else takes it up; the upload fills the row in and
    // deletes the job, or deletes both when it is refused. The request that extracts beats
    // `alive_at`; a row no request has beaten for a while was left by a process that died, and is
    // deleted with its document (library/extraction-store.ts). The reference is checked when the
    // batch commits: the batch that deletes a refused upload reads the job row to delete the
    // document, then deletes the job row.
    name: '013_extraction_jobs',
    statements: [
      `CREATE TABLE extraction_jobs (
        document_id TEXT PRIMARY KEY REFERENCES documents(id) DEFERRABLE INITIALLY DEFERRED,
        done INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        alive_at TEXT NOT NULL
      )`,
      'CREATE INDEX extraction_jobs_alive ON extraction_jobs(alive_at)',
    ],
  },
  {
    // The owner's searchable documents (SPEC §6b, issue 27), without reading the documents' rows:
    // `index_state` and `removed_at` are stored after `text`, so SQLite reaches them by walking
    // each document's overflow pages. Searches check a ranked chunk's document (owner_id, id),
    // list the owner's ready documents (owner_id) and sum their chunks (`index_total`, which
    // changes while a document indexes, outside this index) from it. Measured at 100k chunks in
    // 400 documents (bench/README.md, the library figure): a keyword list whose 400 chunks lie in
    // 400 documents 3.76 ms without it, 2.43 with it; the ready documents 0.93 and 0.47 ms.
    name: '014_documents_searchable',
    statements: [
      `CREATE INDEX documents_searchable ON documents(owner_id, id, index_total)
        WHERE index_state = 'ready' AND removed_at IS NULL`,
    ],
  },
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
  {
    // Sharing by email proves nothing about who signs up (SPEC §6c, issue 37): a share by email
    // is granted (`granted_to`, the account that may read) only when the owner confirms the
    // account holding the address, or when someone opens the owner's invitation link. Shares
    // that sign-up or an existing account received at once were never confirmed, and anyone could
    // have signed up with the address: they go back to waiting (the `shares` row that grants the
    // reading is deleted; a share made by id before the email share is older, and stays).
    // An invitation is kept as the SHA-256 hash of its token, never the token; one use, expiring.
    name: '017_share_confirmation',
    statements: [
      'ALTER TABLE email_shares ADD COLUMN granted_to TEXT REFERENCES users(id)',
      'ALTER TABLE email_shares ADD COLUMN granted_at TEXT',
      `DELETE FROM shares WHERE EXISTS (
        SELECT 1 FROM email_shares e JOIN users u ON u.email = e.email
        WHERE e.document_id = shares.document_id AND u.id = shares.user_id
          AND shares.created_at >= e.created_at)`,
      `CREATE TABLE share_invites (
        token_hash TEXT PRIMARY KEY,
        document_id TEXT NOT NULL REFERENCES documents(id),
        email TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        used_by TEXT REFERENCES users(id)
      )`,
      'CREATE INDEX share_invites_share ON share_invites(document_id, email)',
    ],
  },
  {
    // Connected agents (SPEC §6c, issue 37): when an API key, and an MCP client the owner let in
    // with OAuth, was last used, for the owner's *Connected agents* page. A client's use is kept
    // on the owner's consent to it, which outlives the client's rotating tokens
    // (data/connected-agents.ts). Written at most once a minute per credential.
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
    // row past its end means nothing and is swept by the next writer (data/limit-store.ts).
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
    // (live/stream-places.ts). `until_ms` (the API clock's epoch milliseconds) is the lease the
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
  {
    // The extraction queue shared by every API process on this database (SPEC §6b, §6c, issue
    // 37): an upload's PDF job says whose it is and whether it waits for its turn or is being
    // read, so one owner has one file read and one waiting across all processes, and the files
    // waiting are counted once (library/queue-ledger.ts). NULL: not in the queue (a text file, or
    // a job not scheduled yet or done). A job whose process died stops counting with its beats.
    name: '021_extraction_queue',
    statements: [
      'ALTER TABLE extraction_jobs ADD COLUMN owner_id TEXT',
      `ALTER TABLE extraction_jobs ADD COLUMN queue_state TEXT CHECK (queue_state IN ('waiting', 'running'))`,
      'ALTER TABLE extraction_jobs ADD COLUMN running_since_ms INTEGER',
      'CREATE INDEX extraction_jobs_queue ON extraction_jobs(queue_state, owner_id) WHERE queue_state IS NOT NULL',
    ],
  },
  {
    // Leases on a document's background work (issue 37 point 5, SPEC §6b): the OCR of its scanned
    // pages, then its indexing, each done by one API process at a time of all those on this
    // database (library/work-lease.ts). A process takes the work with one statement that succeeds
    // only when no other holds it (or the holder's lease lapsed: `until_ms`, the API clock's epoch
    // milliseconds, which the holder moves on while it works), and every write of that work is
    // made only while the lease is still its own. A table of its own: a lease renewed on the
    // `ocr_jobs` row would read the row's PDF again each time (measured: 48 ms a renewal beside a
    // 20 MiB PDF, 1.8 ms on a small row).
    name: '022_work_leases',
    statements: [
      `CREATE TABLE work_leases (
        work TEXT NOT NULL CHECK (work IN ('ocr', 'index')),
        document_id TEXT NOT NULL,
        holder TEXT NOT NULL,
        until_ms INTEGER NOT NULL,
        PRIMARY KEY (work, document_id)
      )`,
    ],
  },
];
