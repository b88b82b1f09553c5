/**
 * `pnpm --filter @sponge/api verify`: the operator's proof that working memory is what its log
 * says (SPEC §4). It reads the configuration the API and the purge worker read, opens the same
 * databases, and for every session (or the `--session` ones) replays the log against the notes
 * and checks every stored digest, the link index and the recall vectors (@oh/memory's verifier);
 * forgotten and purged sessions must hold no content. Without `--session` it also recomputes the
 * digests of reviewed knowledge in the application database and checks the library's search
 * indexes (every ready document's chunks in the vector and the keyword index, nothing indexed
 * for a removed document: @sponge/library's verifyLibrary).
 *
 * The report goes to standard output, one block per session and a final line; progress is logged
 * with pino on standard error. Exit status: 0 when everything verifies, 1 when a mismatch remains,
 * 2 for bad arguments, configuration or a database that is not there.
 *
 * `--repair` rebuilds what is derived (notes, link index, note counts, recall vectors) from the
 * log and the notes, and the library's vector and keyword indexes from its documents, then
 * verifies again. It never changes the log, the history or a tombstone.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { isMemoryError, openVerifier } from '@oh/memory';
import type { MemoryVerifier, SessionVerification, VerifyFinding } from '@oh/memory';
import { commandConfig } from './command-config.ts';
import type { Config } from '../config.ts';
import { repairLibrary, verifyLibrary } from '@sponge/library';
import type { LibraryVerification } from '@sponge/library';
import { APP_SCHEMA } from '../migrations.ts';
import { createLogger } from '../log.ts';
import { verifyReviewed } from '@sponge/reviewed';
import type { ReviewedVerification } from '@sponge/reviewed';
import { openAppDatabase, openEmbeddings } from '../stores.ts';

const USAGE = `usage: pnpm --filter @sponge/api verify [-- [--repair] [--session <id>]...]

Replays every working-memory session's log against its notes, recomputes every stored digest,
checks the link index and the recall vectors, and checks that forgotten and purged sessions hold
no content; then reviewed knowledge and the library's search indexes (vectors and keywords).
It reads the API's configuration (DATA_DIR, MEMORY_DATABASE_URL, APP_DATABASE_URL, ...).

  --repair        rebuild what is derived (notes, link index, note counts, recall vectors) from
                  the log, and the library's search indexes from its documents, then verify
                  again; the log and tombstones are never changed
  --session <id>  verify only this session (repeatable); reviewed knowledge and the library are
                  then not checked
  -h, --help      show this text

Exit status: 0 verified, 1 a mismatch remains, 2 bad arguments, configuration or database.`;

/** Findings printed per session; the rest are counted. */
const SHOWN_FINDINGS = 20;
const PROGRESS_EVERY = 100;

export interface VerifyCommandIo {
  env: Record<string, string | undefined>;
  /** Relative paths in the configuration are resolved against this directory. */
  cwd: string;
  /** The report. */
  out: NodeJS.WritableStream;
  /** Usage errors and pino's progress lines. */
  err: NodeJS.WritableStream;
}

interface Args {
  repair: boolean;
  sessions: string[];
}

/** The arguments, or the exit status after a usage text (`--help`, or an unknown flag). */
function readArgs(argv: string[], io: VerifyCommandIo): Args | number {
  // pnpm passes the `--` separator through to the script; parseArgs would take it as the end of options.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  try {
    const { values } = parseArgs({
      args,
      options: {
        repair: { type: 'boolean', default: false },
        session: { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      io.out.write(`${USAGE}\n`);
      return 0;
    }
    return { repair: values.repair, sessions: values.session };
  } catch (e) {
    io.err.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
}

/** The path of an embedded database, or null for a server URL. */
function filePath(url: string): string | null {
  if (!url.startsWith('file:')) return null;
  return url.startsWith('file://') ? fileURLToPath(url) : url.slice('file:'.length);
}

/**
 * Runs the command and resolves to its exit status (verify-main.ts exits with it).
 *
 * @example
 * process.exitCode = await runVerify(['--repair'], { env: process.env, cwd: process.cwd(), out: process.stdout, err: process.stderr });
 */
export async function runVerify(argv: string[], io: VerifyCommandIo): Promise<number> {
  const args = readArgs(argv, io);
  if (typeof args === 'number') return args;
  const config = commandConfig(io.env, io.cwd, (m) => io.err.write(`${m}\n`));
  if (!config) return 2;
  const log = createLogger(config.logLevel, 'sponge-verify', { destination: io.err });
  // Verify never creates a database: an empty new file would "verify" as healthy.
  const memoryPath = filePath(config.memoryDb.url);
  if (memoryPath !== null && !existsSync(memoryPath)) {
    io.err.write(`no memory database at ${memoryPath} (DATA_DIR=${config.dataDir}); nothing to verify\n`);
    return 2;
  }
  const adapter = config.recallMode === 'off' ? undefined : openEmbeddings(config.embeddings);
  const verifier = await openVerifier({
    url: config.memoryDb.url,
    ...(config.memoryDb.authToken !== undefined ? { authToken: config.memoryDb.authToken } : {}),
    ...(adapter ? { recall: { adapter } } : {}),
  });
  try {
    return await verifyAll(verifier, args, config, io, log);
  } finally {
    verifier.close();
  }
}

async function verifyAll(
  verifier: MemoryVerifier,
  args: Args,
  config: Config,
  io: VerifyCommandIo,
  log: Logger,
): Promise<number> {
  const print = (line: string) => io.out.write(`${line}\n`);
  const tally = { sessions: 0, failed: 0, repaired: 0, repairable: 0 };
  const started = performance.now();
  log.info(
    {
      repair: args.repair,
      sessions: args.sessions.length > 0 ? args.sessions.length : 'all',
      recall: config.recallMode,
    },
    'verify started',
  );

  for await (const id of sessionIds(verifier, args.sessions)) {
    let report: SessionVerification;
    try {
      report = await verifier.verify(id);
    } catch (err) {
      if (isMemoryError(err) && err.reason === 'not_found') {
        io.err.write(`no session ${id} in the memory database\n`);
        return 2;
      }
      throw err;
    }
    printReport(print, `session ${id} (${report.state}, version ${report.version})`, report, '  ');
    if (args.repair && (!report.ok || report.notices.length > 0)) {
      const repair = await verifier.repair(id);
      const rebuilt = Object.entries(repair.rebuilt).filter(([, n]) => n > 0);
      if (rebuilt.length > 0) tally.repaired++;
      log.info({ sessionId: id, rebuilt: repair.rebuilt, skipped: repair.skipped }, 'session repaired');
      print(
        `  repair: ${rebuilt.length > 0 ? `rebuilt ${rebuilt.map(([table, n]) => `${table} ${n}`).join(', ')}` : 'nothing rebuilt'}${repair.skipped ? ` (${repair.skipped})` : ''}`,
      );
      report = await verifier.verify(id);
      printReport(print, '  after repair', report, '    ');
    }
    tally.sessions++;
    if (!report.ok) {
      tally.failed++;
      if (report.findings.some((f) => f.repairable)) tally.repairable++;
    }
    if (tally.sessions % PROGRESS_EVERY === 0)
      log.info({ verified: tally.sessions, failed: tally.failed }, 'verify progress');
  }

  const reviewed = args.sessions.length === 0 ? await checkReviewed(config) : null;
  if (reviewed) {
    print(
      `reviewed knowledge: ${reviewed.records} records, ${reviewed.decisions} decisions: ${reviewed.findings.length === 0 ? 'ok' : 'MISMATCH'}`,
    );
    for (const f of reviewed.findings.slice(0, SHOWN_FINDINGS)) print(`  ${findingLine(f)}`);
  }
  const library = args.sessions.length === 0 ? await checkLibrary(config, args.repair, print, log) : null;
  const reviewedBad =
    (reviewed !== null && reviewed.findings.length > 0) || (library !== null && library.findings.length > 0);
  log.info(
    {
      ...tally,
      reviewedFindings: reviewed?.findings.length ?? null,
      durationMs: Math.round(performance.now() - started),
    },
    'verify done',
  );
  print(finalLine(tally, reviewed, args.repair, library));
  return tally.failed > 0 || reviewedBad ? 1 : 0;
}

/** The ids asked for, or every session of the database, page by page. */
async function* sessionIds(verifier: MemoryVerifier, asked: string[]): AsyncGenerator<string> {
  if (asked.length > 0) {
    yield* asked;
    return;
  }
  for (let after = ''; ;) {
    const page = await verifier.sessionIds(after, 500);
    yield* page;
    if (page.length < 500) return;
    after = page[page.length - 1]!;
  }
}

/**
 * The library's search indexes, in the application database (none there yet: nothing to check).
 * With `--repair`, a mismatch is repaired and the check runs again; the result is the last check.
 */
async function checkLibrary(
  config: Config,
  repair: boolean,
  print: (line: string) => void,
  log: Logger,
): Promise<LibraryVerification | null> {
  const path = filePath(config.appDb.url);
  if (path !== null && !existsSync(path)) return null;
  const adapter = openEmbeddings(config.embeddings);
  const app = await openAppDatabase(config.appDb);
  try {
    const line = (head: string, r: LibraryVerification, indent: string) => {
      print(
        `${head}: ${r.documents} ready documents, ${r.chunks} chunks: ${r.findings.length === 0 ? 'ok' : 'MISMATCH'}`,
      );
      for (const f of r.findings.slice(0, SHOWN_FINDINGS)) print(`${indent}${findingLine(f)}`);
    };
    let report = await verifyLibrary(app, adapter.id);
    line('library search indexes', report, '  ');
    if (repair && report.findings.length > 0) {
      const sent = await repairLibrary(app, adapter, APP_SCHEMA, log);
      print(`  repair: ${sent} document${sent === 1 ? '' : 's'} indexed again`);
      report = await verifyLibrary(app, adapter.id);
      line('  after repair', report, '    ');
    }
    return report;
  } finally {
    app.close();
  }
}

/** Reviewed knowledge lives in the application database; none there (yet) is nothing to check. */
async function checkReviewed(config: Config): Promise<ReviewedVerification | null> {
  const path = filePath(config.appDb.url);
  if (path !== null && !existsSync(path)) return null;
  const app = await openAppDatabase(config.appDb);
  try {
    return await verifyReviewed(app);
  } finally {
    app.close();
  }
}

/** A session's verdict on one line, then its findings and notices indented below it. */
function printReport(
  print: (line: string) => void,
  head: string,
  r: SessionVerification,
  indent: string,
): void {
  const closed =
    r.state === 'forgotten' || r.state === 'purged' || r.state === 'empty' || r.state === 'opening';
  const what = closed
    ? r.ok
      ? 'content-free'
      : 'content left'
    : `${r.logEntries} log entries, ${r.notes} notes`;
  const vectors = r.recall ? `, ${r.recall.indexed} recall vectors` : '';
  const verdict = r.ok
    ? 'ok'
    : `MISMATCH (${r.findings.length} finding${r.findings.length === 1 ? '' : 's'})`;
  print(`${head}: ${what}${vectors}: ${verdict}`);
  for (const f of r.findings.slice(0, SHOWN_FINDINGS)) print(`${indent}${findingLine(f)}`);
  if (r.findings.length > SHOWN_FINDINGS)
    print(`${indent}… and ${r.findings.length - SHOWN_FINDINGS} more findings`);
  for (const notice of r.notices) print(`${indent}note: ${notice}`);
}

function findingLine(f: VerifyFinding): string {
  return `${f.table}: ${f.message}${f.repairable ? ' [repairable]' : ''}`;
}

function finalLine(
  t: { sessions: number; failed: number; repaired: number; repairable: number },
  reviewed: ReviewedVerification | null,
  repaired: boolean,
  library: LibraryVerification | null = null,
): string {
  const libraryBad = library !== null && library.findings.length > 0;
  const reviewedPart =
    reviewed === null
      ? ''
      : `; reviewed knowledge ${reviewed.findings.length === 0 ? 'ok' : `has ${reviewed.findings.length} mismatches`}`;
  const repairedPart = t.repaired > 0 ? `, ${t.repaired} repaired` : '';
  const libraryPart = libraryBad
    ? `; the library's search indexes have ${library.findings.length} mismatches${repaired ? '' : ' (run verify --repair)'}`
    : '';
  if (t.failed === 0 && (reviewed === null || reviewed.findings.length === 0) && !libraryBad) {
    return `OK: ${t.sessions} session${t.sessions === 1 ? '' : 's'} verified${repairedPart}${reviewedPart}`;
  }
  const hint =
    t.repairable > 0 && !repaired ? ` (${t.repairable} with repairable findings: run verify --repair)` : '';
  return `FAILED: ${t.failed} of ${t.sessions} sessions with mismatches${repairedPart}${hint}${reviewedPart}${libraryPart}`;
}
