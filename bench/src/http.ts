/**
 * One keep-alive HTTP client for every HTTP figure (transport floor and project calls alike),
 * and the API process under test, started the way `pnpm --filter @sponge/api start` starts it:
 * plain `node` on the built JavaScript, so the bench measures what users run.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const agent = new http.Agent({ keepAlive: true, maxSockets: 128, keepAliveMsecs: 10_000 });
const apiDir = apiDirOf(process.env);
const apiEntry = join(apiDir, 'dist', 'bin', 'main.js');

/**
 * The API under test: this checkout's `apps/api`, or with `BENCH_API_DIR` the `apps/api` of
 * another, built checkout (a git worktree of an earlier commit), so a before/after comparison runs
 * both APIs under the same bench code, alternating.
 */
export function apiDirOf(env: NodeJS.ProcessEnv): string {
  const other = env.BENCH_API_DIR;
  if (other === undefined || other === '') return fileURLToPath(new URL('../../apps/api/', import.meta.url));
  if (!isAbsolute(other)) throw new Error(`BENCH_API_DIR must be an absolute path, not ${other}`);
  return other;
}

/**
 * The Node flags of the API's own start script (`node --max-semi-space-size=16 dist/bin/main.js` in
 * apps/api/package.json), so the bench measures the process users start.
 */
export function apiStartFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(apiDir, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return nodeFlagsOf(manifest.scripts.start);
}

/** The flags of a `node [flags] dist/bin/main.js` script; any other shape of script throws. */
export function nodeFlagsOf(script: string): string[] {
  const [command, ...words] = script.trim().split(/\s+/);
  if (command !== 'node' || words.at(-1) !== 'dist/bin/main.js')
    throw new Error(`apps/api's start script is not \`node [flags] dist/bin/main.js\`: ${script}`);
  return words.slice(0, -1);
}

export interface Answer {
  ok: boolean;
  status: number;
  data: unknown;
  reason?: string;
  currentVersion?: number;
}

/** A call that got no whole answer within its `timeoutMs`; the request is cut off. */
export class RequestTimeout extends Error {
  constructor(path: string, ms: number) {
    super(`${path}: no answer within ${ms} ms`);
    this.name = 'RequestTimeout';
  }
}

export interface CallOptions {
  /**
   * Rejects with {@link RequestTimeout} when the whole answer has not arrived this many ms after
   * the call, and destroys the socket (a late answer cannot land on the next request). Unset: no
   * limit.
   */
  timeoutMs?: number;
}

export function trpc(
  port: number,
  kind: 'query' | 'mutation',
  path: string,
  input?: unknown,
  token?: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const url =
    kind === 'query' && input !== undefined
      ? `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`
      : `/trpc/${path}`;
  const body = kind === 'mutation' ? JSON.stringify(input ?? null) : undefined;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const req = http.request(
      { host: '127.0.0.1', port, path: url, method: kind === 'query' ? 'GET' : 'POST', headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let parsed: {
            result?: { data?: unknown };
            error?: { data?: { reason?: string; currentVersion?: number } };
          } = {};
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof parsed;
          } catch {
            /* not JSON */
          }
          clearTimeout(timer);
          resolve({
            ok: parsed.result !== undefined,
            status: res.statusCode ?? 0,
            data: parsed.result?.data,
            reason: parsed.error?.data?.reason,
            currentVersion: parsed.error?.data?.currentVersion,
          });
        });
      },
    );
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      // Settled here, not through the request's events: whatever state the exchange is in
      // (waiting for headers, half a body), the caller gets an answer at the deadline.
      timer = setTimeout(() => {
        reject(new RequestTimeout(path, ms));
        req.destroy();
      }, ms);
    }
    req.end(body);
  });
}

/** The JSON a tRPC mutation answers: its result, or its error's data. */
interface MutationBody<T> {
  result?: { data: T };
  error?: { data?: { reason?: string; retryAfterSeconds?: number } };
}

/** POSTs one PDF to documents.upload as a client sends it: multipart, with a bearer token. */
export async function uploadPdf(
  port: number,
  token: string,
  bytes: Uint8Array,
  name: string,
): Promise<{ ok: boolean; status: number; body: MutationBody<{ id: string }> }> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
  const res = await fetch(`http://127.0.0.1:${port}/trpc/documents.upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { ok: res.ok, status: res.status, body: (await res.json()) as MutationBody<{ id: string }> };
}

export function must<T>(a: Answer, what: string): T {
  if (!a.ok) throw new Error(`${what}: HTTP ${a.status} ${a.reason ?? ''}`);
  return a.data as T;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

export interface Api {
  port: number;
  pid: number;
  stop: () => Promise<void>;
  /** Resident set size of the API process, from /proc (Linux). */
  rssBytes: () => number;
}

/** The hosted runtime's credential given to the API under test (RUNTIME_KEY). */
const RUNTIME_KEY = 'bench-runtime-key-0123456789abcdef';

export async function startApi(dataDir: string, env: Record<string, string> = {}): Promise<Api> {
  if (!existsSync(apiEntry))
    throw new Error(
      `${apiEntry} is missing: build the API first (pnpm turbo run build --filter=@sponge/api...)`,
    );
  const port = await freePort();
  // BENCH_API_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the API under load.
  const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...apiStartFlags(), ...nodeArgs, apiEntry], {
    cwd: apiDir,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DEMO: '1', RUNTIME_KEY, ...env },
    // The structured log line per call is part of the API's own cost; it goes to /dev/null here.
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d) => (err = (err + String(d)).slice(-4000)));
  const exit = new Promise<void>((r) => child.on('exit', () => r()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    // A process that took the connection but never answers must not outlast the deadline.
    const h = await trpc(port, 'query', 'health', undefined, undefined, { timeoutMs: 5_000 }).catch(
      () => null,
    );
    if (h?.ok) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the API did not start:\n${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(t);
    },
    rssBytes: () => rssOf(child.pid!),
  };
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

export interface Owner {
  token: string;
  documentId: string;
}

export async function loginOwner(port: number, options: CallOptions = {}): Promise<Owner> {
  const users = must<Array<{ id: string }>>(
    await trpc(port, 'query', 'auth.demoUsers', undefined, undefined, options),
    'auth.demoUsers',
  );
  const login = must<{ userToken: string }>(
    await trpc(port, 'mutation', 'auth.login', { userId: users[0]!.id }, undefined, options),
    'auth.login',
  );
  const docs = must<Array<{ id: string; access: string }>>(
    await trpc(port, 'query', 'documents.list', undefined, login.userToken, options),
    'documents.list',
  );
  return { token: login.userToken, documentId: docs.find((d) => d.access === 'owner')!.id };
}

export async function acceptRun(
  port: number,
  owner: Owner,
  options: CallOptions = {},
): Promise<{ runToken: string; sessionId: string }> {
  // The owner accepts; the bench, as the hosted runtime, claims the run for its token.
  const run = must<{ runId: string; sessionId: string }>(
    await trpc(
      port,
      'mutation',
      'runs.accept',
      { documentId: owner.documentId, mode: 'chat' },
      owner.token,
      options,
    ),
    'runs.accept',
  );
  const claim = must<{ runToken: string }>(
    await trpc(port, 'mutation', 'runtime.claim', { runId: run.runId }, RUNTIME_KEY, options),
    'runtime.claim',
  );
  return { runToken: claim.runToken, sessionId: run.sessionId };
}
