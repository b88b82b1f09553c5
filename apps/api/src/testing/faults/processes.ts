/**
 * The processes the fault suites kill: API processes (`src/bin/main.ts` under tsx, what
 * `pnpm --filter @sponge/api start` runs, so no build is needed) on fixed ports over one pair of
 * libSQL servers (sqld), each of which can be killed with SIGKILL and started again in place.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSqld } from '@oh/memory/testing';
import type { Sqld } from '@oh/memory/testing';
import { HARNESS_RUNTIME_KEY, apiDir, freePort } from '@sponge/testing/api';

/** Shared by every API process of a suite: several processes on one database must agree on it. */
const FAULTS_TOKEN_SECRET = 'faults-token-secret-0123456789abcdef0123';

export interface Cluster {
  memory: Sqld;
  app: Sqld;
  /** A folder for generated secrets (the databases are on the servers). */
  dataDir: string;
  /** What an API process, `verify` or a raw client needs to reach this data. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * One connection per server, and time to wait for it. sqld 0.24.32, the tests' binary, locks up
 * under a few concurrent writers: a commit that runs SQLite's automatic checkpoint waits in
 * sqld's write-lock queue behind writers parked there, which wait for it; from then on no write
 * is answered (bench/ found it first: bench/src/figures/agents-server.ts). Measured here with the
 * store alone on this 2-core machine: 4 writers get `database is locked` now and then, 8 or 12
 * stop within seconds. With one connection, calls queue in sqld instead and nothing parks; a
 * call that waits more than a second for the connection is shed with HTTP 429, which a loaded
 * machine reaches, so the wait is raised to 30 s.
 */
const SQLD_ARGS = ['--max-concurrent-connections', '1', '--connection-creation-timeout-sec', '30'];

export async function startCluster(): Promise<Cluster> {
  const [memory, app] = await Promise.all([startSqld({ args: SQLD_ARGS }), startSqld({ args: SQLD_ARGS })]);
  const dataDir = mkdtempSync(join(tmpdir(), 'sponge-faults-'));
  const env = {
    MEMORY_DATABASE_URL: memory.url,
    APP_DATABASE_URL: app.url,
    DATA_DIR: dataDir,
    TOKEN_SECRET: FAULTS_TOKEN_SECRET,
    // The key @sponge/testing's acceptChatRun claims runs with.
    RUNTIME_KEY: HARNESS_RUNTIME_KEY,
  };
  return {
    memory,
    app,
    dataDir,
    env,
    async close() {
      await Promise.all([memory.stop(), app.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiProcess {
  port: number;
  url: string;
  /** SIGKILL: no shutdown, in-flight requests cut. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it answers `health`. */
  restart(): Promise<void>;
  /** Whether it died without being killed by the suite (a crash is a failure of its own). */
  crashed(): string | null;
  /** The last of what the current process logged (warnings and errors): for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts an API process on a free port (kept across restarts) and waits until it answers. */
export async function startApi(cluster: Cluster): Promise<ApiProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess;
  let output = '';
  let exit: Promise<void> = Promise.resolve();
  let killing = false;
  let crash: string | null = null;

  const spawnOne = async () => {
    killing = false;
    output = '';
    child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/main.ts'], {
      cwd: apiDir,
      env: {
        ...process.env,
        ...cluster.env,
        PORT: String(port),
        DEMO: '1',
        WEB_DIST: join(cluster.dataDir, 'no-web-dist'),
        // Warnings and errors only: a crash's last words are kept for the failure message.
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (d: Buffer) => (output = (output + d.toString('utf8')).slice(-8_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    exit = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        if (!killing) crash = `the API on port ${port} exited (${signal ?? code}):\n${output}`;
        resolve();
      }),
    );
    await waitForHealth(url, () => crash);
  };

  const kill = async () => {
    killing = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exit;
  };

  await spawnOne();
  return {
    port,
    url,
    kill,
    async restart() {
      await kill();
      await spawnOne();
    },
    crashed: () => crash,
    output: () => output,
    stop: kill,
  };
}

async function waitForHealth(url: string, crashed: () => string | null): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const why = crashed();
    if (why) throw new Error(why);
    try {
      if ((await fetch(`${url}/trpc/health`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the API at ${url} did not answer health within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
