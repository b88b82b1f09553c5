/**
 * What a chat leaves once its session is closed — forgotten (Forget now), expired or purged
 * (issue 39): the agent's replies no longer name the notes the session held ("a forgotten note"
 * instead), a citation of one of them keeps its status and loses its name, in `chat.transcript`
 * and in `chat.events` alike, and the run takes no more questions (PRECONDITION_FAILED
 * `session_closed`, in words): its memory is gone, so a new chat it is.
 */
import { openPurger } from '@oh/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { errorOf, startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { openSse, subscriptionUrl } from '../testing/sse.ts';

const PURGE_KEY = 'closed-session-purge-key-0123456789abcdef';
const TTL_SECONDS = 60;
const REPLY =
  'I remembered lead:much-kelp-2019 and `todo:check-table-2`. ' +
  'The reviewed finding:kelp-recovered stays; lead:much-kelp-2019s is no note of mine.';
const SCRUBBED =
  'I remembered a forgotten note and a forgotten note. ' +
  'The reviewed finding:kelp-recovered stays; lead:much-kelp-2019s is no note of mine.';

let s: TestServer;
let ada: string;
// The API's and the purge's clock, moved by the tests.
let t = Date.parse('2026-06-12T09:00:00Z');
const now = () => new Date(t);

beforeAll(async () => {
  s = await startTestServer({ SESSION_TTL_SECONDS: String(TTL_SECONDS) }, { now });
  ada = await s.login('user-ada');
});
afterAll(async () => {
  await s?.close();
});

/** A chat whose agent kept two notes and replied naming them, citing one and one it never held. */
async function chatWithNotes() {
  const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
  const agent = s.client(run.runToken);
  await agent.agent.remember.mutate({
    basedOn: 0,
    requestId: 'r-1',
    changes: [
      { op: 'add', name: 'lead:much-kelp-2019', text: 'Much kelp in 2019.' },
      { op: 'add', name: 'todo:check-table-2', text: 'Check table 2.' },
    ],
  });
  await agent.agent.say.mutate({
    text: REPLY,
    citations: [{ note: 'lead:much-kelp-2019' }, { note: 'lead:never-held' }],
  });
  return run;
}

async function agentMessage(runId: string) {
  const items = await s.client(ada).chat.transcript.query({ runId });
  const reply = items.find((i) => i.type === 'message' && i.role === 'agent');
  if (reply?.type !== 'message') throw new Error('no reply');
  return reply;
}

/** The agent's reply as a new `chat.events` stream sends it. */
async function streamedReply(runId: string) {
  const stream = await openSse(subscriptionUrl(s.url, 'chat.events', { runId }), {
    authorization: `Bearer ${ada}`,
  });
  try {
    for (let e = await stream.next(); e; e = await stream.next()) {
      const item = e.data as { type?: string; role?: string };
      if (item.type === 'message' && item.role === 'agent') return e.data;
    }
    throw new Error('the stream ended without the reply');
  } finally {
    stream.close();
  }
}

async function askAgain(runId: string) {
  return errorOf(s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, runId, text: 'And then?' }));
}

describe('a closed session leaves no note names behind', () => {
  it('while the session is open, the reply names its notes and the run takes questions', async () => {
    const run = await chatWithNotes();
    const reply = await agentMessage(run.runId);
    expect(reply.text).toBe(REPLY);
    expect(reply.citations).toEqual([
      { note: 'lead:much-kelp-2019', status: 'note' },
      { status: 'unverified' },
    ]);
    await expect(
      s.client(ada).chat.ask.mutate({ documentId: REEF_DOCUMENT_ID, runId: run.runId, text: 'More?' }),
    ).resolves.toMatchObject({ runId: run.runId });
  });

  it('after Forget now: "a forgotten note" in the reply, citations without names, no more questions', async () => {
    const run = await chatWithNotes();
    await s.client(ada).memory.forget.mutate({ sessionId: run.sessionId! });
    const reply = await agentMessage(run.runId);
    expect(reply.text).toBe(SCRUBBED);
    expect(reply.citations).toEqual([{ status: 'note' }, { status: 'unverified' }]);
    expect(await streamedReply(run.runId)).toMatchObject({ text: SCRUBBED, citations: reply.citations });
    expect(await askAgain(run.runId)).toMatchObject({
      code: 'PRECONDITION_FAILED',
      reason: 'session_closed',
      message: 'This chat’s working memory was forgotten, so it takes no more questions: ask in a new chat.',
    });
  });

  it('once the session expired, and again once it was purged', async () => {
    const run = await chatWithNotes();
    t += (TTL_SECONDS + 1) * 1000;
    expect((await agentMessage(run.runId)).text).toBe(SCRUBBED);
    expect((await agentMessage(run.runId)).citations).toEqual([{ status: 'note' }, { status: 'unverified' }]);
    expect(await askAgain(run.runId)).toMatchObject({
      code: 'PRECONDITION_FAILED',
      reason: 'session_closed',
      message: 'This chat’s working memory has expired, so it takes no more questions: ask in a new chat.',
    });

    const purger = await openPurger({ url: s.memoryUrl, purgeKey: PURGE_KEY, now });
    try {
      await purger.purgeOnce();
    } finally {
      purger.close();
    }
    const session = await s
      .client(ada)
      .memory.panel.query({ documentId: REEF_DOCUMENT_ID, sessionId: run.sessionId! });
    expect(session.session?.state).toBe('purged');
    expect((await agentMessage(run.runId)).text).toBe(SCRUBBED);
    expect(await streamedReply(run.runId)).toMatchObject({ text: SCRUBBED });
    expect((await askAgain(run.runId)).reason).toBe('session_closed');
  });
});
