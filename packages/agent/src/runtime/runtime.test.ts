import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorReply, startFakeLlm, textReply, toolCallsReply } from '../testing/fake-llm.ts';
import type { FakeLlm, FakeLlmRequest } from '../testing/fake-llm.ts';
import { startRealApi } from '../testing/real-api.ts';
import type { RealApi } from '../testing/real-api.ts';
import { createModelAgent } from './model-agent.ts';
import { createRuntime } from './runtime.ts';
import type { RuntimeEvent, RuntimeOptions } from './runtime.ts';
import { SCRIPTED_AGENT_BANNER, createScriptedAgent } from './scripted-agent.ts';
import type { TurnAgent, TurnAnswer, TurnInput } from './turn.ts';

const RUNTIME_KEY = 'runtime-test-key-0123456789abcdef';
const REEF = 'doc-reef-recovery-2016';
const BLEACHING_QUESTION = 'What share of sites bleached above 8 degree heating weeks?';

let api: RealApi;

beforeAll(async () => {
  api = await startRealApi({ RUNTIME_KEY });
});
afterAll(async () => {
  await api?.close();
});

function runtime(options: Partial<RuntimeOptions> = {}) {
  return createRuntime({
    apiUrl: api.url,
    runtimeKey: RUNTIME_KEY,
    agent: createScriptedAgent(),
    ...options,
  });
}

async function transcript(runId: string) {
  const items = await api.owner.chat.transcript.query({ runId });
  return {
    messages: items.flatMap((i) => (i.type === 'message' ? [{ role: i.role, text: i.text }] : [])),
    cards: items.flatMap((i) => (i.type === 'memory' ? [i] : [])),
  };
}

/** An agent that waits until the test lets it answer, or until its signal aborts. */
function heldAgent() {
  let release!: (reply: string) => void;
  let entered!: (input: TurnInput) => void;
  const called = new Promise<TurnInput>((r) => (entered = r));
  const agent: TurnAgent = {
    name: 'held agent',
    answer: (input) =>
      new Promise<TurnAnswer>((resolve, reject) => {
        release = (text) => resolve({ text });
        input.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        entered(input);
      }),
  };
  return { agent, called, release: (reply: string) => release(reply) };
}

describe('the hosted runtime against the real API', () => {
  it('answers an owner’s question once, with a memory card, and new turns in the same run', async () => {
    const { runId, sessionId } = await api.owner.chat.ask.mutate({
      documentId: REEF,
      text: BLEACHING_QUESTION,
    });
    expect(sessionId).not.toBeNull();
    const rt = runtime();

    const first = await rt.runOnce();
    expect(first.pending).toBe(1);
    expect(first.runs).toEqual([expect.objectContaining({ runId, mode: 'chat', outcome: 'answered' })]);
    let t = await transcript(runId);
    expect(t.messages.map((m) => m.role)).toEqual(['you', 'agent']);
    const reply = t.messages[1]!.text;
    expect(reply.startsWith(SCRIPTED_AGENT_BANNER)).toBe(true);
    expect(reply).toContain('bleached in over 90 percent of surveyed sites');
    expect(reply).toMatch(
      /remembered lead:[a-z0-9-]+ and todo:check-[a-z0-9-]+ with their sources \(memory version 1\)/,
    );
    const remembered = t.cards.filter((c) => c.action === 'remembered');
    expect(remembered).toHaveLength(1);
    expect(remembered[0]!.names[0]).toMatch(/^lead:share-sites-bleached-8-degree-heating-[0-9a-f]{8}$/);
    expect(t.cards.some((c) => c.action === 'recalled')).toBe(true);
    // A cross-document research turn: the reef report (short, so read whole) and another document
    // of the library that the search ranks high and that shares most of the question's words are
    // read and cited, and the API verified both quotes; the lead note is cited as a note.
    const items = await api.owner.chat.transcript.query({ runId });
    const answerItem = items.find((i) => i.type === 'message' && i.role === 'agent');
    const citations = answerItem?.type === 'message' ? (answerItem.citations ?? []) : [];
    expect(citations.map((c) => [c.status, c.documentId === REEF])).toEqual([
      ['verified', true],
      ['verified', false],
      ['note', false],
    ]);
    expect(citations[0]!.quote).toContain('bleached in over 90 percent of surveyed sites');
    expect(items.flatMap((i) => (i.type === 'library' ? [i.action] : [])).sort()).toEqual([
      'read',
      'read',
      'searched',
    ]);

    // Nothing new: nothing answered, nothing posted.
    expect(await rt.runOnce()).toEqual({ pending: 0, runs: [] });
    expect((await transcript(runId)).messages).toHaveLength(2);

    await api.owner.chat.ask.mutate({
      documentId: REEF,
      runId,
      text: 'Why did isolated sites recover less?',
    });
    const second = await rt.runOnce();
    expect(second.runs).toEqual([expect.objectContaining({ runId, outcome: 'answered' })]);
    t = await transcript(runId);
    expect(t.messages.map((m) => m.role)).toEqual(['you', 'agent', 'you', 'agent']);
    expect(t.messages[3]!.text).toContain('Larval supply limited recovery at isolated sites');
    expect(t.messages[3]!.text).toContain('memory version 2');
  });

  it('answers a question the owner asked before Forget now from the document, and says why memory refused', async () => {
    // A forgotten session's run takes no new question (chat.ask refuses it), but one asked just
    // before Forget now is still answered.
    const { runId, sessionId } = await api.owner.chat.ask.mutate({
      documentId: REEF,
      text: 'And how much hard coral cover was lost?',
    });
    await api.owner.memory.forget.mutate({ sessionId: sessionId! });
    const report = await runtime().runOnce();
    expect(report.runs).toEqual([expect.objectContaining({ runId, outcome: 'answered' })]);
    const t = await transcript(runId);
    expect(t.messages.map((m) => m.role)).toEqual(['you', 'agent']);
    const reply = t.messages[1]!.text;
    expect(reply).toContain('median loss of 51 percent of hard coral cover');
    expect(reply).toContain("This run's working memory was forgotten (the owner pressed Forget now)");
    expect(reply).toContain('from the library alone');
  });

  it('a runtime restarted mid-turn takes the run back and the turn is answered exactly once', async () => {
    const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: BLEACHING_QUESTION });
    const held = heldAgent();
    const events: RuntimeEvent[] = [];
    const first = runtime({ agent: held.agent, pollMs: 20, log: (e) => events.push(e) });
    first.start();
    await held.called;
    await first.stop();
    expect(events).toContainEqual({
      type: 'run',
      report: expect.objectContaining({ runId, outcome: 'interrupted' }),
    });
    expect((await transcript(runId)).messages).toHaveLength(1);

    const restarted = runtime();
    expect((await restarted.runOnce()).runs).toEqual([
      expect.objectContaining({ runId, outcome: 'answered' }),
    ]);
    expect(await restarted.runOnce()).toEqual({ pending: 0, runs: [] });
    expect(await runtime().runOnce()).toEqual({ pending: 0, runs: [] });
    const t = await transcript(runId);
    expect(t.messages.map((m) => m.role)).toEqual(['you', 'agent']);
    expect(t.messages[1]!.text.startsWith(SCRIPTED_AGENT_BANNER)).toBe(true);
  });

  it('while one runtime’s lease holds a turn, another runtime leaves it alone', async () => {
    const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: BLEACHING_QUESTION });
    const held = heldAgent();
    const slow = runtime({ agent: held.agent }).runOnce();
    await held.called;

    // Not pending while the lease holds, so the other runtime neither claims it nor revokes the token.
    expect(await runtime().runOnce()).toEqual({ pending: 0, runs: [] });
    held.release('the holder’s reply');
    expect((await slow).runs).toEqual([expect.objectContaining({ runId, outcome: 'answered' })]);

    const t = await transcript(runId);
    expect(t.messages.map((m) => [m.role, m.text])).toEqual([
      ['you', BLEACHING_QUESTION],
      ['agent', 'the holder’s reply'],
    ]);
    // Released after the reply: a follow-up is pending at once, not when the lease would lapse.
    await api.owner.chat.ask.mutate({ documentId: REEF, runId, text: 'And then?' });
    expect((await runtime().runOnce()).runs).toEqual([
      expect.objectContaining({ runId, outcome: 'answered' }),
    ]);
  });

  it('claims a staged run, answers a research step and finishes the run', async () => {
    const { runId } = await api.owner.runs.accept.mutate({ documentId: REEF, mode: 'staged' });
    const report = await runtime().runOnce();
    expect(report.runs).toEqual([expect.objectContaining({ runId, mode: 'staged', outcome: 'answered' })]);
    const t = await transcript(runId);
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]!.role).toBe('agent');
    expect(t.messages[0]!.text).toContain('Research step on “Reef recovery after the 2016 bleaching”');
    // Working memory is off for staged runs unless the document's setting turns it on.
    expect(t.messages[0]!.text).toContain('Working memory is off for this run');
    const runs = await api.owner.runs.list.query({ documentId: REEF });
    expect(runs.find((r) => r.id === runId)?.status).toBe('finished');
    expect(await runtime().runOnce()).toEqual({ pending: 0, runs: [] });
  });

  it('answers a crashed or overlong turn with a reply naming the failure, and the other runs still', async () => {
    const crashing: TurnAgent = {
      name: 'flaky agent',
      answer: async ({ history, signal }) => {
        const question = history.at(-1)!.text;
        if (question.includes('crash')) throw new Error('the agent fell over');
        // Ignores its signal's meaning: the runtime must not wait for it past the limit.
        if (question.includes('stall')) await new Promise((r) => signal.addEventListener('abort', r));
        return { text: `fine: ${question}` };
      },
    };
    const asked = await Promise.all(
      ['please crash', 'please stall', 'please answer'].map((text) =>
        api.owner.chat.ask.mutate({ documentId: REEF, text }),
      ),
    );
    const report = await runtime({ agent: crashing, turnTimeoutMs: 300 }).runOnce();
    // A crash is a failed turn; the runtime's own time limit is an answer that names it.
    const byQuestion = asked.map(({ runId }) => report.runs.find((r) => r.runId === runId)!);
    expect(byQuestion.map((r) => [r.outcome, r.failure?.kind, r.limit])).toEqual([
      ['failed', 'crashed', undefined],
      ['answered', undefined, 'it ran out of time (the limit is 300 ms per turn)'],
      ['answered', undefined, undefined],
    ]);
    const replies = await Promise.all(
      asked.map(async ({ runId }) => (await transcript(runId)).messages[1]!.text),
    );
    expect(replies[0]).toBe(
      'The flaky agent could not answer this turn: it failed (Error: the agent fell over). Ask again to retry.',
    );
    expect(replies[1]).toBe(
      'The flaky agent could not answer this turn: it ran out of time (the limit is 300 ms per turn). Ask again to retry.',
    );
    expect(replies[2]).toBe('fine: please answer');
  });

  it('costs twelve API calls for a scripted turn: a search and two reads among them', async () => {
    await api.owner.chat.ask.mutate({ documentId: REEF, text: BLEACHING_QUESTION });
    const calls: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      calls.push(url.pathname.replace('/trpc/', ''));
      return fetch(input, init);
    };
    const report = await runtime({ fetch: counting }).runOnce();
    expect(report.runs.map((r) => r.outcome)).toEqual(['answered']);
    expect(calls.sort()).toEqual(
      [
        'agent.document',
        'agent.load',
        'agent.recall',
        'agent.remember',
        'agent.say',
        'agent.turns',
        'library.read',
        'library.read',
        'library.search',
        'runtime.claim',
        'runtime.pending',
        'runtime.release',
      ].sort(),
    );
  });

  it('refuses to poll with a wrong key, and stops cleanly while the API does not answer', async () => {
    await expect(runtime({ runtimeKey: 'not-the-runtime-key-0000' }).runOnce()).rejects.toThrow();
    const events: RuntimeEvent[] = [];
    const rt = createRuntime({
      apiUrl: 'http://127.0.0.1:9',
      runtimeKey: RUNTIME_KEY,
      agent: createScriptedAgent(),
      pollMs: 10,
      log: (e) => events.push(e),
    });
    rt.start();
    await expect.poll(() => events.filter((e) => e.type === 'poll-failed').length).toBeGreaterThan(1);
    await rt.stop();
    expect(events.at(-1)).toEqual({ type: 'stopped' });
    const delays = events.flatMap((e) => (e.type === 'poll-failed' ? [e.retryInMs] : []));
    expect(delays[1]).toBeGreaterThan(delays[0]!);
  });
});

describe('two runtimes, leases and a pool, with a model behind the fake LLM server', () => {
  // A lease of 5 s, renewed every 1.7 s: the 10 s turn below outlives two leases, so only the
  // renewals keep the other runtime from taking it back.
  let leased: RealApi;
  let llm: FakeLlm;
  beforeAll(async () => {
    [leased, llm] = await Promise.all([
      startRealApi({ RUNTIME_KEY, RUNTIME_LEASE_SECONDS: '5' }),
      startFakeLlm(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([leased?.close(), llm?.close()]);
  });

  const modelRuntime = (events: RuntimeEvent[]) =>
    createRuntime({
      apiUrl: leased.url,
      runtimeKey: RUNTIME_KEY,
      agent: createModelAgent({ url: llm.url, model: 'fake-model' }),
      pollMs: 50,
      log: (e) => events.push(e),
    });
  const lastQuestion = (r: FakeLlmRequest) => r.body.messages.at(-1)!.content;
  const replies = async (runId: string) =>
    (await leased.owner.chat.transcript.query({ runId })).flatMap((i) =>
      i.type === 'message' && i.role === 'agent' ? [i.text] : [],
    );

  it('a 2,000,000-character document is answered like a short one: two turns, no model request over 200 KB', async () => {
    const paragraph = (i: number) =>
      `Section ${i}. Transect ${i} recorded coral cover, bleaching and herbivore counts at the survey site; ` +
      'the notes repeat the protocol and the conditions of the day in full detail for the record. ';
    let text = '';
    for (let i = 0; text.length < 2_000_000; i++) text += `${paragraph(i).repeat(4)}\n\n`;
    text = text.slice(0, 2_000_000);
    const { id } = await leased.owner.documents.add.mutate({ title: 'A very long survey', text });
    llm.reset();
    llm.script(
      toolCallsReply([{ name: 'read_passage', args: { documentId: id, start: 1_000_000 } }]),
      textReply('the middle'),
      toolCallsReply([{ name: 'read_passage', args: { documentId: id, start: 1_996_000 } }]),
      textReply('the end'),
    );
    const events: RuntimeEvent[] = [];
    const rt = modelRuntime(events);
    const { runId } = await leased.owner.chat.ask.mutate({ documentId: id, text: 'What is in the middle?' });
    expect((await rt.runOnce()).runs).toEqual([expect.objectContaining({ runId, outcome: 'answered' })]);
    await leased.owner.chat.ask.mutate({ documentId: id, runId, text: 'And at the end?' });
    expect((await rt.runOnce()).runs).toEqual([expect.objectContaining({ runId, outcome: 'answered' })]);
    await rt.stop();
    expect(await replies(runId)).toEqual(['the middle', 'the end']);
    expect(llm.requests).toHaveLength(4);
    // Before bounded prompts each of these carried the whole document: 1.95 MB.
    const largest = Math.max(...llm.requests.map((r) => r.bytes));
    expect(largest).toBeLessThan(200_000);
    expect(largest).toBeGreaterThan(4_000);
    // The passages asked for came back, and the second turn saw the first turn's reply.
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toMatch(/characters 1,000,000–1,004,000/);
    expect(llm.requests[2]!.body.messages.map((m) => m.content)).toContain('the middle');
  });

  it('a 10 s turn on one document holds neither runtime: a question on another is answered within 5 s, each reaches the model once', async () => {
    const owned = (await leased.owner.documents.list.query()).filter((d) => d.access === 'owner');
    expect(owned.length).toBeGreaterThanOrEqual(2);
    const [slowDoc, fastDoc] = owned;
    llm.reset();
    llm.script({ ...textReply('the slow answer'), delayMs: 10_000 }, textReply('the fast answer'));
    const events: RuntimeEvent[] = [];
    const runtimes = [modelRuntime(events), modelRuntime(events)];
    const slow = await leased.owner.chat.ask.mutate({ documentId: slowDoc!.id, text: 'the slow question' });
    let fast = { runId: '' };
    try {
      for (const rt of runtimes) rt.start();
      await expect.poll(() => llm.requests.length).toBe(1);
      fast = await leased.owner.chat.ask.mutate({ documentId: fastDoc!.id, text: 'the fast question' });
      await expect
        .poll(() => replies(fast.runId), { timeout: 5_000, interval: 100 })
        .toEqual(['the fast answer']);
      await expect
        .poll(() => replies(slow.runId), { timeout: 15_000, interval: 200 })
        .toEqual(['the slow answer']);
    } finally {
      await Promise.all(runtimes.map((rt) => rt.stop()));
    }
    expect(llm.requests.map(lastQuestion)).toEqual(['the slow question', 'the fast question']);
    const outcomes = events.flatMap((e) => (e.type === 'run' ? [[e.report.runId, e.report.outcome]] : []));
    expect(outcomes.filter(([, o]) => o === 'answered').sort()).toEqual(
      [
        [slow.runId, 'answered'],
        [fast.runId, 'answered'],
      ].sort(),
    );
    expect(outcomes.filter(([, o]) => o === 'superseded' || o === 'failed')).toEqual([]);
  });

  it('one runtime: a turn that does not end holds one place of the pool, another run’s question is answered meanwhile', async () => {
    const owned = (await leased.owner.documents.list.query()).filter((d) => d.access === 'owner');
    const [slowDoc, fastDoc] = owned;
    llm.reset();
    // The slow model answers only when the test says so: no clock decides this test.
    let answerSlow!: () => void;
    const gate = new Promise<void>((resolve) => (answerSlow = resolve));
    llm.script({ ...textReply('slow again'), gate }, textReply('fast again'));
    const rt = modelRuntime([]);
    const slow = await leased.owner.chat.ask.mutate({ documentId: slowDoc!.id, text: 'slow, alone' });
    try {
      rt.start();
      await expect.poll(() => llm.requests.length).toBe(1);
      const fast = await leased.owner.chat.ask.mutate({ documentId: fastDoc!.id, text: 'fast, alone' });
      await expect
        .poll(() => replies(fast.runId), { timeout: 20_000, interval: 100 })
        .toEqual(['fast again']);
      expect(await replies(slow.runId)).toEqual([]);
      answerSlow();
      await expect
        .poll(() => replies(slow.runId), { timeout: 20_000, interval: 100 })
        .toEqual(['slow again']);
    } finally {
      answerSlow();
      await rt.stop();
    }
  });

  it('a refused key is a failed turn: the reply names it, the log says failed, the run is not retried', async () => {
    const [doc] = (await leased.owner.documents.list.query()).filter((d) => d.access === 'owner');
    llm.reset();
    llm.script(errorReply(401, 'Incorrect API key provided: sk-wrong'));
    const { runId } = await leased.owner.chat.ask.mutate({ documentId: doc!.id, text: 'with a wrong key' });
    const events: RuntimeEvent[] = [];
    const report = await modelRuntime(events).runOnce();
    expect(report.runs).toEqual([
      expect.objectContaining({
        runId,
        outcome: 'failed',
        failure: expect.objectContaining({ kind: 'auth', status: 401 }),
      }),
    ]);
    expect(report.runs[0]!.retryInMs).toBeUndefined();
    expect(await replies(runId)).toEqual([expect.stringMatching(/refused the API key \(HTTP 401\)/)]);
    expect(llm.requests).toHaveLength(1);
  });
});
