/**
 * The purge worker (SPEC §8): `pnpm --filter @sponge/api purge` runs a pass every
 * PURGE_INTERVAL_SECONDS; `-- --once` runs one pass and exits 0 (1 if the pass failed); an
 * unknown flag is refused with the usage line (exit 2).
 *
 * A separate process that holds only the purge key (PURGE_KEY, or DATA_DIR/purge.key generated
 * with mode 0600) and the memory database's address. It never reads TOKEN_SECRET and never opens
 * the application database: the Purger can purge expired or forgotten sessions and mark stuck
 * ones empty, and nothing else.
 */
// First: refuses Node < 24 before any other module runs.
import './require-node.ts';
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolvePurgeKey } from '../config.ts';
import { commandConfig } from './command-config.ts';
import { createLogger } from '../log.ts';
import { openPurger } from '@oh/memory';

// Everything this process creates (databases, their -wal/-shm, secrets) is for its owner only.
process.umask(0o077);

const USAGE = 'usage: pnpm --filter @sponge/api purge [-- --once]';

// Why the worker could not start or stopped: on stderr, whatever LOG_LEVEL says.
const fatal = createLogger('info', 'sponge-purge', { destination: process.stderr });

/** The `--once` flag, or the exit code after a usage line (unknown flag, `--help`). */
function readArgs(argv: string[]): { once: boolean } | number {
  // pnpm passes the `--` separator through to the script; parseArgs would take it as the end of options.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  try {
    const { values } = parseArgs({
      args,
      options: {
        once: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (!values.help) return { once: values.once };
    process.stdout.write(`${USAGE}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  if (typeof args === 'number') process.exit(args);
  const { once } = args;
  // Relative paths (DATA_DIR=./data) mean the directory the command was started from: pnpm
  // runs scripts inside apps/api but keeps the caller's directory in INIT_CWD.
  const config = commandConfig(process.env, process.env.INIT_CWD ?? process.cwd(), (m) => fatal.fatal(m));
  if (!config) process.exit(2);
  const log = createLogger(config.logLevel, 'sponge-purge');
  if (config.memoryDb.url.startsWith('file:')) mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const purger = await openPurger({
    url: config.memoryDb.url,
    purgeKey: resolvePurgeKey(config),
    ...(config.memoryDb.authToken !== undefined ? { authToken: config.memoryDb.authToken } : {}),
  });

  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const pass = async () => {
    const started = performance.now();
    try {
      const report = await purger.purgeOnce();
      log.info({ ...report, durationMs: Math.round(performance.now() - started) }, 'purge pass');
      return true;
    } catch (err) {
      log.error({ err, durationMs: Math.round(performance.now() - started) }, 'purge pass failed');
      return false;
    }
  };

  if (once) {
    const ok = await pass();
    purger.close();
    process.exit(ok ? 0 : 1);
  }

  const stop = (signal: string) => {
    log.info({ signal }, 'purge worker stopping');
    stopping = true;
    if (timer) clearTimeout(timer);
    wake?.();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  log.info({ intervalSeconds: config.purgeIntervalSeconds }, 'purge worker started');
  // A plain loop, not setInterval: a slow pass never overlaps the next one.
  while (!stopping) {
    await pass();
    if (stopping) break;
    await new Promise<void>((done) => {
      wake = done;
      timer = setTimeout(done, config.purgeIntervalSeconds * 1000);
    });
  }
  purger.close();
  process.exit(0);
}

main().catch((err: unknown) => {
  fatal.fatal({ err }, 'purge worker failed');
  process.exit(1);
});
