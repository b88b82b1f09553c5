/**
 * `pnpm --filter @sponge/api verify [-- --repair] [--session <id>]`: see verify-command.ts. Exits 0 when
 * everything verifies, 1 when a mismatch remains, 2 when it could not verify (arguments,
 * configuration, a database that is missing or unreachable).
 */
// First: refuses Node < 24 before any other module runs.
import './require-node.ts';
import { createLogger } from '../log.ts';
import { runVerify } from './verify-command.ts';

// Why the command stops without a report: on stderr, like its progress lines.
const fatal = createLogger('info', 'sponge-verify', { destination: process.stderr });

runVerify(process.argv.slice(2), {
  env: process.env,
  // Relative paths (DATA_DIR=./data) mean the directory the command was started from: pnpm runs
  // scripts inside apps/api but keeps the caller's directory in INIT_CWD.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  out: process.stdout,
  err: process.stderr,
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    fatal.fatal({ err }, 'verify could not run');
    process.exit(2);
  },
);
