/**
 * Forgetting means gone, also from disk, through the real API process (run as an outside client
 * runs it): notes written with unique marker strings in their names, texts and data; after
 * Forget now, and separately after expiry and a purge pass by the purge worker, the markers must
 * not occur in the raw bytes of any database file (main file, -wal, -shm, -journal), in any table
 * of either database (the recall index included), nor in the run transcript's memory cards.
 * The same promise of the store alone is Oh's (packages/oh/memory/src/forgetting-on-disk.test.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Change } from '@oh/memory';
import {
  allMarkers,
  databaseFiles,
  findMarkersOnDisk,
  markedNoteChanges,
  markersFor,
  rawClient,
  rowsMentioning,
} from '@oh/memory/testing';
import type { Markers } from '@oh/memory/testing';
import { call, must, startApi, tempDataDir } from '@sponge/testing/api';
import type { ApiProcess } from '@sponge/testing/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const apiDir = fileURLToPath(new URL('..', import.meta.url));

/** A command of the API (the purge worker) from its source, as `src/bin/main.ts` is run. */
function runNode(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: apiDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('API: Forget now and purge leave nothing in the files, the transcript or the recall index', () => {
  const tmp = tempDataDir('forget-api');
  const ttlSeconds = 8;
  const env: Record<string, string> = {
    DATA_DIR: tmp.dir,
    DEMO: '1',
    RECALL_MODE: 'live',
    SESSION_TTL_SECONDS: String(ttlSeconds),
    LOG_LEVEL: 'warn',
    PURGE_KEY: 'forget-test-purge-key-0123456789abcdef',
    RUNTIME_KEY: 'forget-test-runtime-key-0123456789abcdef',
  };
  let api: ApiProcess | undefined;
  let port = 0;
  let owner = { token: '', documentId: '' };

  beforeAll(async () => {
    api = await startApi({ from: 'source', dataDir: tmp.dir, env });
    port = api.port;
    const users = must<Array<{ id: string }>>(await call(port, 'query', 'auth.demoUsers'), 'demoUsers');
    const login = must<{ userToken: string }>(
      await call(port, 'mutation', 'auth.login', { userId: users[0]!.id }),
      'login',
    );
    const docs = must<Array<{ id: string; access: string }>>(
      await call(port, 'query', 'documents.list', undefined, login.userToken),
      'documents.list',
    );
    owner = { token: login.userToken, documentId: docs.find((d) => d.access === 'owner')!.id };
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    tmp.remove();
  });

  /** A chat run whose agent remembers 48 marked notes (as in the store test) and recalls once. */
  async function markedRun(label: string) {
    const accepted = must<{ runId: string; sessionId: string }>(
      await call(
        port,
        'mutation',
        'runs.accept',
        { documentId: owner.documentId, mode: 'chat' },
        owner.token,
      ),
      'runs.accept',
    );
    // Only the hosted runtime's key obtains a run token (SPEC §7b).
    const claim = must<{ runToken: string }>(
      await call(port, 'mutation', 'runtime.claim', { runId: accepted.runId }, env.RUNTIME_KEY),
      'runtime.claim',
    );
    const run = { ...accepted, runToken: claim.runToken };
    const m = markersFor(label);
    let v = 0;
    const steps: Change[][] = [
      markedNoteChanges(m, 0, 24),
      markedNoteChanges(m, 24, 24),
      markedNoteChanges(m, 0, 10, 'replace'),
    ];
    for (const [i, changes] of steps.entries()) {
      const r = must<{ version: number }>(
        await call(
          port,
          'mutation',
          'agent.remember',
          { basedOn: v, requestId: `mk-${i}`, changes },
          run.runToken,
        ),
        'agent.remember',
      );
      v = r.version;
    }
    // A recall puts the notes' names into the recall index (and the shadow/live recall record).
    must(
      await call(port, 'query', 'agent.recall', { text: `${m.text} note 3` }, run.runToken),
      'agent.recall',
    );
    return { run, m };
  }

  async function transcript(runId: string): Promise<unknown> {
    return must(await call(port, 'query', 'chat.transcript', { runId }, owner.token), 'chat.transcript');
  }

  function memoryCards(t: unknown, sessionId: string): Array<{ names: string[]; count: number }> {
    const items = (Array.isArray(t) ? t : ((t as { items?: unknown[] }).items ?? [])) as Array<
      Record<string, unknown>
    >;
    return items.filter((i) => i.type === 'memory' && i.sessionId === sessionId) as unknown as Array<{
      names: string[];
      count: number;
    }>;
  }

  async function expectGoneFromApi(runId: string, sessionId: string, m: Markers) {
    const t = await transcript(runId);
    expect(JSON.stringify(t)).not.toMatch(new RegExp(`${m.name}|${m.text}|${m.data}`));
    const cards = memoryCards(t, sessionId);
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) expect(card.names).toEqual([]);
    expect(findMarkersOnDisk(databaseFiles(tmp.dir), allMarkers(m))).toEqual([]);
    for (const file of ['memory.db', 'sponge.db']) {
      const raw = rawClient(join(tmp.dir, file));
      try {
        expect(await rowsMentioning(raw, allMarkers(m)), file).toEqual([]);
      } finally {
        raw.close();
      }
    }
  }

  it('Forget now: transcript cards read forgotten, no marker in any file or table', async () => {
    const { run, m } = await markedRun('f');
    const before = memoryCards(await transcript(run.runId), run.sessionId);
    expect(before.some((c) => c.names.some((n) => n.includes(m.name)))).toBe(true);
    expect(findMarkersOnDisk(databaseFiles(tmp.dir), allMarkers(m)).length).toBeGreaterThan(0);

    const forgot = must<{ state: string }>(
      await call(port, 'mutation', 'memory.forget', { sessionId: run.sessionId }, owner.token),
      'memory.forget',
    );
    expect(forgot.state).toBe('forgotten');
    await expectGoneFromApi(run.runId, run.sessionId, m);
  }, 60_000);

  it('expiry and the purge worker (--once): transcript cards read forgotten, no marker in any file or table', async () => {
    const started = Date.now();
    const { run, m } = await markedRun('e');
    await new Promise((r) => setTimeout(r, Math.max(0, ttlSeconds * 1000 + 500 - (Date.now() - started))));
    const late = await call(
      port,
      'mutation',
      'agent.remember',
      { basedOn: 3, requestId: 'late', changes: [{ op: 'add', name: 'lead:late', text: 'x' }] },
      run.runToken,
    );
    expect(late.reason).toBe('session_closed');

    const purge = await runNode(['src/bin/purge-main.ts', '--once'], env);
    expect(purge.code, purge.out).toBe(0);
    const panel = must<{ session: { state: string } }>(
      await call(
        port,
        'query',
        'memory.panel',
        { documentId: owner.documentId, sessionId: run.sessionId },
        owner.token,
      ),
      'memory.panel',
    );
    expect(panel.session.state).toBe('purged');
    await expectGoneFromApi(run.runId, run.sessionId, m);
  }, 90_000);
});
