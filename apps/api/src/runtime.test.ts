/**
 * The hosted runtime's credential and router (SPEC §7, §7b): owners accept runs and ask, but
 * never hold a run token; only RUNTIME_KEY obtains one, by claiming a run.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { createLogger } from './log.ts';
import { TEST_RUNTIME_KEY, errorOf, startTestServer } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';
import { startSignedIn } from './testing/signed-in.ts';

let s: TestServer;
let ada: string;
const runtime = () => s.client(TEST_RUNTIME_KEY).runtime;
const pendingIds = async () => (await runtime().pending.query()).map((p) => p.runId);
/** `leaseExpiresAt` of a CONFLICT `claimed` (SPEC §9), from the error's data. */
const leaseOf = (e: object) => (e as { leaseExpiresAt?: string }).leaseExpiresAt;

beforeAll(async () => ([s, ada] = await startSignedIn('user-ada')));
afterAll(() => s?.close());

describe('no run token in an owner’s hands', () => {
  it('runs.accept and chat.ask answer { runId, sessionId } and nothing else', async () => {
    const accepted = await s.client(ada).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    expect(Object.keys(accepted).sort()).toEqual(['runId', 'sessionId']);
    const asked = await s
      .client(ada)
      .chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'What changed?' });
    expect(Object.keys(asked).sort()).toEqual(['runId', 'sessionId']);
    expect(JSON.stringify([accepted, asked])).not.toMatch(/rt_/);
  });
});

describe('runtime: pending, claim, finish', () => {
  it('a question makes a chat run pending; the claim gives a token that opens the tools and the document', async () => {
    const { runId, sessionId } = await s.client(ada).chat.ask.mutate({
      documentId: REEF_DOCUMENT_ID,
      text: 'Which sites recovered?',
    });
    const pending = (await runtime().pending.query()).find((p) => p.runId === runId);
    expect(pending).toMatchObject({ runId, documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    expect(Date.parse(pending!.waitingSince)).not.toBeNaN();

    const claim = await runtime().claim.mutate({ runId });
    expect(claim).toMatchObject({ runId, documentId: REEF_DOCUMENT_ID, mode: 'chat', sessionId });
    expect(claim.runToken).toMatch(/^rt_/);
    const agent = s.client(claim.runToken).agent;
    expect((await agent.load.query()).session.id).toBe(sessionId);
    const doc = await agent.document.query();
    // What the document is, never its text: the agent reads passages through library.read.
    expect(doc).toEqual({
      id: REEF_DOCUMENT_ID,
      title: 'Reef recovery after the 2016 bleaching',
      pages: 1,
      characters: expect.any(Number),
      outline: [],
    });
    expect(doc.characters).toBeGreaterThan(100);

    expect((await agent.turns.query()).map((t) => [t.role, t.text])).toEqual([
      ['you', 'Which sites recovered?'],
    ]);
    // The reply answers the turn and the runtime lets go; a new turn makes the run pending again.
    await agent.say.mutate({ text: 'The northern sites.' });
    await runtime().release.mutate({ runId, runToken: claim.runToken });
    expect(await pendingIds()).not.toContain(runId);
    await s
      .client(ada)
      .chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, runId, text: 'And the southern ones?' });
    expect(await pendingIds()).toContain(runId);
    const transcript = await s.client(ada).chat.transcript.query({ runId });
    expect(
      transcript.filter((i) => i.type === 'message').map((m) => (m.type === 'message' ? m.role : '')),
    ).toEqual(['you', 'agent', 'you']);
  });

  it('a claim holds the run: it leaves pending, and another claim answers CONFLICT claimed with leaseExpiresAt', async () => {
    const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Again?' });
    const first = await runtime().claim.mutate({ runId });
    expect(first.leaseSeconds).toBe(60);
    expect(Date.parse(first.leaseExpiresAt)).toBeGreaterThan(Date.now() + 55_000);
    expect(await pendingIds()).not.toContain(runId);
    const second = await errorOf(runtime().claim.mutate({ runId }));
    expect([second.code, second.reason, leaseOf(second)]).toEqual([
      'CONFLICT',
      'claimed',
      first.leaseExpiresAt,
    ]);
    // The holder's token still works: nobody revoked it mid-turn.
    expect((await s.client(first.runToken).agent.load.query()).session.version).toBe(0);
  });

  it('renew extends the lease for the holder only; release lets go, so the run is pending again at once', async () => {
    const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Renew?' });
    const { runToken, leaseExpiresAt } = await runtime().claim.mutate({ runId });
    const renewed = await runtime().renew.mutate({ runId, runToken });
    expect(Date.parse(renewed.leaseExpiresAt)).toBeGreaterThanOrEqual(Date.parse(leaseExpiresAt));
    const stranger = await errorOf(runtime().renew.mutate({ runId, runToken: `rt_${'x'.repeat(43)}` }));
    expect([stranger.code, stranger.reason]).toEqual(['CONFLICT', 'claimed']);
    const missing = await errorOf(runtime().renew.mutate({ runId: 'run-missing', runToken }));
    expect([missing.code, missing.reason]).toEqual(['NOT_FOUND', 'not_found']);

    expect(await runtime().release.mutate({ runId, runToken })).toEqual({ runId });
    expect(await pendingIds()).toContain(runId);
    const next = await runtime().claim.mutate({ runId });
    // The released claim can neither renew nor release what the next claim holds.
    const late = await errorOf(runtime().renew.mutate({ runId, runToken }));
    expect([late.code, late.reason, leaseOf(late)]).toEqual(['CONFLICT', 'claimed', next.leaseExpiresAt]);
    const lateRelease = await errorOf(runtime().release.mutate({ runId, runToken }));
    expect([lateRelease.code, lateRelease.reason]).toEqual(['CONFLICT', 'claimed']);
  });

  it('staged runs are pending until the agent speaks in them; a chat run without a turn is not', async () => {
    const staged = await s.client(ada).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode: 'staged' });
    const quiet = await s.client(ada).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    expect(await pendingIds()).toContain(staged.runId);
    expect(await pendingIds()).not.toContain(quiet.runId);
    const { runToken } = await runtime().claim.mutate({ runId: staged.runId });
    expect(await pendingIds()).not.toContain(staged.runId);
    // Let go without speaking (a runtime stopping): pending again for the next one.
    await runtime().release.mutate({ runId: staged.runId, runToken });
    expect(await pendingIds()).toContain(staged.runId);
    const again = await runtime().claim.mutate({ runId: staged.runId });
    await s.client(again.runToken).agent.say.mutate({ text: 'A research step.' });
    await runtime().release.mutate({ runId: staged.runId, runToken: again.runToken });
    expect(await pendingIds()).not.toContain(staged.runId);
  });

  it('finish ends the run: its token, a claim and a new turn in it are all refused', async () => {
    const { runId } = await s
      .client(ada)
      .chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Last one.' });
    const { runToken } = await runtime().claim.mutate({ runId });
    expect(await runtime().finish.mutate({ runId })).toMatchObject({ runId, status: 'finished' });
    expect(await pendingIds()).not.toContain(runId);
    const tool = await errorOf(s.client(runToken).agent.document.query());
    expect([tool.code, tool.reason]).toEqual(['FORBIDDEN', 'forbidden']);
    const claim = await errorOf(runtime().claim.mutate({ runId }));
    expect([claim.code, claim.reason]).toEqual(['NOT_FOUND', 'not_found']);
    const ask = await errorOf(
      s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, runId, text: 'Hello?' }),
    );
    expect([ask.code, ask.reason]).toEqual(['BAD_REQUEST', 'invalid_input']);
    expect(ask.message).toMatch(/finished/);
  });

  it('chat.ask into another owner’s run or another document’s run is not found', async () => {
    const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Mine.' });
    const grace = await s.login('user-grace');
    const theirs = await errorOf(
      s.client(grace).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, runId, text: 'x' }),
    );
    expect(theirs.reason).toBe('not_found');
    const elsewhere = await errorOf(
      s.client(ada).chat.ask.mutate({ documentId: 'doc-survey-methods', runId, text: 'x' }),
    );
    expect(elsewhere.reason).toBe('not_found');
  });
});

describe('a disabled owner’s runs (SPEC §6c)', () => {
  const GRACES = 'doc-seagrass-carbon';
  /** Only the flag, as the matrix does: the users command also finishes the runs (users-command.test.ts). */
  const setDisabled = (disabled: boolean) =>
    s.app.app.execute({
      sql: 'UPDATE users SET disabled_at = ? WHERE id = ?',
      args: [disabled ? '2026-01-01T00:00:00.000Z' : null, 'user-grace'],
    });

  it('its run tokens are refused like a dead credential, pending leaves its runs out, a claim is refused', async () => {
    const grace = await s.login('user-grace');
    const claimed = await s.acceptRun(grace, { documentId: GRACES, mode: 'chat' });
    const asked = await s.client(grace).chat.ask.mutate({ documentId: GRACES, text: 'Still there?' });
    const staged = await s.client(grace).runs.accept.mutate({ documentId: GRACES, mode: 'staged' });
    expect(await pendingIds()).toEqual(expect.arrayContaining([asked.runId, staged.runId]));
    try {
      await setDisabled(true);
      const token = s.client(claimed.runToken);
      const calls = {
        'agent.document': () => token.agent.document.query(),
        'agent.load': () => token.agent.load.query(),
        'agent.say': () => token.agent.say.mutate({ text: 'After the account was disabled.' }),
        'library.search': () => token.library.search.query({ query: 'seagrass' }),
        'library.read': () => token.library.read.query({ documentId: GRACES, length: 100 }),
      };
      for (const [name, call] of Object.entries(calls)) {
        const e = await errorOf(call());
        expect([name, e.code, e.reason]).toEqual([name, 'UNAUTHORIZED', 'unauthenticated']);
      }
      const pending = await pendingIds();
      expect(pending).not.toContain(asked.runId);
      expect(pending).not.toContain(staged.runId);
      for (const runId of [asked.runId, staged.runId]) {
        const e = await errorOf(runtime().claim.mutate({ runId }));
        expect([e.code, e.reason]).toEqual(['NOT_FOUND', 'not_found']);
        expect(e.message).toMatch(/disabled/);
      }
      // Nothing was said in the run while it was refused.
      await setDisabled(false);
      expect((await s.client(grace).chat.transcript.query({ runId: claimed.runId })).length).toBe(0);
    } finally {
      await setDisabled(false);
    }
    // The flag alone decided: enabled again, the same (unfinished) runs work.
    expect((await s.client(claimed.runToken).agent.document.query()).id).toBe(GRACES);
    expect(await pendingIds()).toEqual(expect.arrayContaining([asked.runId, staged.runId]));
  });
});

describe('RUNTIME_KEY', () => {
  it('is generated once into DATA_DIR with owner-only permissions when not set', async () => {
    const t = await startTestServer({ RUNTIME_KEY: '' });
    try {
      const file = join(t.dir, 'runtime.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const key = readFileSync(file, 'utf8').trim();
      const owner = await t.login('user-ada');
      const { runId } = await t.client(owner).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Key?' });
      expect((await t.client(key).runtime.pending.query()).map((p) => p.runId)).toContain(runId);
      const wrong = await errorOf(t.client(TEST_RUNTIME_KEY).runtime.pending.query());
      expect([wrong.code, wrong.reason]).toEqual(['UNAUTHORIZED', 'unauthenticated']);
    } finally {
      await t.close();
    }
  });
});

describe('runtime leases, on the API’s clock', () => {
  // The API's clock, moved forward by the test: a lease lapses without the test waiting a minute.
  let offsetMs = 0;
  let c: TestServer;
  let owner: string;
  const rt = () => c.client(TEST_RUNTIME_KEY).runtime;
  beforeAll(async () => {
    c = await startTestServer({}, { now: () => new Date(Date.now() + offsetMs) });
    owner = await c.login('user-ada');
  });
  afterAll(async () => {
    await c?.close();
  });

  it('once a lease lapses the run is pending again, and a claim takes it back, revoking the old token', async () => {
    const { runId } = await c.client(owner).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Lapse?' });
    const first = await rt().claim.mutate({ runId });
    offsetMs += 59_000;
    expect((await rt().pending.query()).map((p) => p.runId)).not.toContain(runId);
    expect((await errorOf(rt().claim.mutate({ runId }))).reason).toBe('claimed');
    offsetMs += 2_000;
    expect((await rt().pending.query()).map((p) => p.runId)).toContain(runId);
    const second = await rt().claim.mutate({ runId });
    const old = await errorOf(c.client(first.runToken).agent.load.query());
    expect([old.code, old.reason]).toEqual(['UNAUTHORIZED', 'unauthenticated']);
    expect((await c.client(second.runToken).agent.load.query()).session.id).toBeTruthy();
    // The first runtime comes back: its renewal is refused, naming the new holder's lease.
    const renewal = await errorOf(rt().renew.mutate({ runId, runToken: first.runToken }));
    expect([renewal.code, renewal.reason, leaseOf(renewal)]).toEqual([
      'CONFLICT',
      'claimed',
      second.leaseExpiresAt,
    ]);
  });

  it('a renewed lease holds past the first one’s end', async () => {
    const { runId } = await c
      .client(owner)
      .chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Renewed?' });
    const { runToken } = await rt().claim.mutate({ runId });
    offsetMs += 40_000;
    await rt().renew.mutate({ runId, runToken });
    offsetMs += 40_000;
    expect((await rt().pending.query()).map((p) => p.runId)).not.toContain(runId);
    expect((await errorOf(rt().claim.mutate({ runId }))).reason).toBe('claimed');
    offsetMs += 21_000;
    expect((await rt().pending.query()).map((p) => p.runId)).toContain(runId);
  });
});

describe('the API log', () => {
  it('keeps the runtime’s poll (runtime.pending) at debug: nothing at info, a line at debug', async () => {
    const linesAt = async (level: 'info' | 'debug') => {
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          lines.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      });
      const t = await startTestServer({}, { log: createLogger(level, 'sponge-api', { destination }) });
      try {
        await t.client(TEST_RUNTIME_KEY).runtime.pending.query();
        await t.client(TEST_RUNTIME_KEY).runtime.pending.query();
      } finally {
        await t.close();
      }
      return lines
        .map((l) => JSON.parse(l) as { procedure?: string; level: number })
        .filter((l) => l.procedure === 'runtime.pending');
    };
    expect(await linesAt('info')).toEqual([]);
    expect((await linesAt('debug')).map((l) => l.level)).toEqual([20, 20]);
  });
});
