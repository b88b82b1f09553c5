/**
 * The real API for tests, as its own process: `apps/api` started on a free port over temp data
 * with the demo seed, and a plain-JSON tRPC client over one keep-alive HTTP agent, the way an
 * outside agent runtime talks to the API (no @trpc/client, so malformed requests can be sent as
 * well as good ones). Nothing of the API's code is imported: it is run.
 *
 * Another package's tests run the built API (`from: 'built'`, `node dist/bin/main.js`, what users
 * run; `turbo run test` builds it first for a package that depends on @sponge/api); the API's own
 * tests run its source (`from: 'source'`, `src/bin/main.ts` under tsx), which no build precedes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@oh/memory/testing';

/** apps/api, run from its own folder as `pnpm --filter @sponge/api start` runs it. */
export const apiDir = fileURLToPath(new URL('../../../apps/api/', import.meta.url));
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export interface ApiProcess {
  port: number;
  dataDir: string;
  pid: number;
  /** Everything the process printed so far (its structured log and any crash). */
  output: () => string;
  stop: () => Promise<void>;
}

export function tempDataDir(prefix = 'api'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `sponge-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// One free-port helper for every test harness: Oh's. The fault suites take it from here with the
// rest of the API's harness.
export { freePort };

/** The hosted runtime's credential given to the APIs started here (RUNTIME_KEY), unless `env` sets one. */
export const HARNESS_RUNTIME_KEY = 'harness-runtime-key-0123456789abcdef';

export interface StartApiOptions {
  /** `built`: `dist/bin/main.js` with plain node; `source`: `src/bin/main.ts` under tsx. */
  from: 'built' | 'source';
  dataDir: string;
  /** Added to (and over) the defaults: DEMO=1, LOG_LEVEL=warn, RUNTIME_KEY, HOST=127.0.0.1. */
  env?: Record<string, string>;
}

/** The command line that starts the API, from apps/api. */
function entryOf(from: StartApiOptions['from']): string[] {
  if (from === 'source') return ['--import', 'tsx', 'src/bin/main.ts'];
  if (!existsSync(join(apiDir, 'dist', 'bin', 'main.js')))
    throw new Error(
      `${join(apiDir, 'dist', 'bin', 'main.js')} is missing: build the API first (pnpm --filter @sponge/api build)`,
    );
  return ['dist/bin/main.js'];
}

/** Starts the API on a free port of 127.0.0.1 and waits until it answers `health`. */
export async function startApi(opts: StartApiOptions): Promise<ApiProcess> {
  const args = entryOf(opts.from);
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: apiDir,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: opts.dataDir,
      DEMO: '1',
      LOG_LEVEL: 'warn',
      RUNTIME_KEY: HARNESS_RUNTIME_KEY,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString('utf8');
    if (out.length > 1_000_000) out = out.slice(-500_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exit;
    clearTimeout(t);
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`the API exited before it was ready:\n${out.slice(-4000)}`);
    const r = await call(port, 'query', 'health').catch(() => null);
    if (r?.ok && (r.data as { ok?: unknown }).ok === true) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API did not answer health within 90 s:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, dataDir: opts.dataDir, pid: child.pid!, output: () => out, stop };
}

export interface RawResponse {
  status: number;
  text: string;
  json: unknown;
}

/**
 * One HTTP request on the shared keep-alive agent. When the server answers early and closes the
 * socket while the body is still being sent (a 413 for an oversized body), the answer counts:
 * the client-side reset that follows is not the server failing.
 */
export async function request(
  port: number,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  try {
    return await requestOnce(port, opts);
  } catch (err) {
    // The keep-alive race: the server closed an idle socket just as the client reused it, so the
    // request never reached it. Node's documented remedy is to send it again on a fresh socket.
    if (
      (err as { reusedSocket?: boolean }).reusedSocket &&
      (err as NodeJS.ErrnoException).code === 'ECONNRESET'
    ) {
      return requestOnce(port, opts);
    }
    throw err;
  }
}

function requestOnce(
  port: number,
  opts: { method: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown = undefined;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON: left undefined */
      }
      resolve({ status, text, json });
    };
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method, path: opts.path, headers: opts.headers, agent },
      (res) => {
        status = res.statusCode ?? 0;
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    req.on('error', (err) => {
      if (status !== 0) finish();
      else if (!settled) {
        settled = true;
        reject(Object.assign(err, { reusedSocket: req.reusedSocket }));
      }
    });
    if (opts.body !== undefined) req.end(opts.body);
    else req.end();
  });
}

export interface CallResult {
  ok: boolean;
  status: number;
  data: unknown;
  code?: string;
  reason?: string;
  error?: { message?: string; data?: Record<string, unknown> };
  text: string;
}

/** A tRPC call with plain JSON: queries as GET `?input=`, mutations as a POST body. */
export async function call(
  port: number,
  kind: 'query' | 'mutation',
  path: string,
  input?: unknown,
  token?: string,
): Promise<CallResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res =
    kind === 'query'
      ? await request(port, {
          method: 'GET',
          path: `/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`,
          headers,
        })
      : await request(port, {
          method: 'POST',
          path: `/trpc/${path}`,
          headers,
          body: JSON.stringify(input ?? null),
        });
  return toResult(res);
}

function toResult(res: RawResponse): CallResult {
  const body = (res.json ?? {}) as {
    result?: { data?: unknown };
    error?: { message?: string; data?: Record<string, unknown> };
  };
  if (body.result) return { ok: true, status: res.status, data: body.result.data, text: res.text };
  return {
    ok: false,
    status: res.status,
    data: undefined,
    code: body.error?.data?.code as string | undefined,
    reason: body.error?.data?.reason as string | undefined,
    error: body.error,
    text: res.text,
  };
}

export const query = (port: number, path: string, input?: unknown, token?: string) =>
  call(port, 'query', path, input, token);
export const mutate = (port: number, path: string, input?: unknown, token?: string) =>
  call(port, 'mutation', path, input, token);

/** Unwraps a successful call or fails with the server's answer. */
export function must<T>(r: CallResult, what: string): T {
  if (!r.ok) throw new Error(`${what} failed: ${r.status} ${r.text.slice(0, 500)}`);
  return r.data as T;
}

export interface Owner {
  userId: string;
  token: string;
  documentId: string;
}

/** Logs in the n-th demo owner and picks one of their own documents. */
export async function loginOwner(port: number, n = 0): Promise<Owner> {
  const users = must<Array<{ id: string }>>(await query(port, 'auth.demoUsers'), 'auth.demoUsers');
  const user = users[n];
  if (!user) throw new Error(`no demo user #${n}`);
  const { userToken } = must<{ userToken: string }>(
    await mutate(port, 'auth.login', { userId: user.id }),
    'auth.login',
  );
  const docs = must<Array<{ id: string; access: string; ownerId: string }>>(
    await query(port, 'documents.list', undefined, userToken),
    'documents.list',
  );
  const doc = docs.find((d) => d.access === 'owner');
  if (!doc) throw new Error('the demo owner owns no document');
  return { userId: user.id, token: userToken, documentId: doc.id };
}

export interface RunHandle {
  runId: string;
  runToken: string;
  sessionId: string;
}

export async function acceptChatRun(port: number, owner: Owner): Promise<RunHandle> {
  const run = must<{ runId: string; sessionId: string | null }>(
    await mutate(port, 'runs.accept', { documentId: owner.documentId, mode: 'chat' }, owner.token),
    'runs.accept',
  );
  if (!run.sessionId) throw new Error('a chat run came back without a session');
  // Only the hosted runtime's key obtains a run token (SPEC §7b).
  const claim = must<{ runToken: string }>(
    await mutate(port, 'runtime.claim', { runId: run.runId }, HARNESS_RUNTIME_KEY),
    'runtime.claim',
  );
  return { runId: run.runId, runToken: claim.runToken, sessionId: run.sessionId };
}

/** True when a response text shows an internal error or a raw SQLite message leaking through. */
export function leaksInternals(text: string): boolean {
  return /database is locked|SQLITE_|sqlite3?_|LibsqlError|SqliteError|at .*\.ts:\d+/i.test(text);
}
