/**
 * The library's tables in the application database (SPEC §6b, §6c): documents and their sharing,
 * the search indexes (vectors and keywords, derived), OCR jobs, uploads being extracted and the
 * leases on background work. They live beside the app's own tables, in its migration namespace
 * and in the order they were released: the app assembles the one ordered list from these entries
 * and its own (apps/api/src/migrations.ts), so a database made before the library was a
 * package upgrades unchanged. A migration's id is its position in that list: never edit or
 * reorder a released entry; a change is a new entry, appended by the app where its list ends.
 *
 * The library's statements read the app's `users` table (id, name, email, disabled_at) and never
 * write it. Used alone (tools, benchmarks, the library's own tests), `LIBRARY_ALONE` gives it a
 * schema of its own with the few columns of `users` it reads.
 */
import type { DerivedMigration, Migration } from '@oh/memory';

/** A schema the library's migrations are part of: the namespace and the whole ordered list. */
export interface LibrarySchema {
  namespace: string;
  migrations: readonly Migration[];
}

/**
 * What JavaScript's String.prototype.trim takes off both ends (ECMAScript's WhiteSpace and
 * LineTerminator), as SQLite's trim() takes a set of characters: normaliseTags trims with it.
 * Written out, not taken from a library, because a released migration never changes.
 */
const JS_WHITESPACE = `char(9, 10, 11, 12, 13, 32, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199,
  8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288, 65279)`;

/** A cut part of a tag as normaliseTags keeps it: trimmed, its leading `#`s dropped, trimmed again. */
const keptTag = (part: string) => `trim(ltrim(trim(${part}, ${JS_WHITESPACE}), '#'), ${JS_WHITESPACE})`;

/**
 * The library's migrations, by the id and name they were released under in the app's list. Two
 * are parts of the app's entries, statements rather than entries: `documents001` (the documents,
 * shared with accounts by id, published), which the app's 001 holds between its users' and its
 * runs' tables, and `emailShares010` (shares by email), in the app's 010 between the accounts'
 * tables and the drop of the old login tokens. `chunksSized005` and `keywords011` are derived:
 * built for the embedding adapter by `prepareDocumentIndex`.
 */
export const LIBRARY_MIGRATIONS = {
  documents001: [
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
  ] as readonly string[],
  emailShares010: [
    // Shares by email (SPEC §6c): the owner shares with an address; whoever holds an account
    // with it (now or later) reads the document. The answer never says whether one exists.
    `CREATE TABLE email_shares (
        document_id TEXT NOT NULL REFERENCES documents(id),
        email TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (document_id, email)
      )`,
    'CREATE INDEX email_shares_email ON email_shares(email)',
  ] as readonly string[],
  chunks003: {
    // Search vectors over the library (issue 6): one row per chunk of a document's title, abstract
    // and text, tied to the digest of that content. Derived data: rebuilt when the digest or the
    // embedding model differs. Sized for the default local adapter (256); a deployment whose
    // adapter has another dimension gets the table recreated at start (see search/index-store.ts).
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
  } satisfies Migration,
  chunksSized005: {
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
      // search/index-store.ts sends every document whose chunks are gone back to indexing.
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
  } satisfies DerivedMigration,
  library008: {
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
  } satisfies Migration,
  keywords011: {
    // The keyword index (SPEC §6b, issue 27): FTS5 with BM25 beside the vectors, derived like them
    // (rebuilt, empty, whenever 005 rebuilds document_chunks or this shape changes; the indexer
    // refills it, see search/keyword-index.ts). `document_chunk_spans` gives every indexed chunk
    // an integer id (the FTS rowid) and its character span in the document's text. The keyword
    // table holds the passage (`text`) and a `scope` of one owner token and one document token, so
    // a search intersects with the owner's postings instead of filtering every owner's matches.
    // Porter stemming over unicode61 without diacritics: a DOI, "8 DHW" or --max-pages are
    // searched as phrases of their parts (search/keyword-index.ts matchQuery). secure-delete:
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
  } satisfies DerivedMigration,
  ocr012: {
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
  } satisfies Migration,
  extractionJobs013: {
    // Extraction in view (SPEC §6b, issue 27): an upload's document row is stored, without text,
    // as soon as its file is in, with a job row while its text is extracted: `done` of `total`
    // pages read (0 of 0 until the PDF's page count is known). While the job row exists the
    // document is `extracting` and nothing else takes it up; the upload fills the row in and
    // deletes the job, or deletes both when it is refused. The request that extracts beats
    // `alive_at`; a row no request has beaten for a while was left by a process that died, and is
    // deleted with its document (uploads/extraction-store.ts). The reference is checked when the
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
  } satisfies Migration,
  searchable014: {
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
  } satisfies Migration,
  shareConfirmation017: {
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
  } satisfies Migration,
  extractionQueue021: {
    // The extraction queue shared by every API process on this database (SPEC §6b, §6c, issue
    // 37): an upload's PDF job says whose it is and whether it waits for its turn or is being
    // read, so one owner has one file read and one waiting across all processes, and the files
    // waiting are counted once (uploads/queue-ledger.ts). NULL: not in the queue (a text file, or
    // a job not scheduled yet or done). A job whose process died stops counting with its beats.
    name: '021_extraction_queue',
    statements: [
      'ALTER TABLE extraction_jobs ADD COLUMN owner_id TEXT',
      `ALTER TABLE extraction_jobs ADD COLUMN queue_state TEXT CHECK (queue_state IN ('waiting', 'running'))`,
      'ALTER TABLE extraction_jobs ADD COLUMN running_since_ms INTEGER',
      'CREATE INDEX extraction_jobs_queue ON extraction_jobs(queue_state, owner_id) WHERE queue_state IS NOT NULL',
    ],
  } satisfies Migration,
  workLeases022: {
    // Leases on a document's background work (issue 37 point 5, SPEC §6b): the OCR of its scanned
    // pages, then its indexing, each done by one API process at a time of all those on this
    // database (work-lease.ts). A process takes the work with one statement that succeeds
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
  } satisfies Migration,
  pageStartsCp023: {
    // Where each page starts counted as SQL's substr() counts (code points), beside page_starts
    // (JavaScript's UTF-16 offsets), so one page is cut out of the stored text by the database and
    // the rest never leaves it (documents.page, issue 39). The two differ after a character
    // outside the Basic Multilingual Plane (math letters, emoji), which PDFs of papers hold. NULL
    // on a row written before: where the counts agree page_starts serves, else the first reader
    // works the starts out from the text once and keeps them (documents/reading.ts).
    name: '023_document_page_starts_cp',
    statements: ['ALTER TABLE documents ADD COLUMN page_starts_cp TEXT'],
  } satisfies Migration,
  metadata027: {
    // What a document is (SPEC §6d, issue 41): its year, DOI (normalised: lowercase, no resolver),
    // venue and a citation key chosen once when it is added (documents/metadata.ts; a row written
    // before gets its key the first time it is read), and the SHA-256 of the bytes it came from (an
    // upload's file, a pasted text's stored text). One live document per owner holds a given
    // SHA-256 or DOI: the unique indexes make two uploads of the same file at once refused as
    // the duplicate they are, not both stored. Tags in order, each once whatever its case
    // (`folded`, the lowercase form a tag filter looks up).
    name: '027_document_metadata',
    statements: [
      'ALTER TABLE documents ADD COLUMN year INTEGER',
      'ALTER TABLE documents ADD COLUMN doi TEXT',
      `ALTER TABLE documents ADD COLUMN venue TEXT NOT NULL DEFAULT ''`,
      'ALTER TABLE documents ADD COLUMN citation_key TEXT',
      'ALTER TABLE documents ADD COLUMN content_sha256 TEXT',
      `CREATE UNIQUE INDEX documents_citation_key ON documents(owner_id, citation_key)
        WHERE citation_key IS NOT NULL`,
      `CREATE UNIQUE INDEX documents_sha256 ON documents(owner_id, content_sha256)
        WHERE content_sha256 IS NOT NULL AND removed_at IS NULL`,
      `CREATE UNIQUE INDEX documents_doi ON documents(owner_id, doi)
        WHERE doi IS NOT NULL AND removed_at IS NULL`,
      `CREATE TABLE document_tags (
        document_id TEXT NOT NULL REFERENCES documents(id),
        tag TEXT NOT NULL,
        folded TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (document_id, folded)
      )`,
      'CREATE INDEX document_tags_folded ON document_tags(folded, document_id)',
    ],
  } satisfies Migration,
  documentTexts028: {
    // A document's text apart from its row (issue 41, point 9). Stored in the row, 60,000
    // characters of text put every column after it (characters, index_total, removed_at…)
    // behind the text's overflow pages, so each add's quota check and each list walked every text
    // of the owner's: measured at 10,000 such documents (bench/README.md, "A real library's
    // size"), an add 290 ms against 4.28 ms for the first ones, the list 580 ms. The row keeps
    // `pages`, what the list shows; the text and where its pages start are read only by what
    // reads the text. Every live document has its text row, written in the same batch as the
    // document (an upload's, empty, while it is extracting); a removed one has none. The quota
    // check (documents/rules.ts USAGE) is answered from `documents_usage` alone.
    name: '028_document_texts',
    statements: [
      `CREATE TABLE document_texts (
        document_id TEXT PRIMARY KEY REFERENCES documents(id),
        text TEXT NOT NULL DEFAULT '',
        page_starts TEXT NOT NULL DEFAULT '[0]',
        page_starts_cp TEXT
      )`,
      `INSERT INTO document_texts (document_id, text, page_starts, page_starts_cp)
         SELECT id, text, page_starts, page_starts_cp FROM documents WHERE removed_at IS NULL`,
      'ALTER TABLE documents ADD COLUMN pages INTEGER NOT NULL DEFAULT 0',
      'UPDATE documents SET pages = json_array_length(page_starts) WHERE removed_at IS NULL',
      // No index, trigger, view or CHECK names these columns, so they can be dropped.
      'ALTER TABLE documents DROP COLUMN text',
      'ALTER TABLE documents DROP COLUMN page_starts',
      'ALTER TABLE documents DROP COLUMN page_starts_cp',
      // removed_at too, NULL in every entry: SQLite takes a partial index for covering only when
      // it holds every column the query names, its WHERE's included.
      `CREATE INDEX documents_usage ON documents(owner_id, characters, index_total, removed_at)
        WHERE removed_at IS NULL`,
    ],
  } satisfies Migration,
  tagsCut029: {
    // Tags cut at commas and semicolons (issue 41, point 5): since 3c74574 normaliseTags cuts a
    // tag there (BibTeX's and CSL-JSON's keywords separate tags with them) and a search's tag may
    // hold neither, so a tag stored whole before could not be searched for, though the library's
    // tag filter offered it. Each document holding one gets its tags again as normaliseTags makes
    // them of the stored ones in their order: each cut where it stood, its parts trimmed and
    // without leading `#`, empty ones and the later of two alike in case left out, at most 50
    // (METADATA_LIMITS.tags, as an import keeps them), `position` counted again from 0. A
    // document without such a tag is not touched.
    // `folded` (JavaScript's toLowerCase of the tag) is cut beside the tag rather than computed:
    // SQLite's lower() folds ASCII only. Lowercasing keeps every comma and semicolon and makes
    // none, and no case mapping reaches across one, so the two cut into the same parts, each
    // part's folded form the fold of the part, even where folding changes a length (İ → i̇).
    name: '029_document_tags_cut',
    statements: [
      `CREATE TABLE document_tags_cut AS
        WITH RECURSIVE parts(document_id, position, n, part, folded_part, rest, folded_rest) AS (
          SELECT document_id, position, 0, NULL, NULL,
                 replace(tag, ';', ',') || ',', replace(folded, ';', ',') || ','
            FROM document_tags
           WHERE document_id IN (SELECT document_id FROM document_tags WHERE tag GLOB '*[,;]*')
          UNION ALL
          SELECT document_id, position, n + 1,
                 substr(rest, 1, instr(rest, ',') - 1), substr(folded_rest, 1, instr(folded_rest, ',') - 1),
                 substr(rest, instr(rest, ',') + 1), substr(folded_rest, instr(folded_rest, ',') + 1)
            FROM parts WHERE rest <> ''
        ),
        kept AS (
          SELECT document_id, position, n, ${keptTag('part')} AS tag, ${keptTag('folded_part')} AS folded
            FROM parts WHERE n > 0
        ),
        firsts AS (
          SELECT *, row_number() OVER (PARTITION BY document_id, folded ORDER BY position, n) AS nth
            FROM kept WHERE tag <> ''
        )
        SELECT document_id, tag, folded,
               row_number() OVER (PARTITION BY document_id ORDER BY position, n) - 1 AS position
          FROM firsts WHERE nth = 1`,
      // Every tag of such a document, the whole ones too: they are written again in their new places.
      `DELETE FROM document_tags
        WHERE document_id IN (SELECT document_id FROM document_tags WHERE tag GLOB '*[,;]*')`,
      `INSERT INTO document_tags (document_id, tag, folded, position)
        SELECT document_id, tag, folded, position FROM document_tags_cut WHERE position < 50`,
      'DROP TABLE document_tags_cut',
    ],
  } satisfies Migration,
  documentsListed030: {
    // The owner's list of a library of 10,000 (issue 41, point 9): read in its order from an index
    // rather than sorted (sorting the rows with their metadata was a third of the list's time),
    // and each document's tags in their order from a covering index rather than sorted per
    // document (a quarter). On a copy of the bench's library of 10,000, the list's p50 in three
    // alternating rounds: 147–155 ms before, 107–116 ms after.
    name: '030_documents_listed',
    statements: [
      `CREATE INDEX documents_listed ON documents(owner_id, created_at DESC, title, id)
        WHERE removed_at IS NULL`,
      'CREATE INDEX document_tags_order ON document_tags(document_id, position, tag)',
    ],
  } satisfies Migration,
};

/**
 * The library alone, in a database of its own (a namespace of its own too): its migrations in
 * their order, after the few columns of the app's `users` that they read. For tools, benchmarks
 * and tests; an app's database takes the entries above into its own list instead.
 */
export const LIBRARY_ALONE: LibrarySchema = {
  namespace: 'library',
  migrations: [
    {
      name: '000_owners',
      statements: [
        `CREATE TABLE users (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          email TEXT UNIQUE,
          disabled_at TEXT,
          created_at TEXT NOT NULL
        )`,
      ],
    },
    { name: '001_documents', statements: LIBRARY_MIGRATIONS.documents001 },
    LIBRARY_MIGRATIONS.chunks003,
    LIBRARY_MIGRATIONS.chunksSized005,
    LIBRARY_MIGRATIONS.library008,
    { name: '010_email_shares', statements: LIBRARY_MIGRATIONS.emailShares010 },
    LIBRARY_MIGRATIONS.keywords011,
    LIBRARY_MIGRATIONS.ocr012,
    LIBRARY_MIGRATIONS.extractionJobs013,
    LIBRARY_MIGRATIONS.searchable014,
    LIBRARY_MIGRATIONS.shareConfirmation017,
    LIBRARY_MIGRATIONS.extractionQueue021,
    LIBRARY_MIGRATIONS.workLeases022,
    LIBRARY_MIGRATIONS.pageStartsCp023,
    LIBRARY_MIGRATIONS.metadata027,
    LIBRARY_MIGRATIONS.documentTexts028,
    LIBRARY_MIGRATIONS.tagsCut029,
    LIBRARY_MIGRATIONS.documentsListed030,
  ],
};
