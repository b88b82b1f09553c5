/**
 * The hosted runtime as a command (SPEC §7b):
 *
 *   pnpm --filter @sponge/agent runtime [-- --once]
 *
 * Answers the owners' turns at SPONGE_API_URL (default http://127.0.0.1:$PORT, PORT 3000) with
 * RUNTIME_KEY, or the key the API generated into $DATA_DIR/runtime.key (DATA_DIR ./data, relative
 * to the directory the command was started from, as for the API). With AGENT_LLM_URL set a model
 * answers (AGENT_LLM_MODEL, AGENT_LLM_API_KEY), otherwise the scripted agent. It waits for the
 * API to answer its health check, then polls until SIGTERM or SIGINT, answering up to
 * RUNTIME_CONCURRENCY runs at a time; `--once` answers what is pending and exits: 0, or 1 when a
 * run failed (the API refused it, or its turn failed: the model endpoint refused the key, could not
 * be reached, answered an HTTP error or something unusable) or the API could not be asked. A turn
 * stopped by its own limits is an answer.
 */
// First: refuses Node < 24 before any other module runs.
import './require-node.ts';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { trpcUrl } from '../api-url.ts';
import { createLineLogger, logEvent, parseLogLevel } from './log.ts';
import type { LineLogger } from './log.ts';
import { createModelAgent } from './model-agent.ts';
import { createRuntime } from './runtime.ts';
import { createScriptedAgent } from './scripted-agent.ts';
import type { TurnAgent } from './turn.ts';

const USAGE = 'usage: pnpm --filter @sponge/agent runtime [-- --once]';

const HELP = `${USAGE}

Answers the owners' questions (chat runs) and staged research runs waiting at the API.

  --once       answer what is pending now, then exit
  -h, --help   this text

Environment:
  SPONGE_API_URL     the API (default http://127.0.0.1:$PORT, PORT default 3000)
  RUNTIME_KEY        the runtime's credential (default: the API's $DATA_DIR/runtime.key)
  DATA_DIR           where the API keeps its data (default ./data)
  AGENT_LLM_URL      an OpenAI-compatible base URL (…/v1); unset or empty: the scripted agent
  AGENT_LLM_MODEL    the model's id (required with AGENT_LLM_URL)
  AGENT_LLM_API_KEY  sent to the model endpoint, if it needs one
  AGENT_INPUT_TOKENS  estimated input tokens of one model call (default 24000); the oldest
                     conversation is left out to stay under it
  AGENT_SUPPORT_CHECKS  model calls a turn may make after its answer to check that each cited
                     passage supports its sentence (default 8, 0 for none)
  RUNTIME_CONCURRENCY  runs answered at the same time (default 4)
  LOG_LEVEL          debug, info (default), warn, error or silent

Exit status with --once: 0, or 1 when a run failed (the API refused it, or the
model endpoint failed its turn: refused key, unreachable, HTTP error), 2 on a usage error.`;

/** The same minimum the API applies to RUNTIME_KEY. */
const MIN_KEY_CHARS = 16;
const HEALTH_TIMEOUT_MS = 2_000;
const WAIT_STEP_MS = 1_000;

export interface MainIo {
  /** Where --help goes. */
  out: (text: string) => void;
  /** The log's lines (with their newline). */
  err: (text: string) => void;
  /** Aborting it stops the runtime: the command wires SIGTERM and SIGINT to it. */
  signal?: AbortSignal;
}

const STANDARD_IO: MainIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

class UsageError extends Error {}

function readArgs(argv: string[]): { once: boolean; help: boolean } {
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
    return values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

const nonEmpty = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

const MAX_CONCURRENCY = 64;

/** RUNTIME_CONCURRENCY: the pool's places, 1 to 64 (default 4). */
function concurrencyFrom(env: NodeJS.ProcessEnv): number {
  const value = nonEmpty(env.RUNTIME_CONCURRENCY);
  if (value === undefined) return 4;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY)
    throw new UsageError(
      `RUNTIME_CONCURRENCY: expected a whole number from 1 to ${MAX_CONCURRENCY}, got ${value}`,
    );
  return n;
}

export function apiUrlFrom(env: NodeJS.ProcessEnv): string {
  const url = nonEmpty(env.SPONGE_API_URL) ?? `http://127.0.0.1:${nonEmpty(env.PORT) ?? '3000'}`;
  if (!URL.canParse(url)) throw new UsageError(`SPONGE_API_URL: not a URL: ${url}`);
  // A URL the tRPC client cannot use is a usage error now, not a failure of every call later.
  try {
    trpcUrl(url);
  } catch (e) {
    throw new UsageError(`SPONGE_API_URL: ${(e as Error).message}`);
  }
  return new URL(url).toString().replace(/\/+$/, '');
}

/** Where the API keeps the generated key: DATA_DIR resolved as the API resolves it. */
export function runtimeKeyPath(env: NodeJS.ProcessEnv, cwd: string): string {
  return resolve(env.INIT_CWD ?? cwd, nonEmpty(env.DATA_DIR) ?? './data', 'runtime.key');
}

function checkedKey(key: string, from: string): string {
  if (key.length < MIN_KEY_CHARS)
    throw new UsageError(`${from}: must be at least ${MIN_KEY_CHARS} characters`);
  return key;
}

/**
 * RUNTIME_KEY, or the API's generated key file. The API writes the file at its first start, so
 * unless `wait` is false a missing file is waited for (until `signal` aborts: then null).
 */
async function runtimeKey(
  env: NodeJS.ProcessEnv,
  cwd: string,
  wait: boolean,
  log: LineLogger,
  signal: AbortSignal,
): Promise<string | null> {
  const fromEnv = nonEmpty(env.RUNTIME_KEY);
  if (fromEnv !== undefined) return checkedKey(fromEnv, 'RUNTIME_KEY');
  const path = runtimeKeyPath(env, cwd);
  if (!existsSync(path)) {
    if (!wait) throw new UsageError(`no RUNTIME_KEY, and no ${path} (the API writes it at its first start)`);
    log.info(`waiting for ${path} (the API writes it at its first start), or set RUNTIME_KEY`);
    while (!existsSync(path)) {
      if (!(await pause(WAIT_STEP_MS, signal))) return null;
    }
  }
  return checkedKey(readFileSync(path, 'utf8').trim(), path);
}

/** False when the signal aborted the pause. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Resolves true once the API answers its health check; false when `signal` aborts first. */
async function waitForApi(apiUrl: string, log: LineLogger, signal: AbortSignal): Promise<boolean> {
  let said = false;
  for (;;) {
    try {
      const response = await fetch(`${trpcUrl(apiUrl)}/health`, {
        signal: AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]),
      });
      if (response.ok) return true;
    } catch {
      // Not listening yet: the next try tells.
    }
    if (!said) log.info(`waiting for the API at ${apiUrl}`);
    said = true;
    if (!(await pause(WAIT_STEP_MS, signal))) return false;
  }
}

/** AGENT_INPUT_TOKENS: the input budget of one model call, 2,000 to 2,000,000 (default 24,000). */
export function inputTokensFrom(env: NodeJS.ProcessEnv): number {
  const value = nonEmpty(env.AGENT_INPUT_TOKENS);
  if (value === undefined) return 24_000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2_000 || n > 2_000_000)
    throw new UsageError(`AGENT_INPUT_TOKENS: expected a whole number from 2000 to 2000000, got ${value}`);
  return n;
}

/** AGENT_SUPPORT_CHECKS: support checks one turn may make, 0 to 64 (default 8). */
export function supportChecksFrom(env: NodeJS.ProcessEnv): number {
  const value = nonEmpty(env.AGENT_SUPPORT_CHECKS);
  if (value === undefined) return 8;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 64)
    throw new UsageError(`AGENT_SUPPORT_CHECKS: expected a whole number from 0 to 64, got ${value}`);
  return n;
}

function agentFrom(env: NodeJS.ProcessEnv): TurnAgent {
  const url = nonEmpty(env.AGENT_LLM_URL);
  if (url === undefined) return createScriptedAgent();
  const model = nonEmpty(env.AGENT_LLM_MODEL);
  if (model === undefined) throw new UsageError('AGENT_LLM_MODEL: required when AGENT_LLM_URL is set');
  const apiKey = nonEmpty(env.AGENT_LLM_API_KEY);
  return createModelAgent({
    url,
    model,
    limits: { inputTokens: inputTokensFrom(env), supportChecks: supportChecksFrom(env) },
    ...(apiKey !== undefined ? { apiKey } : {}),
  });
}

/** Runs the command; resolves with its exit code. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io: MainIo = STANDARD_IO,
  cwd: string = process.cwd(),
): Promise<number> {
  const log = createLineLogger(parseLogLevel(env.LOG_LEVEL), io.err);
  const signal = io.signal ?? new AbortController().signal;
  let args, apiUrl, agent, concurrency;
  try {
    args = readArgs(argv);
    if (args.help) {
      io.out(`${HELP}\n`);
      return 0;
    }
    apiUrl = apiUrlFrom(env);
    agent = agentFrom(env);
    concurrency = concurrencyFrom(env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`${e.message}\n${USAGE}\n`);
    return 2;
  }

  let key;
  try {
    key = await runtimeKey(env, cwd, !args.once, log, signal);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    log.error(e.message);
    return 2;
  }
  if (key === null) return 0;

  const runtime = createRuntime({
    apiUrl,
    runtimeKey: key,
    agent,
    concurrency,
    log: (event) => logEvent(log, event),
  });
  if (args.once) {
    try {
      const report = await runtime.runOnce();
      // A failed turn was answered with a reply naming the failure, but the command still fails:
      // a wrong key or an unreachable model must not pass for a working setup.
      const failed = report.runs.filter((r) => r.outcome === 'failed').length;
      log.info(
        `${report.pending} pending, ${report.runs.filter((r) => r.outcome === 'answered').length} answered, ${failed} failed`,
      );
      return failed > 0 ? 1 : 0;
    } catch (e) {
      log.error(`could not ask the API at ${apiUrl} for pending runs: ${(e as Error).message}`);
      return 1;
    } finally {
      await runtime.stop();
    }
  }

  if (!(await waitForApi(apiUrl, log, signal))) return 0;
  runtime.start();
  await new Promise<void>((done) => {
    if (signal.aborted) done();
    signal.addEventListener('abort', () => done(), { once: true });
  });
  await runtime.stop();
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const stop = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => stop.abort());
  process.exitCode = await main(process.argv.slice(2), process.env, { ...STANDARD_IO, signal: stop.signal });
}
