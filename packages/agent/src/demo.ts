/**
 * The scripted demo agent: plays the reef scenario against a running API and prints each tool
 * call and its answer.
 *
 *   pnpm --filter @sponge/agent demo -- --url http://127.0.0.1:3000 --run-token rt_…
 *
 * `--url` defaults to $SPONGE_URL or http://127.0.0.1:3000; `--run-token` to $RUN_TOKEN.
 * `--verbose` also prints every HTTP attempt, retry and stale-version recovery. An unknown flag
 * is refused with the usage line (exit 2).
 *
 * The transcript is this program's output, not a log: plain lines on stdout, to read or to keep
 * in a file, without a logger's levels and timestamps; usage errors and a refusal go to stderr.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { isMemoryToolError } from './errors.ts';
import { createMemoryTools } from './memory-tools.ts';
import type { MemoryToolsEvent } from './memory-tools.ts';
import { runReefScenario } from './reef.ts';

const USAGE =
  'usage: pnpm --filter @sponge/agent demo -- --url http://127.0.0.1:3000 --run-token <runToken> [--verbose]';

function describeEvent(e: MemoryToolsEvent): string | null {
  switch (e.type) {
    case 'retry':
      return `  … ${e.tool} attempt ${e.attempt + 1} failed (${e.reason}); retrying in ${e.delayMs} ms${e.requestId ? ` with the same request id ${e.requestId}` : ''}`;
    case 'stale':
      return `  … memory moved from version ${e.basedOn} to ${e.currentVersion}: ${e.moved.map((r) => r.name).join(', ') || 'nothing of ours'}; re-basing`;
    case 'call':
      return `  · ${e.tool} attempt ${e.attempt + 1}${e.requestId ? ` (${e.requestId})` : ''}`;
    default:
      return null;
  }
}

/** Where the demo's lines go: the transcript, and what went wrong. */
export interface DemoOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

const STANDARD_OUTPUT: DemoOutput = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

export async function main(argv: string[], { out, err }: DemoOutput = STANDARD_OUTPUT): Promise<number> {
  // pnpm passes the `--` separator through to the script; parseArgs would take it as the end of options.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string', default: process.env.SPONGE_URL ?? 'http://127.0.0.1:3000' },
        'run-token': { type: 'string', default: process.env.RUN_TOKEN },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const runToken = values['run-token'];
  if (!runToken) {
    err(`--run-token is required (runtime.claim gives one to the holder of RUNTIME_KEY)\n${USAGE}`);
    return 2;
  }
  const verbose = values.verbose;
  const tools = createMemoryTools({
    url: values.url,
    runToken,
    log: (e) => {
      const line = describeEvent(e);
      if (line && (verbose || e.type !== 'call')) out(line);
    },
  });
  out(`Sponge demo agent → ${values.url}\n`);
  try {
    await runReefScenario(tools, { log: out });
    out(`\ndone: memory is at version ${tools.state.version}`);
    return 0;
  } catch (e) {
    if (isMemoryToolError(e)) {
      err(`\nrefused: ${e.reason} (${e.code}): ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
