/**
 * The log is the truth; everything else a session keeps is derived from it (SPEC §4). `verify`
 * replays a session's log from version 1 in JavaScript, independently of the triggers that built
 * the rest, and checks, table by table:
 *
 *   - log: versions 1..V without a gap; each entry's request hash and result recomputed from its
 *     ops; every change legal when replayed (no add of a live name, no replace of a missing one);
 *   - note_changes: the per-change history written in the same batch as the log, one row per
 *     change, as the entry says (append-only like the log, so a finding here is not repairable);
 *   - notes (the projection): every row as the replay says (content, digest column, author, times,
 *     versions), none missing or extra, and the session's note count;
 *   - link_index: exactly the links of every change;
 *   - note_vectors: a vector stored at a note's current digest is re-embedded and compared;
 *     missing, stale and orphaned vectors are only lag (recall catches up), reported apart;
 *   - a forgotten, purged, empty or opening session: no row of it in any session table.
 *
 * History rows never change once written, so the log is read in pages without a snapshot; each
 * page of notes re-reads the session's version, and a session that moved on meanwhile is checked
 * again. `inspect` also returns what `repair` (database.ts) would rebuild. The per-entry checks
 * live in log.ts, the recall ones in vectors.ts.
 */
import type { Row } from '@libsql/client';
import { sessionContentTables } from '../content.ts';
import { num, str } from '../context.ts';
import type { StoreContext } from '../context.ts';
import { compareVectors, recallLag, vectorMeta } from './vectors.ts';
import type { RecallLag, VectorMeta } from './vectors.ts';
import { checkEntry, readHistory, readLog } from './log.ts';
import type { LinkRow, LogRow } from './log.ts';
import { kindOf, parseStoredData, parseStoredLinks, recordDigest, shortDigest } from '../records.ts';
import { NOTE_VECTORS_TABLE, renderNote } from '../recall/index.ts';
import type { EmbeddingAdapter } from '@oh/embeddings';
import { requireSession, toSessionInfo } from '../sessions.ts';
import type { SessionRow } from '../sessions.ts';
import type { JsonValue, SessionState, VerifyReport } from '../types.ts';

/**
 * Log entries (and notes) read per query. Not measured as a value: bigger pages are fewer queries
 * and more rows held at once (the `verify` figure times a full replay of 100,000 entries).
 */
const PAGE = 500;
/**
 * A session an agent keeps writing to is checked again this many times before giving up. Not
 * measured: each attempt is a full replay; the operator is told to run verify again.
 */
const ATTEMPTS = 3;
/** Tables whose rows are rebuilt from the log or the notes; every other session table is history or record. */
const DERIVED_TABLES = ['notes', 'link_index', NOTE_VECTORS_TABLE] as const;

/** What verify reads: a client and the clock (the store's context has both). */
export type VerifyContext = Pick<StoreContext, 'client' | 'now'>;

export interface VerifyFinding {
  /** The table whose rows disagree with the log (`sessions` for the session row itself). */
  table: string;
  /** The note concerned, when there is one. */
  name?: string;
  message: string;
  /** true when `repair` rebuilds it from the log or the notes. */
  repairable: boolean;
}

export interface SessionVerification extends VerifyReport {
  state: SessionState;
  problems: string[];
  /** Every disagreement, `mismatches` included; `ok` is true when this is empty. */
  findings: VerifyFinding[];
  /** Lag of the recall index; null when vectors were not checked (no adapter, or a closed session). */
  recall: RecallLag | null;
  /** Facts for a person that are not mismatches (recall lag, vectors not compared and why). */
  notices: string[];
}

/** What `repair` rebuilds, as found by `inspect`. */
export interface RepairPlan {
  state: SessionRow['state'];
  /** The version the plan was made at: repair writes only while the session is still there. */
  version: number;
  /** false when the log itself fails its checks: nothing is rebuilt from it then. */
  logSound: boolean;
  /** Notes to write from the log (replacing the stored row, if any). */
  putNotes: ReplayedNote[];
  /** Notes the log does not have. */
  dropNotes: string[];
  putLinks: LinkRow[];
  dropLinks: Array<[version: number, seq: number, idx: number]>;
  noteCount: boolean;
  /** Vectors whose content is not their note's: deleted (at that digest) and recomputed. */
  wrongVectors: Array<[name: string, digest: string]>;
  /** Recall vectors to catch up (missing, stale or orphaned). */
  vectorsBehind: boolean;
  /** Derived tables still holding rows of a closed session. */
  closedTables: string[];
}

/** A note as the replay leaves it: where its content is in the log, and the metadata of its row. */
export interface ReplayedNote {
  name: string;
  kind: string;
  digest: string;
  author: string;
  createdAt: string;
  updatedAt: string;
  /** The log entry and change index holding the current content. */
  version: number;
  seq: number;
  createdVersion: number;
}

/** Replays the log and compares everything derived from it (see the module comment). */
export async function verify(
  ctx: VerifyContext,
  sessionId: string,
  options: { recall?: EmbeddingAdapter } = {},
): Promise<SessionVerification> {
  return (await inspect(ctx, sessionId, options)).report;
}

/** `verify`, plus the repair plan; a session that keeps moving is reported, with no plan. */
export async function inspect(
  ctx: VerifyContext,
  sessionId: string,
  options: { recall?: EmbeddingAdapter } = {},
): Promise<{ report: SessionVerification; plan: RepairPlan | null }> {
  for (let attempt = 1; ; attempt++) {
    const session = await requireSession(ctx, sessionId);
    const check = new Check(ctx, session);
    const settled = session.state === 'open' ? await check.open(options.recall) : await check.closed();
    if (settled) return { report: check.report(), plan: check.plan };
    if (attempt === ATTEMPTS) {
      check.find(
        'sessions',
        'the session kept changing while it was verified (an agent is writing); run verify again',
        false,
      );
      return { report: check.report(), plan: null };
    }
  }
}

/** One check of one session: the findings so far, the replayed notes and the repair plan. */
class Check {
  readonly findings: VerifyFinding[] = [];
  readonly mismatches: VerifyReport['mismatches'] = [];
  readonly notices: string[] = [];
  readonly replayed = new Map<string, ReplayedNote>();
  readonly plan: RepairPlan;
  recall: RecallLag | null = null;
  logEntries = 0;
  noteRows = 0;
  readonly #links = { missing: [] as LinkRow[], extra: [] as LinkRow[] };

  constructor(
    readonly ctx: VerifyContext,
    readonly session: SessionRow,
  ) {
    this.plan = {
      state: session.state,
      version: session.version,
      logSound: true,
      putNotes: [],
      dropNotes: [],
      putLinks: [],
      dropLinks: [],
      noteCount: false,
      wrongVectors: [],
      vectorsBehind: false,
      closedTables: [],
    };
  }

  find(table: string, message: string, repairable: boolean, name?: string): void {
    this.findings.push({ table, message, repairable, ...(name === undefined ? {} : { name }) });
    if (table === 'log' || table === 'note_changes') this.plan.logSound = false;
  }

  report(): SessionVerification {
    return {
      ok: this.findings.length === 0,
      sessionId: this.session.id,
      state: toSessionInfo(this.session, this.ctx.now()).state,
      version: this.session.version,
      logEntries: this.logEntries,
      notes: this.noteRows,
      mismatches: this.mismatches,
      problems: this.findings.map((f) => f.message),
      findings: this.findings,
      recall: this.recall,
      notices: this.notices,
    };
  }

  /** A closed session keeps its tombstone and nothing else. Always settles (a closed session never changes). */
  async closed(): Promise<boolean> {
    const { client } = this.ctx;
    const s = this.session;
    const tables = await sessionContentTables(client);
    const rs = await client.execute({
      sql: tables
        .map((t) => `SELECT '${t}' AS t, COUNT(*) AS n FROM ${t} WHERE session_id = ?1`)
        .join(' UNION ALL '),
      args: [s.id],
    });
    for (const row of rs.rows) {
      const table = str(row.t);
      const n = num(row.n);
      if (n === 0) continue;
      const derived = (DERIVED_TABLES as readonly string[]).includes(table);
      if (derived) this.plan.closedTables.push(table);
      if (table === 'log') this.logEntries = n;
      if (table === 'notes') this.noteRows = n;
      const why = derived
        ? ''
        : s.state === 'purged' || s.state === 'forgotten'
          ? '; the purge worker deletes it'
          : '';
      this.find(
        table,
        `${n} row${n === 1 ? '' : 's'} left in ${table}, but a session that is ${s.state} holds no content${why}`,
        derived,
      );
    }
    if (s.noteCount !== 0)
      this.find(
        'sessions',
        `the tombstone counts ${s.noteCount} notes; a session that is ${s.state} has none`,
        false,
      );
    if ((s.state === 'opening' || s.state === 'empty') && s.version !== 0) {
      this.find(
        'sessions',
        `a session that is ${s.state} never had a change, but it is at version ${s.version}`,
        false,
      );
    }
    return true;
  }

  /** An open (possibly expired) session: the full replay. false when it moved on meanwhile. */
  async open(adapter: EmbeddingAdapter | undefined): Promise<boolean> {
    await this.replayLog();
    const vectors = adapter
      ? await vectorMeta(this.ctx.client, this.session.id, this.replayed, adapter)
      : null;
    if (!(await this.compareNotes(vectors, adapter))) return false;
    if (this.noteRows !== this.session.noteCount) {
      this.find(
        'sessions',
        `the session counts ${this.session.noteCount} notes but ${this.noteRows} are stored`,
        true,
      );
      this.plan.noteCount = true;
    }
    if (vectors && adapter) this.lagOf(vectors, adapter);
    this.linkFindings();
    return true;
  }

  // ---- the log, its history and its links -------------------------------------------------

  async replayLog(): Promise<void> {
    const s = this.session;
    let expected = 1;
    for (let after = 0; after < s.version;) {
      const entries = await readLog(this.ctx.client, s.id, after, s.version, PAGE);
      const end = entries.length < PAGE ? s.version : entries[entries.length - 1]!.version;
      const history = await readHistory(this.ctx.client, s.id, after, end);
      for (const entry of entries) {
        if (entry.version !== expected) {
          this.find('log', `the log has no entries for versions ${expected}..${entry.version - 1}`, false);
        }
        expected = entry.version + 1;
        this.logEntries++;
        this.replayEntry(
          entry,
          history.changes.get(entry.version) ?? [],
          history.links.get(entry.version) ?? [],
        );
        history.changes.delete(entry.version);
        history.links.delete(entry.version);
      }
      for (const version of history.changes.keys()) {
        this.find(
          'note_changes',
          `note_changes holds changes of version ${version}, which the log does not have`,
          false,
        );
      }
      for (const rows of history.links.values()) this.#links.extra.push(...rows);
      after = end;
    }
    if (expected - 1 !== s.version) {
      this.find(
        'log',
        `the log ends at version ${expected - 1} but the session is at version ${s.version}`,
        false,
      );
    }
  }

  /** Checks one entry, then applies it to the replay as the triggers would have. */
  replayEntry(entry: LogRow, history: Row[], links: LinkRow[]): void {
    const v = entry.version;
    const { changes, digests, problems, missingLinks, extraLinks } = checkEntry(entry, history, links);
    for (const p of problems) this.find(p.table, p.message, false);
    this.#links.missing.push(...missingLinks);
    this.#links.extra.push(...extraLinks);
    for (const [seq, c] of (changes ?? []).entries()) {
      const before = this.replayed.get(c.name);
      if (c.op === 'add' && before)
        this.find('log', `log entry ${v} adds ${c.name}, which already existed`, false, c.name);
      if (c.op !== 'add' && !before) {
        const verb = c.op === 'remove' ? 'removes' : 'replaces';
        this.find('log', `log entry ${v} ${verb} ${c.name}, which did not exist`, false, c.name);
      }
      if (c.op === 'remove') {
        this.replayed.delete(c.name);
        continue;
      }
      const keep = c.op === 'replace' && before;
      this.replayed.set(c.name, {
        name: c.name,
        kind: kindOf(c.name),
        digest: digests[seq]!,
        author: entry.author,
        createdAt: keep ? before.createdAt : entry.at,
        updatedAt: entry.at,
        version: v,
        seq,
        createdVersion: keep ? before.createdVersion : v,
      });
    }
  }

  linkFindings(): void {
    const { missing, extra } = this.#links;
    const describe = (rows: LinkRow[]) =>
      rows
        .slice(0, 3)
        .map((l) => `${l.from} ${l.rel} ${l.to} (version ${l.version}, change ${l.seq}, link ${l.idx})`)
        .join('; ') + (rows.length > 3 ? '; …' : '');
    if (missing.length > 0)
      this.find(
        'link_index',
        `${missing.length} link row${missing.length === 1 ? ' is' : 's are'} missing from link_index: ${describe(missing)}`,
        true,
      );
    if (extra.length > 0)
      this.find(
        'link_index',
        `${extra.length} link row${extra.length === 1 ? '' : 's'} in link_index the log does not have: ${describe(extra)}`,
        true,
      );
    this.plan.putLinks = missing;
    this.plan.dropLinks = extra.map((l) => [l.version, l.seq, l.idx]);
  }

  // ---- the notes and their vectors ----------------------------------------------------------

  /** Compares every stored note with the replay, page by page, at the version the replay is of. */
  async compareNotes(
    vectors: Map<string, VectorMeta> | null,
    adapter: EmbeddingAdapter | undefined,
  ): Promise<boolean> {
    const { client } = this.ctx;
    const s = this.session;
    const stored = new Set<string>();
    let comparing = adapter !== undefined;
    for (let after = ''; ;) {
      const [page, now] = await client.batch(
        [
          {
            sql: `SELECT name, kind, text, data, links, digest, author, created_at, updated_at, version, seq, created_version
                    FROM notes WHERE session_id = ? AND name > ? ORDER BY name LIMIT ?`,
            args: [s.id, after, PAGE],
          },
          { sql: 'SELECT version FROM sessions WHERE id = ?', args: [s.id] },
        ],
        'read',
      );
      if (num(now?.rows[0]?.version) !== s.version) return false;
      const rows = page?.rows ?? [];
      const sameContent: Array<{ note: ReplayedNote; render: string }> = [];
      for (const row of rows) {
        const name = str(row.name);
        stored.add(name);
        this.noteRows++;
        const checked = this.compareNote(name, row);
        if (checked && vectors?.get(name)?.current) sameContent.push(checked);
      }
      if (comparing && adapter && sameContent.length > 0)
        comparing = await this.compareVectors(sameContent, adapter);
      if (rows.length < PAGE) break;
      after = str(rows[rows.length - 1]!.name);
    }
    for (const [name, note] of this.replayed) {
      if (stored.has(name)) continue;
      this.mismatches.push({ name, replayed: note.digest, stored: null });
      this.find(
        'notes',
        `${name} is missing from notes (the log has it at ${shortDigest(note.digest)})`,
        true,
        name,
      );
      this.plan.putNotes.push(note);
    }
    return true;
  }

  /** One stored note against the replay; returns its rendering when its content is the replay's. */
  compareNote(name: string, row: Row): { note: ReplayedNote; render: string } | null {
    const note = this.replayed.get(name);
    let content: { kind: string; text: string; data: JsonValue | null; digest: string } | null = null;
    try {
      const data = parseStoredData(row.data);
      const kind = str(row.kind);
      content = {
        kind,
        text: str(row.text),
        data,
        digest: recordDigest({ kind, name, text: str(row.text), data, links: parseStoredLinks(row.links) }),
      };
    } catch {
      // Unreadable data or links: the content digest cannot match anything.
    }
    if (!note) {
      this.mismatches.push({ name, replayed: null, stored: content?.digest ?? str(row.digest) });
      this.find('notes', `${name} is in notes but the log removed it or never had it`, true, name);
      this.plan.dropNotes.push(name);
      return null;
    }
    const wrong: string[] = [];
    if (content?.digest !== note.digest) {
      this.mismatches.push({ name, replayed: note.digest, stored: content?.digest ?? null });
      wrong.push(
        `its content does not match the log (replayed ${shortDigest(note.digest)}, stored content ${content ? shortDigest(content.digest) : 'unreadable'})`,
      );
    }
    const meta: Array<[string, unknown, unknown]> = [
      ['digest', str(row.digest), note.digest],
      ['kind', str(row.kind), note.kind],
      ['author', str(row.author), note.author],
      ['created_at', str(row.created_at), note.createdAt],
      ['updated_at', str(row.updated_at), note.updatedAt],
      ['version', num(row.version), note.version],
      ['seq', num(row.seq), note.seq],
      ['created_version', num(row.created_version), note.createdVersion],
    ];
    const differs = meta.filter(([, has, want]) => has !== want).map(([column]) => column);
    if (differs.length > 0)
      wrong.push(`its ${differs.join(', ')} ${differs.length === 1 ? 'differs' : 'differ'} from the log`);
    if (wrong.length > 0) {
      this.find('notes', `${name}: ${wrong.join('; ')}`, true, name);
      this.plan.putNotes.push(note);
      return null;
    }
    return content
      ? { note, render: renderNote({ kind: content.kind, name, text: content.text, data: content.data }) }
      : null;
  }

  /** Re-embeds notes whose vector is at their current digest. false: stop comparing (embedding failed). */
  async compareVectors(
    notes: Array<{ note: ReplayedNote; render: string }>,
    adapter: EmbeddingAdapter,
  ): Promise<boolean> {
    const outcome = await compareVectors(this.ctx.client, this.session.id, notes, adapter);
    if ('failed' in outcome) {
      this.notices.push(
        `recall vectors were not compared: embedding with ${adapter.id} failed (${outcome.failed})`,
      );
      return false;
    }
    for (const [name, digest] of outcome.wrong) {
      this.find(
        NOTE_VECTORS_TABLE,
        `${name}: its recall vector was not computed from its content`,
        true,
        name,
      );
      this.plan.wrongVectors.push([name, digest]);
    }
    return true;
  }

  lagOf(vectors: Map<string, VectorMeta>, adapter: EmbeddingAdapter): void {
    const lag = recallLag(this.replayed, vectors);
    this.recall = lag;
    if (lag.missing + lag.stale + lag.orphaned > 0) {
      this.plan.vectorsBehind = true;
      this.notices.push(
        `recall index behind the notes (${adapter.id}): ${lag.missing} missing, ${lag.stale} stale, ${lag.orphaned} orphaned; the next recall or --repair catches up`,
      );
    }
  }
}
