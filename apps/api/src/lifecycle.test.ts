/**
 * Runs and sessions over time: staged runs without memory, removed documents, the run cut-off,
 * expiry by a short TTL, late writes after a purge, the note quota, integrity failures and
 * hostile input (unknown fields, oversized bodies and batches) — all over real HTTP.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer } from './testing/harness.ts';
import type { Json, TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { openPurger } from '@oh/memory';

const PURGE_KEY = 'lifecycle-purge-key-0123456789abcdef';

async function purgeOnce(memoryUrl: string, now?: () => Date) {
  const purger = await openPurger({ url: memoryUrl, purgeKey: PURGE_KEY, ...(now ? { now } : {}) });
  try {
    return await purger.purgeOnce();
  } finally {
    purger.close();
  }
}

/**
 * `purge --once` as its own process. Asynchronous on purpose: the API under test runs in this
 * process, and a blocking spawn would freeze it (and its keep-alive timers) meanwhile.
 */
async function purgeMain(
  dataDir: string,
  purgeKey: string,
): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/bin/purge-main.ts', '--once'],
      {
        cwd: join(import.meta.dirname, '..'),
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', PURGE_KEY: purgeKey },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    return { status: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      status: typeof err.code === 'number' ? err.code : 1,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    };
  }
}

describe('with the default TTL', () => {
  let s: TestServer;
  let ada: string;
  beforeAll(async () => ([s, ada] = await startSignedIn('user-ada')));
  afterAll(() => s?.close());

  it('staged runs have no working memory unless the document setting turns it on', async () => {
    const off = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'staged' });
    expect(off.sessionId).toBeNull();
    for (const call of [
      () => s.client(off.runToken).agent.load.query(),
      () =>
        s.client(off.runToken).agent.remember.mutate({
          basedOn: 0,
          requestId: 'x',
          changes: [{ op: 'add', name: 'lead:a', text: 'a' }],
        }),
      () => s.client(off.runToken).agent.recall.query({ text: 'a' }),
    ]) {
      const e = await errorOf(call());
      expect([e.code, e.reason]).toEqual(['PRECONDITION_FAILED', 'memory_off']);
    }
    // The run itself works: it can still talk in its transcript.
    await s.client(off.runToken).agent.say.mutate({ text: 'staged step done' });
    const runs = await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID });
    expect(runs.find((r) => r.id === off.runId)).toMatchObject({
      memory: false,
      sessionId: null,
      state: null,
      session: null,
    });

    expect(
      await s.client(ada).runs.settings.mutate({ documentId: REEF_DOCUMENT_ID, memoryInStagedRuns: true }),
    ).toEqual({
      documentId: REEF_DOCUMENT_ID,
      memoryInStagedRuns: true,
    });
    const on = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'staged' });
    expect(on.sessionId).toBeTruthy();
    expect((await s.client(on.runToken).agent.load.query()).session.version).toBe(0);
    // Turning it off again does not take memory from a run that already has it.
    await s.client(ada).runs.settings.mutate({ documentId: REEF_DOCUMENT_ID, memoryInStagedRuns: false });
    expect((await s.client(on.runToken).agent.load.query()).session.id).toBe(on.sessionId);
  });

  it('a removed document’s run loses its tools on the next call, and its session is forgotten', async () => {
    const c = s.client(ada);
    const run = await s.acceptRun(ada, { documentId: 'doc-survey-methods', mode: 'chat' });
    await s.client(run.runToken).agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:a', text: 'a' }],
    });
    const removed = await c.documents.remove.mutate({ documentId: 'doc-survey-methods' });
    expect(removed.forgottenSessions).toBe(1);
    for (const call of [
      () => s.client(run.runToken).agent.load.query(),
      () =>
        s.client(run.runToken).agent.remember.mutate({
          basedOn: 1,
          requestId: 'b',
          changes: [{ op: 'add', name: 'lead:b', text: 'b' }],
        }),
      () => s.client(run.runToken).agent.read.query({ name: 'lead:a' }),
      () => s.client(run.runToken).agent.say.mutate({ text: 'x' }),
    ]) {
      const e = await errorOf(call());
      expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
    }
    expect((await errorOf(c.runs.list.query({ documentId: 'doc-survey-methods' }))).reason).toBe('not_found');
    expect((await errorOf(c.chat.transcript.query({ runId: run.runId }))).reason).toBe('not_found');
    expect((await s.app.store.getSession(run.sessionId!))?.state).toBe('forgotten');
  });

  it('a late write after Forget now and a purge pass is refused, and the session never comes back', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(run.runToken);
    await agent.agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:slow-step', text: 'written before the purge' }],
    });
    await s.client(ada).memory.forget.mutate({ sessionId: run.sessionId! });
    const report = await purgeOnce(s.memoryUrl);
    expect(report.purgedSessions).toBeGreaterThanOrEqual(1);
    expect((await s.app.store.getSession(run.sessionId!))?.state).toBe('purged');
    // The library's row says when the owner forgot it, so it reads "forgotten" as the panel does.
    const row = (await s.client(ada).documents.list.query()).find((d) => d.id === REEF_DOCUMENT_ID)!;
    expect(row.memory).toMatchObject({ sessionId: run.sessionId, state: 'purged' });
    expect(Date.parse(row.memory!.forgottenAt!)).toBeGreaterThan(0);
    const late = await errorOf(
      agent.agent.remember.mutate({
        basedOn: 1,
        requestId: 'late',
        changes: [{ op: 'add', name: 'lead:late', text: 'too late' }],
      }),
    );
    expect([late.code, late.reason]).toEqual(['PRECONDITION_FAILED', 'session_closed']);
    // The identical retry of the first call does not resurrect anything either.
    const retry = await errorOf(
      agent.agent.remember.mutate({
        basedOn: 0,
        requestId: 'a',
        changes: [{ op: 'add', name: 'lead:slow-step', text: 'written before the purge' }],
      }),
    );
    expect(retry.reason).toBe('session_closed');
    const panel = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: run.sessionId! });
    expect(panel.session?.state).toBe('purged');
    expect(panel.workingNotes).toEqual([]);
    const cards = (await s.client(ada).chat.transcript.query({ runId: run.runId })).filter(
      (i) => i.type === 'memory',
    );
    expect(cards).toEqual([expect.objectContaining({ forgotten: true, count: 0, names: [] })]);
    expect((await s.client(ada).memory.forget.mutate({ sessionId: run.sessionId! })).state).toBe('purged');
  });

  it('the purge worker command runs one pass and exits 0, generating its key with mode 0600', async () => {
    // A fresh DATA_DIR: the first purge key used on a memory database is the one it accepts.
    const dir = mkdtempSync(join(tmpdir(), 'sponge-purge-'));
    const r = await purgeMain(dir, '');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/purge pass/);
    const keyFile = join(dir, 'purge.key');
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    // The worker never needs (or creates) the API's token secret.
    expect(existsSync(join(dir, 'token-secret'))).toBe(false);
    // A second pass with the same generated key is accepted; a different key is refused.
    const again = await purgeMain(dir, '');
    expect(again.status, again.stderr).toBe(0);
    const wrong = await purgeMain(dir, 'some-other-key-0123456789');
    expect(wrong.status).not.toBe(0);
    expect(`${wrong.stdout}${wrong.stderr}`).toMatch(/purge key/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a stored note that fails its digest check is an integrity error, never silent, never SQL', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(run.runToken);
    await agent.agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:tampered', text: 'original' }],
    });
    const raw = createClient({ url: s.memoryUrl });
    try {
      await raw.execute({
        sql: `UPDATE notes SET text = 'changed behind the store' WHERE session_id = ? AND name = ?`,
        args: [run.sessionId!, 'lead:tampered'],
      });
    } finally {
      raw.close();
    }
    const r = await s.call('query', 'agent.read', { name: 'lead:tampered' }, run.runToken);
    expect(r.status).toBe(500);
    expect(r.error?.data).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', reason: 'integrity' });
    expect(r.text).not.toContain('changed behind the store');
    expect(r.text).not.toMatch(/SQLITE|SELECT|UPDATE/);
  });

  it('hostile input is 4xx, never 500, and never changes state', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const token = run.runToken;
    const agent = s.client(token);
    await agent.agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:a', text: 'a' }],
    });
    const runsBefore = (await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID })).length;

    const accept = await s.call(
      'mutation',
      'runs.accept',
      { documentId: REEF_DOCUMENT_ID, mode: 'chat', author: 'x' },
      ada,
    );
    expect([accept.status, accept.error?.data.reason]).toEqual([400, 'invalid_input']);
    const mode = await s.call('mutation', 'runs.accept', { documentId: REEF_DOCUMENT_ID, mode: 'live' }, ada);
    expect([mode.status, mode.error?.data.reason]).toEqual([400, 'invalid_input']);

    // 5 MiB body: 413 before anything is parsed.
    const huge = await fetch(`${s.url}/trpc/agent.remember`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        basedOn: 1,
        requestId: 'huge',
        changes: [{ op: 'add', name: 'lead:huge', text: 'x'.repeat(5 * 1024 * 1024) }],
      }),
    });
    expect(huge.status).toBe(413);
    const hugeBody = (await huge.json()) as Json;
    expect(hugeBody.error.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', reason: 'too_large' });

    // Not JSON at all.
    const junk = await fetch(`${s.url}/trpc/agent.remember`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"basedOn": 1, "requestId": ',
    });
    expect(junk.status).toBeGreaterThanOrEqual(400);
    expect(junk.status).toBeLessThan(500);
    const badQuery = await fetch(`${s.url}/trpc/agent.query?input=%7Bnot-json`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(badQuery.status).toBeGreaterThanOrEqual(400);
    expect(badQuery.status).toBeLessThan(500);

    // Batches: 10 is fine, 11 is refused as a whole.
    const paths = (n: number) => Array.from({ length: n }, () => 'health').join(',');
    const inputs = (n: number) =>
      encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, null]))));
    const ten = await fetch(`${s.url}/trpc/${paths(10)}?batch=1&input=${inputs(10)}`);
    expect(ten.status).toBe(200);
    expect(((await ten.json()) as unknown[]).length).toBe(10);
    const eleven = await fetch(`${s.url}/trpc/${paths(11)}?batch=1&input=${inputs(11)}`);
    expect(eleven.status).toBe(400);
    // A batch of writes over the limit writes nothing.
    const writes = Array.from({ length: 11 }, (_, i) => ({
      basedOn: 1 + i,
      requestId: `b-${i}`,
      changes: [{ op: 'add', name: `lead:b${i}`, text: 'b' }],
    }));
    const batchPost = await fetch(`${s.url}/trpc/${Array(11).fill('agent.remember').join(',')}?batch=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(Object.fromEntries(writes.map((w, i) => [i, w]))),
    });
    expect(batchPost.status).toBe(400);

    // The typed batch client works within the limit.
    const batched = s.client(token, { batch: true });
    const [load, q] = await Promise.all([
      batched.agent.load.query(),
      batched.agent.query.query({ question: 'current_notes' }),
    ]);
    expect(load.session.version).toBe(1);
    expect(q.version).toBe(1);
    expect((await s.client(ada).runs.list.query({ documentId: REEF_DOCUMENT_ID })).length).toBe(runsBefore);
  });

  it('reads a body with or without a Content-Length the same way, and refuses an oversized one either way', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const token = run.runToken;
    await s.client(token).agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:a', text: 'a' }],
    });
    // The same call streamed without a Content-Length (chunked): tRPC's own reader, same answer.
    const chunked = await fetch(`${s.url}/trpc/agent.remember`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"basedOn": 1, "requestId": "chunked", '));
          c.enqueue(
            new TextEncoder().encode('"changes": [{"op": "add", "name": "lead:chunked", "text": "é"}]}'),
          );
          c.close();
        },
      }),
      duplex: 'half',
    });
    expect(chunked.status).toBe(200);
    expect(((await chunked.json()) as Json).result.data).toMatchObject({ version: 2 });
    // …and too large while streamed: 413 as well.
    const hugeChunked = await fetch(`${s.url}/trpc/agent.remember`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 5; i++) c.enqueue(new Uint8Array(1024 * 1024).fill(32));
          c.close();
        },
      }),
      duplex: 'half',
    }).catch(() => null);
    // The server may cut the upload off before the client finishes; if it answered, it said 413.
    if (hugeChunked) expect(hugeChunked.status).toBe(413);
  });
});

describe('the note quota', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('10,000 notes per session, then TOO_MANY_REQUESTS quota with nothing written', async () => {
    const ada = await s.login('user-ada');
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(run.runToken);
    let version = 0;
    let written = 0;
    while (written < 10_000) {
      const n = Math.min(64, 10_000 - written);
      const changes = Array.from({ length: n }, (_, i) => ({
        op: 'add' as const,
        name: `todo:n${written + i}`,
        text: 'q',
      }));
      version = (await agent.agent.remember.mutate({ basedOn: version, requestId: `q-${version}`, changes }))
        .version;
      written += n;
    }
    const over = await s.call(
      'mutation',
      'agent.remember',
      { basedOn: version, requestId: 'over', changes: [{ op: 'add', name: 'todo:over', text: 'q' }] },
      run.runToken,
    );
    expect(over.status).toBe(429);
    expect(over.error?.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'quota' });
    expect((await agent.agent.load.query()).session.version).toBe(version);
    // Replacing and removing still work at the quota.
    const rm = await agent.agent.remember.mutate({
      basedOn: version,
      requestId: 'rm',
      changes: [{ op: 'remove', name: 'todo:n0' }],
    });
    expect(rm.version).toBe(version + 1);
  }, 180_000);
});

describe('with a 1-second TTL, on an injected clock', () => {
  let s: TestServer;
  // The API's and the purge's clock: the second passes when the test moves it, not on the wall.
  let t = Date.now();
  const now = () => new Date(t);
  beforeAll(async () => {
    s = await startTestServer({ SESSION_TTL_SECONDS: '1' }, { now });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a session expires by the clock: every tool answers session_closed, before and after the purge', async () => {
    const ada = await s.login('user-ada');
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(run.runToken);
    await agent.agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:quick', text: 'q' }],
    });
    // Still open a moment before its second is up.
    t += 999;
    await expect(agent.agent.load.query()).resolves.toMatchObject({ session: { id: run.sessionId } });
    t += 301;
    for (const call of [
      () => agent.agent.load.query(),
      () =>
        agent.agent.remember.mutate({
          basedOn: 1,
          requestId: 'b',
          changes: [{ op: 'add', name: 'lead:b', text: 'b' }],
        }),
      () => agent.agent.query.query({ question: 'current_notes' }),
      () => agent.agent.read.query({ name: 'lead:quick' }),
    ]) {
      const e = await errorOf(call());
      expect([e.code, e.reason]).toEqual(['PRECONDITION_FAILED', 'session_closed']);
    }
    const panel = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: run.sessionId! });
    expect(panel.session?.state).toBe('expired');
    // Expired but not yet purged: the owner still sees what will be deleted.
    expect(panel.workingNotes.map((n) => n.name)).toEqual(['lead:quick']);
    await purgeOnce(s.memoryUrl, now);
    const after = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: run.sessionId! });
    expect(after.session?.state).toBe('purged');
    expect(after.workingNotes).toEqual([]);
    const late = await errorOf(
      agent.agent.remember.mutate({
        basedOn: 1,
        requestId: 'c',
        changes: [{ op: 'add', name: 'lead:c', text: 'c' }],
      }),
    );
    expect(late.reason).toBe('session_closed');
  });
});

describe('on an injected clock', () => {
  let s: TestServer;
  let t = Date.parse('2030-01-01T00:00:00Z');
  beforeAll(async () => {
    s = await startTestServer({ ACCEPT_RUNS_UNTIL: '2030-01-01T01:00:00Z' }, { now: () => new Date(t) });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses new runs after the cut-off; runs accepted before go on', async () => {
    const ada = await s.login('user-ada');
    const before = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    t = Date.parse('2030-01-01T01:00:00Z');
    const r = await s.call('mutation', 'runs.accept', { documentId: REEF_DOCUMENT_ID, mode: 'chat' }, ada);
    expect(r.status).toBe(412);
    expect(r.error?.data).toMatchObject({ code: 'PRECONDITION_FAILED', reason: 'runs_closed' });
    expect(r.error?.message).toMatch(/ACCEPT_RUNS_UNTIL/);
    t += 60_000;
    const w = await s.client(before.runToken).agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:after-cutoff', text: 'still fine' }],
    });
    expect(w.version).toBe(1);
  });

  it('an explain token expires after EXPLAIN_TOKEN_TTL_SECONDS (explain_token_invalid), the answer itself stays valid', async () => {
    const ada = await s.login('user-ada');
    const doc = (await s.client(ada).documents.list.query()).find(
      (d) => d.access === 'owner' && d.id !== REEF_DOCUMENT_ID,
    )!;
    // Back before the run cut-off the previous test passed, so this run can be accepted.
    t = Date.parse('2030-01-01T00:20:00Z');
    const run = await s.acceptRun(ada, { documentId: doc.id, mode: 'chat' });
    const agent = s.client(run.runToken);
    await agent.agent.remember.mutate({
      basedOn: 0,
      requestId: 'a',
      changes: [{ op: 'add', name: 'lead:e', text: 'e' }],
    });
    const ans = await agent.agent.query.query({ question: 'current_notes' });
    expect((await agent.agent.explain.query({ token: ans.explainToken, row: 0 })).name).toBe('lead:e');
    t += 601_000;
    const e = await errorOf(agent.agent.explain.query({ token: ans.explainToken, row: 0 }));
    expect([e.code, e.reason]).toEqual(['BAD_REQUEST', 'explain_token_invalid']);
  });
});
