/**
 * Test harness: a real API server on an ephemeral port over temp libSQL files, a typed tRPC
 * client, and a raw `call` for tests that care about the wire format. Everything is removed on
 * `close()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import { startSqld } from '@oh/memory/testing';
import type { Sqld } from '@oh/memory/testing';
import type { AppRouter } from '../router.ts';
import { loadConfig } from '../config.ts';
import { startServer } from '../server.ts';
import type { RunningServer } from '../server.ts';
import { createLogger } from '../log.ts';
import type { Logger } from 'pino';
import type { AuthLimits } from '../accounts/limits.ts';
import type { RateLimit } from '../http/rate-limit.ts';
import type { UploadPace } from '../http/upload-places.ts';

export const TEST_TOKEN_SECRET = 'api-test-token-secret-0123456789abcdef';
/** The hosted runtime's credential in tests (RUNTIME_KEY). */
export const TEST_RUNTIME_KEY = 'api-test-runtime-key-0123456789abcdef';

export interface TestServer extends RunningServer {
  dir: string;
  /** The databases' URLs: files in `dir`, or libSQL servers (TEST_DATABASES=sqld). Tests that go
   * behind the API's back (a raw client, a purge pass) reach the data through these. */
  memoryUrl: string;
  appUrl: string;
  /** A typed client; `batch` switches to httpBatchLink. */
  client(token?: string, opts?: { batch?: boolean }): ReturnType<typeof createTRPCClient<AppRouter>>;
  call(kind: 'query' | 'mutation', path: string, input?: unknown, token?: string): Promise<RawResult>;
  login(userId: string): Promise<string>;
  /** A demo sign-in as a browser gets it: the token and the signed cookie's value. */
  loginCookie(userId: string): Promise<{ token: string; cookie: string }>;
  /**
   * What the owner and the hosted runtime do together: the owner accepts a run (`runs.accept`,
   * which hands out no token), the runtime claims it with RUNTIME_KEY and gets the run token.
   */
  acceptRun(
    ownerToken: string,
    input: { documentId: string; mode: 'chat' | 'staged' },
  ): Promise<{ runId: string; sessionId: string | null; runToken: string }>;
}

/** Decoded JSON of a response, loosely typed on purpose: tests probe its shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface RawResult {
  status: number;
  ok: boolean;
  /** `result.data` on success. */
  data: Json;
  /** `error` on failure. */
  error:
    | {
        message: string;
        data: {
          code: string;
          httpStatus: number;
          reason?: string;
          currentVersion?: number;
          existingId?: string;
          issues?: unknown;
        };
      }
    | undefined;
  text: string;
}

export async function startTestServer(
  env: Record<string, string> = {},
  overrides: {
    now?: () => Date;
    /** A logger of the test's own, to read what the API logs. */
    log?: Logger;
    dir?: string;
    directCalls?: boolean;
    /** Another test server's databases (a second API process on the same data). */
    sameDataAs?: TestServer;
    authLimits?: AuthLimits;
    /** How a sign-in past an account's limit waits its turn (tests record the waits). */
    authWait?: (ms: number) => Promise<void>;
    /** The least pace of an upload's body (tests turn its clock). */
    uploadPace?: UploadPace;
    mcpRateLimit?: RateLimit;
  } = {},
): Promise<TestServer> {
  const dir = overrides.dir ?? overrides.sameDataAs?.dir ?? mkdtempSync(join(tmpdir(), 'sponge-api-test-'));
  // TEST_DATABASES=sqld: both databases on fresh libSQL servers instead of files in `dir`
  // (npm test runs this suite a second time that way).
  const servers: Sqld[] =
    process.env.TEST_DATABASES === 'sqld' && !overrides.sameDataAs
      ? await Promise.all([startSqld(), startSqld()])
      : [];
  const urls = overrides.sameDataAs
    ? { MEMORY_DATABASE_URL: overrides.sameDataAs.memoryUrl, APP_DATABASE_URL: overrides.sameDataAs.appUrl }
    : servers.length
      ? { MEMORY_DATABASE_URL: servers[0]!.url, APP_DATABASE_URL: servers[1]!.url }
      : {};
  const config = loadConfig({
    ...urls,
    PORT: '0',
    DATA_DIR: dir,
    DEMO: '1',
    TOKEN_SECRET: TEST_TOKEN_SECRET,
    RUNTIME_KEY: TEST_RUNTIME_KEY,
    WEB_DIST: join(dir, 'no-web-dist'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...env,
  });
  const server = await startServer(config, {
    host: '127.0.0.1',
    log: overrides.log ?? createLogger(config.logLevel),
    ...(overrides.now ? { now: overrides.now } : {}),
    ...(overrides.directCalls !== undefined ? { directCalls: overrides.directCalls } : {}),
    ...(overrides.authLimits ? { authLimits: overrides.authLimits } : {}),
    ...(overrides.authWait ? { authWait: overrides.authWait } : {}),
    ...(overrides.uploadPace ? { uploadPace: overrides.uploadPace } : {}),
    ...(overrides.mcpRateLimit ? { mcpRateLimit: overrides.mcpRateLimit } : {}),
  });
  const trpcUrl = `${server.url}/trpc`;

  const call: TestServer['call'] = async (kind, path, input, token) => {
    // A FormData input goes as multipart/form-data (fetch sets the boundary), anything else as JSON.
    const form = input instanceof FormData;
    const headers: Record<string, string> = form ? {} : { 'content-type': 'application/json' };
    if (token !== undefined)
      headers.authorization = token.startsWith('RAW ') ? token.slice(4) : `Bearer ${token}`;
    const res =
      kind === 'query'
        ? await fetch(
            `${trpcUrl}/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`,
            { headers },
          )
        : await fetch(`${trpcUrl}/${path}`, {
            method: 'POST',
            headers,
            body: form ? input : JSON.stringify(input ?? null),
          });
    const text = await res.text();
    let body: Json = {};
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: leave body empty, the test looks at status/text
    }
    return {
      status: res.status,
      ok: res.ok && body.result !== undefined,
      data: body.result?.data,
      error: body.error,
      text,
    };
  };

  return {
    ...server,
    dir,
    memoryUrl: config.memoryDb.url,
    appUrl: config.appDb.url,
    client(token, opts = {}) {
      const headers = () => (token ? { authorization: `Bearer ${token}` } : {});
      return createTRPCClient<AppRouter>({
        links: [
          opts.batch
            ? httpBatchLink({ url: trpcUrl, headers, maxItems: 10 })
            : httpLink({ url: trpcUrl, headers }),
        ],
      });
    },
    call,
    async login(userId) {
      const r = await call('mutation', 'auth.login', { userId });
      if (!r.ok) throw new Error(`login ${userId} failed: ${r.text}`);
      return r.data.userToken as string;
    },
    async loginCookie(userId) {
      const res = await fetch(`${server.url}/trpc/auth.login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userId }),
      });
      if (!res.ok) throw new Error(`login ${userId} failed: ${await res.text()}`);
      const token = ((await res.json()) as Json).result.data.userToken as string;
      const cookie = /sponge_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
      if (!cookie) throw new Error(`login ${userId} set no session cookie`);
      return { token, cookie };
    },
    async acceptRun(ownerToken, input) {
      const accepted = await call('mutation', 'runs.accept', input, ownerToken);
      if (!accepted.ok) {
        const e = new Error(`runs.accept failed: ${accepted.text}`) as Error & { data?: unknown };
        e.data = accepted.data;
        throw e;
      }
      const claimed = await call(
        'mutation',
        'runtime.claim',
        { runId: accepted.data.runId },
        TEST_RUNTIME_KEY,
      );
      if (!claimed.ok) throw new Error(`runtime.claim failed: ${claimed.text}`);
      return {
        runId: accepted.data.runId as string,
        sessionId: accepted.data.sessionId as string | null,
        runToken: claimed.data.runToken as string,
      };
    },
    async close() {
      await server.close();
      await Promise.all(servers.map((s) => s.stop()));
      if (!overrides.dir && !overrides.sameDataAs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The `data` of a TRPCClientError (code, httpStatus, reason, currentVersion…), or throws. */
export async function errorOf(
  p: Promise<unknown>,
): Promise<{ code: string; httpStatus: number; reason?: string; currentVersion?: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TRPCClientError) return { ...e.data, message: e.message };
    throw e;
  }
  throw new Error('expected the call to fail');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
