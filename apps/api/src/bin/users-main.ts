/**
 * `pnpm --filter @sponge/api users -- add|list|disable|enable …`: see accounts/users-command.ts.
 */
// First: refuses Node < 24 before any other module runs.
import './require-node.ts';
import { createInterface } from 'node:readline';
import { runUsers } from './users-command.ts';

/** stdin's first line; on a terminal, asked for without echoing what is typed. */
function readPassword(): Promise<string> {
  return new Promise((resolve, reject) => {
    const tty = process.stdin.isTTY === true;
    const rl = createInterface({
      input: process.stdin,
      output: tty ? process.stderr : undefined,
      terminal: tty,
    });
    if (tty) {
      process.stderr.write('Password: ');
      // Echo nothing of what is typed (readline writes through _writeToOutput).
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
    }
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      if (tty) process.stderr.write('\n');
      rl.close();
      resolve(line);
    });
    rl.once('close', () => (answered ? undefined : resolve('')));
    rl.once('error', reject);
  });
}

runUsers(process.argv.slice(2), {
  env: process.env,
  // Relative paths (DATA_DIR=./data) mean the caller's directory, which pnpm keeps in INIT_CWD.
  cwd: process.env.INIT_CWD ?? process.cwd(),
  out: process.stdout,
  err: process.stderr,
  readPassword,
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`users could not run: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
