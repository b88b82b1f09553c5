/**
 * The real API for tests: the built API as its own process (@sponge/testing's `startApi`) on a
 * free port over temp libSQL files with the demo seed, a demo owner signed in over the typed tRPC
 * client, and a helper that accepts a fresh run. `turbo run test` builds @sponge/api first (a
 * devDependency of this package).
 */
import { join } from 'node:path';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@sponge/api';
import { startApi, tempDataDir } from '@sponge/testing/api';

export interface RealApi {
  url: string;
  /** A client signed in as the demo owner. */
  owner: ReturnType<typeof createTRPCClient<AppRouter>>;
  /**
   * `runs.accept` on the owner's first document (or `documentId`), then `runtime.claim`: a fresh
   * run with its own session.
   */
  acceptRun(
    mode?: 'chat' | 'staged',
    documentId?: string,
  ): Promise<{ runId: string; runToken: string; sessionId: string | null }>;
  close(): Promise<void>;
}

function clientFor(url: string, token?: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({ url: `${url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) }),
    ],
  });
}

/** The hosted runtime's credential in these tests (RUNTIME_KEY), unless `env` sets another. */
const RUNTIME_KEY = 'agent-test-runtime-key-0123456789abcdef';

export async function startRealApi(env: Record<string, string> = {}): Promise<RealApi> {
  const data = tempDataDir('agent-test');
  const runtimeKey = env.RUNTIME_KEY ?? RUNTIME_KEY;
  const api = await startApi({
    from: 'built',
    dataDir: data.dir,
    env: { RUNTIME_KEY: runtimeKey, WEB_DIST: join(data.dir, 'no-web-dist'), ...env },
  }).catch((e: unknown) => {
    data.remove();
    throw e;
  });
  const url = `http://127.0.0.1:${api.port}`;
  const close = async () => {
    await api.stop();
    data.remove();
  };
  try {
    const anonymous = clientFor(url);
    const [first] = await anonymous.auth.demoUsers.query();
    if (!first) throw new Error('the demo seed has no owners');
    const { userToken } = await anonymous.auth.login.mutate({ userId: first.id });
    const owner = clientFor(url, userToken);
    const documents = await owner.documents.list.query();
    const document = documents.find((d) => d.access === 'owner');
    if (!document) throw new Error(`demo owner ${first.id} owns no document`);
    return {
      url,
      owner,
      // The owner accepts; the test, as the hosted runtime, claims the run and gets its token.
      acceptRun: async (mode = 'chat', documentId = document.id) => {
        const accepted = await owner.runs.accept.mutate({ documentId, mode });
        const { runToken } = await clientFor(url, runtimeKey).runtime.claim.mutate({
          runId: accepted.runId,
        });
        return { ...accepted, runToken };
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
