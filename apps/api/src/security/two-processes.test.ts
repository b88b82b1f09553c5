/**
 * Two API processes on one DATA_DIR (one memory.db, one sponge.db) under concurrent load.
 *
 * Every logical remember call is sent to BOTH processes at the same moment with the same request
 * id (a client retrying through a balancer), and retried until it is applied. Afterwards each
 * request id was written exactly once, every version 1..V belongs to exactly one request id
 * (no lost update), every applied note is visible, the log replays, and no caller ever saw a 5xx
 * or a "database is locked".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptChatRun,
  leaksInternals,
  loginOwner,
  must,
  mutate,
  query,
  startApi,
  tempDataDir,
} from '@sponge/testing/api';
import type { ApiProcess, CallResult, Owner, RunHandle } from '@sponge/testing/api';

interface Applied {
  version: number;
  replayed: boolean;
  digest: string | null;
}

/** Collects every answer so the suite can assert that none was a server error. */
class Ledger {
  readonly answers: CallResult[] = [];
  record(r: CallResult): CallResult {
    this.answers.push(r);
    return r;
  }
  serverErrors(): string[] {
    return this.answers
      .filter((a) => a.status >= 500 || leaksInternals(a.text))
      .map((a) => `${a.status} ${a.text.slice(0, 300)}`);
  }
}

/**
 * One logical call: `changes` under `requestId`, sent to every process at once, repeated with the
 * current version after a stale refusal, until some process applies it. Returns every success.
 */
async function rememberEverywhere(
  apis: ApiProcess[],
  ledger: Ledger,
  run: RunHandle,
  requestId: string,
  changes: unknown[],
  basedOn: { v: number },
): Promise<Applied[]> {
  const successes: Applied[] = [];
  for (let attempt = 0; attempt < 500; attempt++) {
    const input = { basedOn: basedOn.v, requestId, changes };
    const answers = await Promise.all(
      apis.map((api) =>
        mutate(api.port, 'agent.remember', input, run.runToken).then((r) => ledger.record(r)),
      ),
    );
    for (const a of answers) {
      if (a.ok) {
        const d = a.data as { version: number; replayed: boolean; applied: Array<{ digest: string | null }> };
        successes.push({ version: d.version, replayed: d.replayed, digest: d.applied[0]?.digest ?? null });
      } else if (a.reason === 'stale_version') {
        const current = (a.error?.data?.currentVersion as number | undefined) ?? basedOn.v;
        basedOn.v = Math.max(basedOn.v, current);
      } else {
        throw new Error(`unexpected answer to ${requestId}: ${a.status} ${a.text.slice(0, 300)}`);
      }
    }
    if (successes.length > 0) {
      // One more retry of the very same input after success: it must replay, never write again.
      const again = ledger.record(
        await mutate(apis[attempt % apis.length]!.port, 'agent.remember', input, run.runToken),
      );
      expect(again.ok, again.text).toBe(true);
      const d = again.data as { version: number; replayed: boolean };
      expect(d.replayed).toBe(true);
      successes.push({ version: d.version, replayed: true, digest: successes[0]!.digest });
      basedOn.v = Math.max(basedOn.v, successes[0]!.version);
      return successes;
    }
    await new Promise((r) => setTimeout(r, Math.random() * 5));
  }
  throw new Error(`${requestId} was never applied`);
}

/** Checks one session after the load: exactly once per request id and no lost update. */
async function checkSession(
  api: ApiProcess,
  owner: Owner,
  run: RunHandle,
  results: Map<string, Applied[]>,
  noteOf: (requestId: string) => string,
): Promise<void> {
  const applied = new Map<number, string>();
  for (const [requestId, successes] of results) {
    const fresh = successes.filter((s) => !s.replayed);
    // Exactly one process wrote it; every other answer is the replay of that same result.
    expect(fresh.length, `${requestId} written ${fresh.length} times`).toBe(1);
    const version = fresh[0]!.version;
    for (const s of successes) {
      expect(s.version).toBe(version);
      expect(s.digest).toBe(fresh[0]!.digest);
    }
    expect(applied.has(version), `version ${version} given to two calls`).toBe(false);
    applied.set(version, requestId);
  }
  const load = must<{ session: { version: number } }>(
    await query(api.port, 'agent.load', undefined, run.runToken),
    'agent.load',
  );
  // Final version = number of applied calls, and each version 1..V belongs to one call.
  expect(load.session.version).toBe(results.size);
  expect([...applied.keys()].sort((a, b) => a - b)).toEqual(
    Array.from({ length: results.size }, (_, i) => i + 1),
  );

  const panel = must<{ session: { version: number }; workingNotes: Array<{ name: string }> }>(
    await query(
      api.port,
      'memory.panel',
      { documentId: owner.documentId, sessionId: run.sessionId },
      owner.token,
    ),
    'memory.panel',
  );
  expect(panel.session.version).toBe(results.size);
  expect(panel.workingNotes.map((n) => n.name).sort()).toEqual([...results.keys()].map(noteOf).sort());
}

async function verifyOnDisk(dataDir: string, sessionIds: string[]): Promise<void> {
  // The log must replay to the notes: checked with the store itself, on the shared file.
  const memory = (await import('@oh/memory')) as unknown as {
    createMemoryStore: (o: object) => Promise<{
      verify: (id: string) => Promise<{ ok: boolean; mismatches: unknown[] }>;
      close: () => void;
    }>;
  };
  const store = await memory.createMemoryStore({
    url: `file:${join(dataDir, 'memory.db')}`,
    tokenSecret: readFileSync(join(dataDir, 'token-secret'), 'utf8').trim(),
    reviewed: { latestRevision: async () => 0, recordsAt: async () => [] },
  });
  try {
    for (const id of sessionIds) {
      const report = await store.verify(id);
      expect(report.mismatches).toEqual([]);
      expect(report.ok).toBe(true);
    }
  } finally {
    store.close();
  }
}

describe('two API processes, one database', () => {
  const data = tempDataDir('two-procs');
  let a: ApiProcess;
  let b: ApiProcess;
  let owner: Owner;
  const ledger = new Ledger();

  beforeAll(async () => {
    // The first process creates the files, the schema and the secrets; the second reuses them.
    a = await startApi({ from: 'source', dataDir: data.dir });
    b = await startApi({ from: 'source', dataDir: data.dir });
    owner = await loginOwner(a.port);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    data.remove();
  });

  it('the owner token issued by one process works on the other (shared state, stateless API)', async () => {
    const docs = await query(b.port, 'documents.list', undefined, owner.token);
    expect(docs.ok, docs.text).toBe(true);
  });

  it('one session, 12 writers through both processes at once: exactly-once, no lost update', async () => {
    const run = await acceptChatRun(a.port, owner);
    const writers = 12;
    const callsEach = 8;
    const results = new Map<string, Applied[]>();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const basedOn = { v: 0 };
        for (let i = 0; i < callsEach; i++) {
          const requestId = `one-w${w}-c${i}`;
          const changes = [{ op: 'add', name: `note:w${w}-c${i}`, text: `writer ${w} call ${i}` }];
          results.set(requestId, await rememberEverywhere([a, b], ledger, run, requestId, changes, basedOn));
        }
      }),
    );
    expect(results.size).toBe(writers * callsEach);
    await checkSession(b, owner, run, results, (id) => `note:${id.slice('one-'.length)}`);
    await verifyOnDisk(data.dir, [run.sessionId]);
    expect(ledger.serverErrors()).toEqual([]);
  }, 180_000);

  it('eight sessions written concurrently, each call sent to both processes: each session exact', async () => {
    const runs = await Promise.all(Array.from({ length: 8 }, () => acceptChatRun(b.port, owner)));
    const perSession = await Promise.all(
      runs.map(async (run, s) => {
        const results = new Map<string, Applied[]>();
        // Two writers per session, so sessions see both cross-session and in-session contention.
        await Promise.all(
          [0, 1].map(async (w) => {
            const basedOn = { v: 0 };
            for (let i = 0; i < 10; i++) {
              const requestId = `many-s${s}-w${w}-c${i}`;
              // Several changes per call: a call is all-or-nothing on the shared file too.
              const changes = [0, 1, 2].map((j) => ({
                op: 'add',
                name: `note:s${s}-w${w}-c${i}-${j}`,
                text: `part ${j}`,
              }));
              results.set(
                requestId,
                await rememberEverywhere([a, b], ledger, run, requestId, changes, basedOn),
              );
            }
          }),
        );
        return results;
      }),
    );
    for (const [s, run] of runs.entries()) {
      const results = perSession[s]!;
      const load = must<{ session: { version: number } }>(
        await query(a.port, 'agent.load', undefined, run.runToken),
        'agent.load',
      );
      expect(load.session.version).toBe(results.size);
      const panel = must<{ workingNotes: Array<{ name: string }> }>(
        await query(
          a.port,
          'memory.panel',
          { documentId: owner.documentId, sessionId: run.sessionId },
          owner.token,
        ),
        'memory.panel',
      );
      expect(panel.workingNotes.length).toBe(results.size * 3);
      for (const [, successes] of results) expect(successes.filter((x) => !x.replayed).length).toBe(1);
      const versions = [...results.values()]
        .map((x) => x.find((y) => !y.replayed)!.version)
        .sort((p, q) => p - q);
      expect(versions).toEqual(Array.from({ length: results.size }, (_, i) => i + 1));
    }
    await verifyOnDisk(
      data.dir,
      runs.map((r) => r.sessionId),
    );
    expect(ledger.serverErrors()).toEqual([]);
  }, 180_000);

  it('neither process logged an internal error or a locked database', () => {
    for (const p of [a, b]) expect(p.output()).not.toMatch(/database is locked|SQLITE_BUSY|"level":50/);
  });
});
