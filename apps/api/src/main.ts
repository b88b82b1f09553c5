/** `pnpm --filter @sponge/api start`: reads the config once, serves until SIGINT/SIGTERM. */
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { startServer } from './server.ts';

async function main(): Promise<void> {
  let config;
  try {
    // Relative paths (DATA_DIR=./data) mean the directory the command was started from: pnpm
    // runs scripts inside apps/api but keeps the caller's directory in INIT_CWD.
    config = loadConfig(process.env, process.env.INIT_CWD ?? process.cwd());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  const server = await startServer(config, { log });
  log.info(
    { url: server.url, port: server.port, dataDir: config.dataDir, demo: config.demo, recallMode: config.recallMode, webDist: config.webDist },
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
  console.error('sponge api failed to start:', err instanceof Error ? err.message : err);
  if (err instanceof Error && err.cause) console.error('cause:', err.cause);
  process.exit(1);
});
