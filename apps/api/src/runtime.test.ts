/**
 * The hosted runtime's credential and router (SPEC §7, §7b): owners accept runs and ask, but
 * never hold a run token; only RUNTIME_KEY obtains one, by claiming a run.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from './demo/library.ts';
import { TEST_RUNTIME_KEY, errorOf, startTestServer } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';

let s: TestServer;
let ada: string;
const runtime = () => s.client(TEST_RUNTIME_KEY).runtime;
const pendingIds = async () => (await runtime().pending.query()).map((p) => p.runId);

beforeAll(async () => {
  s = await startTestServer();
  ada = await s.login('user-ada');
});
afterAll(async () => {
  await s?.close();
});

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
    expect(doc.id).toBe(REEF_DOCUMENT_ID);
    expect(doc.text.length).toBeGreaterThan(100);

    expect((await agent.turns.query()).map((t) => [t.role, t.text])).toEqual([
      ['you', 'Which sites recovered?'],
    ]);
    // The reply answers the turn; a new turn in the same run makes it pending again.
    await agent.say.mutate({ text: 'The northern sites.' });
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

  it('claiming again revokes the previous token (a restarted runtime takes its runs back)', async () => {
    const { runId } = await s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, text: 'Again?' });
    const first = await runtime().claim.mutate({ runId });
    const second = await runtime().claim.mutate({ runId });
    expect(second.runToken).not.toBe(first.runToken);
    const old = await errorOf(s.client(first.runToken).agent.load.query());
    expect([old.code, old.reason]).toEqual(['UNAUTHORIZED', 'unauthenticated']);
    expect((await s.client(second.runToken).agent.load.query()).session.version).toBe(0);
  });

  it('staged runs are pending until the agent speaks in them, claimed or not; a chat run without a turn is not', async () => {
    const staged = await s.client(ada).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode: 'staged' });
    const quiet = await s.client(ada).runs.accept.mutate({ documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    expect(await pendingIds()).toContain(staged.runId);
    expect(await pendingIds()).not.toContain(quiet.runId);
    // A runtime that dies after its claim leaves the run pending, so the next one takes it back.
    const { runToken } = await runtime().claim.mutate({ runId: staged.runId });
    expect(await pendingIds()).toContain(staged.runId);
    await s.client(runToken).agent.say.mutate({ text: 'A research step.' });
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

describe('RUNTIME_KEY', () => {
  it('is generated once into DATA_DIR with owner-only permissions when not set', async () => {
    const t = await startTestServer({ RUNTIME_KEY: '' });
    try {
      const file = join(t.dir, 'runtime.key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const key = readFileSync(file, 'utf8').trim();
      expect((await t.client(key).runtime.pending.query()).length).toBeGreaterThanOrEqual(0);
      const wrong = await errorOf(t.client(TEST_RUNTIME_KEY).runtime.pending.query());
      expect([wrong.code, wrong.reason]).toEqual(['UNAUTHORIZED', 'unauthenticated']);
    } finally {
      await t.close();
    }
  });
});
