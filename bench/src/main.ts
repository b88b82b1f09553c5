/**
 * The benchmark suite (issue 7): every figure beside a raw @libsql/client baseline measured in the
 * same run with the same durability settings, reported as p50/p99 and as a ratio. How to run it,
 * what each figure means and the results so far: bench/README.md.
 *
 *   pnpm --filter @sponge/bench bench -- [--quick] [--only=remember1,query] [--help]
 *
 * Prints a markdown table on stdout (progress on stderr) and writes bench/results/<time>.json.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { FIGURES, HELP, USAGE, UsageError, parseCommandLine } from './cli.ts';
import type { FigureName } from './cli.ts';
import { settleDisk } from './figure.ts';
import type { BenchContext, Figure, Row } from './figure.ts';
import { agentsConcurrently } from './figures/agents-50.ts';
import { agentsOnServer } from './figures/agents-server.ts';
import { shadowCost } from './figures/shadow-cost.ts';
import { documentSearch } from './figures/document-search.ts';
import { relevance } from './figures/relevance.ts';
import { purgeWhileWriting } from './figures/purge.ts';
import { queryAndRead } from './figures/query-read-scaling.ts';
import { recallSearch } from './figures/recall.ts';
import { rememberOverHttp } from './figures/remember-http.ts';
import { rememberInProcess } from './figures/remember-in-process.ts';
import { memoryWithOpenSessions } from './figures/rss.ts';
import { fairUploads } from './figures/fair-uploads.ts';
import { backgroundSteps, recallPacing } from './figures/pacing.ts';
import { verifyLongLog } from './figures/verify.ts';
import { healthWhileLocked } from './figures/lock-wait.ts';
import { ocrWhileServing } from './figures/ocr.ts';
import { liveEvents } from './figures/live-events.ts';
import { mcpSearch } from './figures/mcp-search.ts';
import { libraryScale } from './figures/library-scale.ts';
import { summary, writeResults } from './report.ts';

/** Every figure's parts, run in the order of FIGURES; the headline setting first. */
const steps: Record<FigureName, Figure[]> = {
  remember1: [(ctx) => rememberInProcess(ctx, 1)],
  http: [
    (ctx) => rememberOverHttp(ctx, 'worker', 'FULL', 'shadow'),
    (ctx) => rememberOverHttp(ctx, 'worker', 'FULL', 'off'),
    (ctx) => rememberOverHttp(ctx, 'main', 'FULL', 'shadow'),
    (ctx) => rememberOverHttp(ctx, 'worker', 'NORMAL', 'shadow'),
  ],
  remember64: [(ctx) => rememberInProcess(ctx, 64)],
  query: [queryAndRead],
  recall: [recallSearch],
  library: [documentSearch],
  relevance: [relevance],
  // The headline is the configuration users run (worker thread, FULL, recall in shadow); the
  // other settings sit beside it.
  agents: [
    (ctx) => agentsConcurrently(ctx, 'worker', 'FULL', 'shadow'),
    (ctx) => agentsConcurrently(ctx, 'worker', 'FULL', 'off'),
    (ctx) => agentsConcurrently(ctx, 'main', 'FULL', 'shadow'),
    (ctx) => agentsConcurrently(ctx, 'worker', 'NORMAL', 'shadow'),
  ],
  // What shadow indexing costs, measured in alternating windows so machine noise falls on both.
  shadow: [shadowCost],
  // The same 50 agents past one machine: the databases on libSQL servers, 1 then 2 API processes.
  server: [(ctx) => agentsOnServer(ctx, 1), (ctx) => agentsOnServer(ctx, 2)],
  purge: [purgeWhileWriting],
  // What the unit tests check on counts and a fake clock, on the wall clock (issue 24, point 18).
  steps: [backgroundSteps],
  pacing: [recallPacing],
  verify: [verifyLongLog],
  memory: [memoryWithOpenSessions],
  // One owner's slow PDFs against another owner's upload (issue 24, point 8).
  uploads: [fairUploads],
  // Another process's lock on the memory database against the API's event loop (issue 24, point 11).
  lock: [healthWhileLocked],
  // Scanned pages read by OCR against the API's own calls (issue 27, point 3).
  ocr: [ocrWhileServing],
  // A reply on the owner's live stream against the transcript poll it replaced (issue 28).
  live: [liveEvents],
  // The owner's own agent searching over MCP against the same search over tRPC (issue 29).
  mcp: [mcpSearch],
  // One owner's library at a real library's size against a small one (issue 41, point 9).
  scale: [
    (ctx) =>
      libraryScale(ctx, {
        ...(ctx.scale?.documents === undefined ? {} : { documents: ctx.scale.documents }),
        ...(ctx.scale?.indexed === undefined ? {} : { indexed: ctx.scale.indexed }),
        ...(ctx.scale?.paragraphs === undefined ? {} : { paragraphsPerDocument: ctx.scale.paragraphs }),
      }),
  ],
};

let command;
try {
  command = parseCommandLine(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (command.kind === 'help') {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const { quick, only, scale } = command;
const benchDir = fileURLToPath(new URL('..', import.meta.url));
const ctx: BenchContext = {
  quick,
  work: mkdtempSync(join(os.tmpdir(), 'sponge-bench-')),
  benchDir,
  builds: {},
  scale,
  log: (...m) =>
    process.stderr.write(`${format(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...m)}\n`),
};
const rows: Row[] = [];
const started = new Date();
const loadAtStart = os.loadavg();
const cpus = os.cpus();
ctx.log(
  `${cpus.length} CPUs (${cpus[0]?.model ?? 'unknown'}), node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, work dir ${ctx.work}`,
);
try {
  for (const name of Object.keys(FIGURES) as FigureName[]) {
    if (only && !only.includes(name)) continue;
    // Hours at its full size on a small machine (bench/README.md): run when named, never by default.
    if (!only && name === 'scale') continue;
    for (const step of steps[name]) {
      settleDisk();
      rows.push(...(await step(ctx)));
    }
  }
} finally {
  rmSync(ctx.work, { recursive: true, force: true });
}

const run = { started, quick, partial: only !== undefined, rows, builds: ctx.builds, loadAtStart };
process.stdout.write(`${summary(run)}\n`);
process.stdout.write(`results: ${writeResults(join(benchDir, 'results'), run)}\n`);
