/** The bench's command line: which figures to run, and how big. */
import { parseArgs } from 'node:util';

/** The figures `--only` can name, in the order a run takes them, with what each measures. */
export const FIGURES = {
  remember1: 'remember 1 note in process (FULL, NORMAL, and with recall indexing) vs a raw 1-row batch',
  http: 'remember 1 note over HTTP (the defaults, recall off, MEMORY_DB_THREAD=main, NORMAL) vs its floor',
  remember64: 'remember 64 notes in process (FULL, NORMAL) vs a raw 64-row batch',
  query: 'query current_notes and read 1 note at 1k, 10k, 100k notes, and their scaling',
  recall: 'recall search at 1k and 10k notes vs embed + a raw exact vector scan',
  library:
    'document search at 10k and 100k chunks of one owner vs the SQL scan it replaced, and the indexing rate',
  relevance:
    'document search on the relevance set (48 judged queries): success@3, MRR@10, nDCG@10, keyword vs vector vs hybrid; 10 queries about nothing answered with no hit',
  agents:
    '50 agents writing through one API process (the defaults, recall off, MEMORY_DB_THREAD=main, NORMAL)',
  shadow:
    '50 agents: the defaults (recall in shadow) against recall off, in alternating windows (target ≥ 0.9×)',
  server: '50 agents through 1 and through 2 API processes on one libSQL server (sqld) vs raw commits on it',
  purge: "the purge worker on 10,000 expired sessions, and a writer's worst latency meanwhile",
  steps: "the vector index's background build of 20k vectors: each event-loop turn vs one unbatched step",
  pacing: "recall's background pause after a busy and after an idle pause, as a multiple of the batch",
  verify: 'verify (replay) of a 100,000-entry log vs a raw paged read',
  memory: 'API resident memory with 10,000 open sessions (the defaults) vs bare node + @libsql/client',
  uploads:
    "a tiny PDF's upload while another owner's four slow PDFs are queued vs the same on the idle server",
  lock: 'health p99 while another process holds the memory write lock 3 s vs with no lock holder',
  ocr: 'OCR pages per minute, and health p99 and a remember over HTTP while OCR runs vs with none running',
  live: "an agent's reply to its chat.events event in a subscribed client vs the page's former 1 s transcript poll",
  mcp: "search_library over /mcp with the SDK's client vs documents.search over tRPC, same key and queries",
  scale:
    "one owner's library of 10,000 documents (~1M chunks, metadata on each) vs one of 100: add rate, search, list, memory (only with --only=scale)",
} as const;

export type FigureName = keyof typeof FIGURES;

const NAMES = Object.keys(FIGURES) as FigureName[];

export const USAGE = `usage: pnpm --filter @sponge/bench bench -- [--quick] [--only=<figure>[,<figure>…]] [--scale-documents=<n>] [--scale-indexed=<n>] [--scale-paragraphs=<n>] [--help]
  figures: ${NAMES.join(', ')}`;

export const HELP = `${USAGE}

  --quick        smaller sizes and shorter windows: a smoke run, not figures to quote
  --only=a,b     run only these figures (in the usual order, not the order given)
  --scale-documents=n, --scale-indexed=n, --scale-paragraphs=n
                 the scale figure's listed library has n documents, its indexed one n (not 10,000
                 each), of n paragraphs (not 99: a chunk each, and one for the abstract); the
                 verdicts of a smaller library are empty
  --help         print this and exit

Figures:
${NAMES.map((n) => `  ${n.padEnd(11)}  ${FIGURES[n]}`).join('\n')}

A --quick or --only run writes bench/results/<time>-partial.json (not kept). See bench/README.md.`;

/** A command line the bench refuses; its message goes to stderr above the usage line. */
export class UsageError extends Error {}

export type Command =
  { kind: 'help' } | { kind: 'run'; quick: boolean; only: FigureName[] | undefined; scale?: ScaleFlags };

/** The scale figure's size, when the command line makes it smaller. */
interface ScaleFlags {
  documents?: number;
  indexed?: number;
  paragraphs?: number;
}

function whole(name: string, raw: string | undefined, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(raw) || Number(raw) > max)
    throw new UsageError(`--${name}: a whole number from 1 to ${max}, got '${raw}'`);
  return Number(raw);
}

export function parseCommandLine(argv: string[]): Command {
  // `pnpm run bench -- --quick` hands the script the `--` too: one leading separator is not an
  // argument, and parseArgs would read everything after it as positionals.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        help: { type: 'boolean', default: false },
        'scale-documents': { type: 'string' },
        'scale-indexed': { type: 'string' },
        'scale-paragraphs': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (values.help) return { kind: 'help' };
  const documents = whole('scale-documents', values['scale-documents'], 10_000);
  const indexed = whole('scale-indexed', values['scale-indexed'], 10_000);
  const paragraphs = whole('scale-paragraphs', values['scale-paragraphs'], 99);
  const flags = {
    ...(documents === undefined ? {} : { documents }),
    ...(indexed === undefined ? {} : { indexed }),
    ...(paragraphs === undefined ? {} : { paragraphs }),
  };
  const scale = Object.keys(flags).length > 0 ? { scale: flags } : {};
  if (values.only === undefined) return { kind: 'run', quick: values.quick, only: undefined, ...scale };
  const only = values.only.split(',').map((n) => n.trim());
  const unknown = only.filter((n) => !(NAMES as string[]).includes(n));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown figure${unknown.length > 1 ? 's' : ''}: ${unknown.map((n) => `'${n}'`).join(', ')}`,
    );
  return { kind: 'run', quick: values.quick, only: only as FigureName[], ...scale };
}
