/** `pnpm --filter @sponge/api start`: reads the config once, serves until SIGINT/SIGTERM. */
// First: refuses Node < 24 before any other module runs.
import './require-node.ts';
import { commandConfig } from './command-config.ts';
import { isLoopbackHost } from '../http/loopback.ts';
import { createLogger } from '../log.ts';
import { startServer } from '../server.ts';

// Everything this process creates (databases, their -wal/-shm, secrets) is for its owner only.
process.umask(0o077);

// Why the process could not start (bad configuration, a port in use): on stderr, which a
// supervisor that discards the request log (stdout) still shows, whatever LOG_LEVEL says.
const fatal = createLogger('info', 'sponge-api', { destination: process.stderr });

async function main(): Promise<void> {
  // Relative paths (DATA_DIR=./data) mean the directory the command was started from: pnpm
  // runs scripts inside apps/api but keeps the caller's directory in INIT_CWD.
  const config = commandConfig(process.env, process.env.INIT_CWD ?? process.cwd(), (m) => fatal.fatal(m));
  if (!config) process.exit(2);
  const log = createLogger(config.logLevel);
  if (config.demo && !isLoopbackHost(config.host)) {
    log.warn(
      { host: config.host },
      'DEMO is on while listening beyond this machine: anyone who reaches this address can sign in as a demo owner without a password',
    );
  }
  const server = await startServer(config, { log });
  log.info(
    {
      url: server.url,
      host: config.host,
      port: server.port,
      dataDir: config.dataDir,
      demo: config.demo,
      recallMode: config.recallMode,
      webDist: config.webDist,
    },
    'sponge api listening',
  );
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  // pino's error serializer keeps the message, the stack and every cause.
  fatal.fatal({ err }, 'sponge api failed to start');
  process.exit(1);
});
