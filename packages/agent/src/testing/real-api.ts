/**
 * The real API for tests: `startServer` in-process on an ephemeral port over temp libSQL files
 * with the demo seed, a demo owner signed in, and a helper that accepts a fresh run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@sponge/api';
// The API package exports only its types; the server entry is reached by path, in tests only.
import { loadConfig } from '../../../../apps/api/src/config.ts';
import { startServer } from '../../../../apps/api/src/server.ts';

export interface RealApi {
  url: string;
  /** A client signed in as the demo owner. */
  owner: ReturnType<typeof createTRPCClient<AppRouter>>;
  /** `runs.accept` on the owner's document, then `runtime.claim`: a fresh run with its own session. */
  acceptRun(mode?: 'chat' | 'staged'): Promise<{ runId: string; runToken: string; sessionId: string | null }>;
  close(): Promise<void>;
}

function clientFor(url: string, token?: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({ url: `${url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) }),
    ],
  });
}

/** The hosted runtime's credential in these tests (RUNTIME_KEY). */
const RUNTIME_KEY = 'agent-test-runtime-key-0123456789abcdef';

export async function startRealApi(env: Record<string, string> = {}): Promise<RealApi> {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-agent-test-'));
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dir,
    DEMO: '1',
    RUNTIME_KEY: RUNTIME_KEY,
    WEB_DIST: join(dir, 'no-web-dist'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...env,
  });
  const server = await startServer(config, { host: '127.0.0.1' });
  try {
    const anonymous = clientFor(server.url);
    const [first] = await anonymous.auth.demoUsers.query();
    if (!first) throw new Error('the demo seed has no owners');
    const { userToken } = await anonymous.auth.login.mutate({ userId: first.id });
    const owner = clientFor(server.url, userToken);
    const documents = await owner.documents.list.query();
    const document = documents.find((d) => d.access === 'owner');
    if (!document) throw new Error(`demo owner ${first.id} owns no document`);
    return {
      url: server.url,
      owner,
      // The owner accepts; the test, as the hosted runtime, claims the run and gets its token.
      acceptRun: async (mode = 'chat') => {
        const accepted = await owner.runs.accept.mutate({ documentId: document.id, mode });
        const { runToken } = await clientFor(server.url, RUNTIME_KEY).runtime.claim.mutate({
          runId: accepted.runId,
        });
        return { ...accepted, runToken };
      },
      async close() {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
