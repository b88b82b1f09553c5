/**
 * Forgetting means gone, also from disk. Notes are written with unique marker strings in their
 * names, texts and data; after Forget now, and separately after expiry and a purge pass, the
 * markers must not occur in the raw bytes of any database file (main file, -wal, -shm,
 * -journal), in any table (the recall index included), nor in the run transcript's memory cards.
 *
 * The first block drives the store directly; the second drives the real API process (spawned from
 * apps/api, as an outside client would) so the transcript, the recall index and the purge worker
 * are the production ones.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Change, MemoryStore } from './index.ts';
import { freePort } from './testing/free-port.ts';
import {
  databaseFiles,
  fileUrl,
  findMarkersOnDisk,
  openStore,
  openTestPurger,
  rawClient,
  rowsMentioning,
  tempDir,
  testClock,
} from './testing/fixtures.ts';

/** Three markers per session: one in every name, one in every text, one in every data value. */
function markersFor(label: string) {
  const hex = randomBytes(8).toString('hex');
  return {
    name: `mk${label}${hex}`,
    text: `MKTEXT${label.toUpperCase()}${hex}`,
    data: `MKDATA${label.toUpperCase()}${hex}`,
  };
}
type Markers = ReturnType<typeof markersFor>;
const all = (m: Markers) => [m.name, m.text, m.data];

function noteChanges(m: Markers, from: number, count: number, op: 'add' | 'replace' = 'add'): Change[] {
  return Array.from({ length: count }, (_, j) => {
    const i = from + j;
    // Long texts spread the content over many pages, so stale copies would be easy to leave behind.
    return {
      op,
      name: `lead:${m.name}-${i}`,
      text: `${m.text} note ${i} ${op} `.repeat(40),
      data: { secret: `${m.data}-${i}`, n: i },
      links: i > 0 && op === 'add' ? [{ rel: 'supports' as const, to: `lead:${m.name}-${i - 1}` }] : [],
    };
  });
}

/** 48 notes over four calls: adds, replaces (old content stays in the log) and removes. */
async function writeMarkedNotes(store: MemoryStore, sessionId: string, m: Markers): Promise<void> {
  const ctx = { sessionId, author: 'agent:forget-test' };
  let v = (await store.getSession(sessionId))!.version;
  const steps: Change[][] = [
    noteChanges(m, 0, 24),
    noteChanges(m, 24, 24),
    noteChanges(m, 0, 10, 'replace'),
    Array.from({ length: 5 }, (_, i) => ({ op: 'remove' as const, name: `lead:${m.name}-${40 + i}` })),
  ];
  for (const [i, changes] of steps.entries()) {
    v = (await store.remember(ctx, { basedOn: v, requestId: `mk-${m.name}-${i}`, changes })).version;
  }
}

async function expectGoneEverywhere(dir: string, dbPath: string, m: Markers): Promise<void> {
  const files = databaseFiles(dir);
  expect(files.length).toBeGreaterThan(0);
  expect(findMarkersOnDisk(files, all(m))).toEqual([]);
  const raw = rawClient(dbPath);
  try {
    expect(await rowsMentioning(raw, all(m))).toEqual([]);
  } finally {
    raw.close();
  }
}

describe('store: forgotten and purged notes leave no bytes behind', () => {
  const tmp = tempDir('forget-disk');
  afterAll(() => tmp.remove());

  it('Forget now removes every trace of the notes from the database files, while the store stays open', async () => {
    const dir = join(tmp.dir, 'now');
    mkdirSync(dir);
    const dbPath = join(dir, 'memory.db');
    const store = await openStore(fileUrl(dbPath));
    try {
      const victim = await store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:victim',
        pinnedRevision: 0,
      });
      const keeper = await store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:keeper',
        pinnedRevision: 0,
      });
      const mv = markersFor('v');
      const mk = markersFor('k');
      await writeMarkedNotes(store, victim.id, mv);
      await writeMarkedNotes(store, keeper.id, mk);

      // The search works: before forgetting, the markers are on disk.
      expect(findMarkersOnDisk(databaseFiles(dir), all(mv)).length).toBeGreaterThan(0);

      const after = await store.forget(victim.id);
      expect(after.state).toBe('forgotten');
      expect(await store.notes(victim.id)).toEqual([]);
      expect(await store.log(victim.id)).toEqual([]);
      await expectGoneEverywhere(dir, dbPath, mv);

      // Only the forgotten session went: the other session's notes are intact and replay.
      expect((await store.notes(keeper.id)).length).toBe(43);
      expect((await store.verify(keeper.id)).ok).toBe(true);
      expect(findMarkersOnDisk(databaseFiles(dir), [mk.text]).length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
    await expectGoneEverywhere(dir, dbPath, markersFor('unused'));
  }, 60_000);

  it('expiry and a purge pass remove every trace of the notes from the database files', async () => {
    const dir = join(tmp.dir, 'purge');
    mkdirSync(dir);
    const dbPath = join(dir, 'memory.db');
    const clock = testClock();
    const store = await openStore(fileUrl(dbPath), { now: clock.now });
    const purger = await openTestPurger(fileUrl(dbPath), clock.now);
    try {
      const victim = await store.openSession({
        ownerId: 'user:o',
        documentId: 'doc:d',
        runId: 'run:victim',
        pinnedRevision: 0,
      });
      const mv = markersFor('p');
      await writeMarkedNotes(store, victim.id, mv);
      expect(findMarkersOnDisk(databaseFiles(dir), all(mv)).length).toBeGreaterThan(0);

      clock.advance(24 * 3600_000 + 1_000);
      expect((await store.getSession(victim.id))?.state).toBe('expired');
      for (let pass = 0; pass < 50 && (await store.getSession(victim.id))?.state !== 'purged'; pass++) {
        await purger.purgeOnce();
      }
      expect((await store.getSession(victim.id))?.state).toBe('purged');
      expect(await store.notes(victim.id)).toEqual([]);
      expect(await store.log(victim.id)).toEqual([]);
      await expectGoneEverywhere(dir, dbPath, mv);
    } finally {
      purger.close();
      store.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// The same promise through the real API: transcript cards, recall index and the purge worker.

const apiDir = fileURLToPath(new URL('../../../apps/api/', import.meta.url));
const httpAgent = new http.Agent({ keepAlive: true });

interface Answer {
  ok: boolean;
  status: number;
  data: unknown;
  reason?: string;
  text: string;
}

function trpc(
  port: number,
  kind: 'query' | 'mutation',
  path: string,
  input?: unknown,
  token?: string,
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const url =
    kind === 'query' && input !== undefined
      ? `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`
      : `/trpc/${path}`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: url,
        method: kind === 'query' ? 'GET' : 'POST',
        headers,
        agent: httpAgent,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: { result?: { data?: unknown }; error?: { data?: { reason?: string } } } = {};
          try {
            body = JSON.parse(text) as typeof body;
          } catch {
            /* not JSON */
          }
          resolve({
            ok: !!body.result,
            status: res.statusCode ?? 0,
            data: body.result?.data,
            reason: body.error?.data?.reason,
            text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(kind === 'mutation' ? JSON.stringify(input ?? null) : undefined);
  });
}

function must<T>(a: Answer, what: string): T {
  if (!a.ok) throw new Error(`${what}: ${a.status} ${a.text.slice(0, 400)}`);
  return a.data as T;
}

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
  const tmp = tempDir('forget-api');
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
  let port = 0;
  let api: ReturnType<typeof spawn> | undefined;
  let output = '';
  let owner = { token: '', documentId: '' };

  beforeAll(async () => {
    port = await freePort();
    api = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: apiDir,
      env: { ...process.env, ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    api.stdout!.on('data', (d) => (output += String(d)));
    api.stderr!.on('data', (d) => (output += String(d)));
    const deadline = Date.now() + 90_000;
    for (;;) {
      const h = await trpc(port, 'query', 'health').catch(() => null);
      if (h?.ok) break;
      if (api.exitCode !== null || Date.now() > deadline)
        throw new Error(`the API did not start:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const users = must<Array<{ id: string }>>(await trpc(port, 'query', 'auth.demoUsers'), 'demoUsers');
    const login = must<{ userToken: string }>(
      await trpc(port, 'mutation', 'auth.login', { userId: users[0]!.id }),
      'login',
    );
    const docs = must<Array<{ id: string; access: string }>>(
      await trpc(port, 'query', 'documents.list', undefined, login.userToken),
      'documents.list',
    );
    owner = { token: login.userToken, documentId: docs.find((d) => d.access === 'owner')!.id };
  }, 120_000);

  afterAll(async () => {
    if (api && api.exitCode === null) {
      const exited = new Promise((r) => api!.on('exit', r));
      api.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (api.exitCode === null) api.kill('SIGKILL');
    }
    tmp.remove();
  });

  /** A chat run whose agent remembers 48 marked notes (as in the store test) and recalls once. */
  async function markedRun(label: string) {
    const accepted = must<{ runId: string; sessionId: string }>(
      await trpc(
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
      await trpc(port, 'mutation', 'runtime.claim', { runId: accepted.runId }, env.RUNTIME_KEY),
      'runtime.claim',
    );
    const run = { ...accepted, runToken: claim.runToken };
    const m = markersFor(label);
    let v = 0;
    const steps: Change[][] = [
      noteChanges(m, 0, 24),
      noteChanges(m, 24, 24),
      noteChanges(m, 0, 10, 'replace'),
    ];
    for (const [i, changes] of steps.entries()) {
      const r = must<{ version: number }>(
        await trpc(
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
      await trpc(port, 'query', 'agent.recall', { text: `${m.text} note 3` }, run.runToken),
      'agent.recall',
    );
    return { run, m };
  }

  async function transcript(runId: string): Promise<unknown> {
    return must(await trpc(port, 'query', 'chat.transcript', { runId }, owner.token), 'chat.transcript');
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
    expect(findMarkersOnDisk(databaseFiles(tmp.dir), all(m))).toEqual([]);
    for (const file of ['memory.db', 'sponge.db']) {
      const raw = rawClient(join(tmp.dir, file));
      try {
        expect(await rowsMentioning(raw, all(m)), file).toEqual([]);
      } finally {
        raw.close();
      }
    }
  }

  it('Forget now: transcript cards read forgotten, no marker in any file or table', async () => {
    const { run, m } = await markedRun('f');
    const before = memoryCards(await transcript(run.runId), run.sessionId);
    expect(before.some((c) => c.names.some((n) => n.includes(m.name)))).toBe(true);
    expect(findMarkersOnDisk(databaseFiles(tmp.dir), all(m)).length).toBeGreaterThan(0);

    const forgot = must<{ state: string }>(
      await trpc(port, 'mutation', 'memory.forget', { sessionId: run.sessionId }, owner.token),
      'memory.forget',
    );
    expect(forgot.state).toBe('forgotten');
    await expectGoneFromApi(run.runId, run.sessionId, m);
  }, 60_000);

  it('expiry and the purge worker (--once): transcript cards read forgotten, no marker in any file or table', async () => {
    const started = Date.now();
    const { run, m } = await markedRun('e');
    await new Promise((r) => setTimeout(r, Math.max(0, ttlSeconds * 1000 + 500 - (Date.now() - started))));
    const late = await trpc(
      port,
      'mutation',
      'agent.remember',
      { basedOn: 3, requestId: 'late', changes: [{ op: 'add', name: 'lead:late', text: 'x' }] },
      run.runToken,
    );
    expect(late.reason).toBe('session_closed');

    const purge = await runNode(['src/purge-main.ts', '--once'], env);
    expect(purge.code, purge.out).toBe(0);
    const panel = must<{ session: { state: string } }>(
      await trpc(
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
