/**
 * `chat.events` (SPEC §7c) over a real HTTP server, read as a browser's EventSource reads it: the
 * items so far, each new one as it is committed (woken by the commit, not by the fallback
 * re-read), resuming from an event id (input or Last-Event-ID) with nothing lost or sent twice,
 * Forget now as one forgotten card, the owner's only, refused to another origin's page, and no
 * waiter left behind by a client that went away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transcriptEventId } from '@sponge/contract';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { liveNotifier, runKey } from './notifier.ts';
import type { TestServer } from '../testing/harness.ts';
import { startSignedIn } from '../testing/signed-in.ts';
import { openSse, subscriptionUrl } from '../testing/sse.ts';
import type { SseEvent, SseStream } from '../testing/sse.ts';
import { EVENTS_REREAD_MS } from './live-transcript.ts';

const NOTES = [
  { op: 'add' as const, name: 'lead:reef-heat', text: 'Reefs bleached after the heatwave.' },
  { op: 'add' as const, name: 'lead:larvae', text: 'Larval supply limited recovery.' },
];

describe('chat.events', () => {
  let s: TestServer;
  let ada: string;
  let grace: string;
  beforeAll(async () => ([s, ada, grace] = await startSignedIn('user-ada', 'user-grace')));
  afterAll(() => s?.close());

  const open = (input: unknown, headers: Record<string, string>) =>
    openSse(subscriptionUrl(s.url, 'chat.events', input), headers);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const waiting = () => liveNotifier(s.app.app).waiting();

  /** Data events until `n` arrived. */
  async function take(stream: SseStream, n: number): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    while (out.length < n) {
      const e = await stream.next();
      if (!e) throw new Error(`the stream ended after ${out.length} of ${n} events`);
      if (e.event !== undefined) throw new Error(`unexpected ${e.event}: ${JSON.stringify(e.data)}`);
      out.push(e);
    }
    return out;
  }

  /** Resolves once the stream's server side waits for a wake-up (it has sent what there was). */
  async function settled(before: number): Promise<void> {
    for (let i = 0; i < 200 && waiting() <= before; i++) await new Promise((r) => setTimeout(r, 5));
  }

  it('sends the items so far, then each new one as the API commits it, in the transcript shape', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const owner = s.client(ada);
    const agent = s.client(run.runToken);
    await owner.chat.say.mutate({ runId: run.runId, text: 'What limited recovery?' });

    const before = waiting();
    const stream = await open({ runId: run.runId }, bearer(ada));
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [first] = await take(stream, 1);
    expect(first!.data).toMatchObject({ type: 'message', role: 'you', text: 'What limited recovery?' });
    expect(first!.id).toBe('m1.w0.r0.l0');
    await settled(before);

    // Woken by the commit: well before the fallback re-read could have found it.
    const started = performance.now();
    await agent.agent.say.mutate({ text: 'Larval supply.' });
    const [reply] = await take(stream, 1);
    expect(performance.now() - started).toBeLessThan(EVENTS_REREAD_MS / 2);
    expect(reply!.data).toMatchObject({ type: 'message', role: 'agent', text: 'Larval supply.' });
    expect(reply!.id).toBe('m2.w0.r0.l0');

    await agent.agent.remember.mutate({ basedOn: 0, requestId: 'ev-1', changes: NOTES });
    const [card] = await take(stream, 1);
    expect(card!.data).toMatchObject({
      type: 'memory',
      action: 'remembered',
      count: 2,
      names: ['lead:reef-heat', 'lead:larvae'],
      forgotten: false,
    });
    await agent.agent.recall.query({ text: 'recovery' });
    const [recall] = await take(stream, 1);
    expect(recall!.data).toMatchObject({ type: 'memory', action: 'recalled', forgotten: false });
    expect(recall!.id).toBe('m2.w1.r1.l0');

    // What the stream sent is what the transcript says.
    const transcript = await owner.chat.transcript.query({ runId: run.runId });
    expect([first, reply, card, recall].map((e) => e!.data)).toEqual(transcript);
    // A client that read the transcript knows the position after it.
    expect(transcriptEventId(transcript)).toBe(recall!.id);
    stream.close();
  });

  it('resumes after an event id, from the input or the Last-Event-ID header, with nothing lost or sent twice', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const owner = s.client(ada);
    const agent = s.client(run.runToken);
    await owner.chat.say.mutate({ runId: run.runId, text: 'one' });
    await agent.agent.say.mutate({ text: 'two' });

    const a = await open({ runId: run.runId }, bearer(ada));
    const firstTwo = await take(a, 2);
    a.close();
    // Committed while nobody listened.
    await agent.agent.remember.mutate({ basedOn: 0, requestId: 'ev-2', changes: NOTES });
    await owner.chat.say.mutate({ runId: run.runId, text: 'three' });
    await agent.agent.say.mutate({ text: 'four' });

    const lastId = firstTwo[1]!.id!;
    const byInput = await open({ runId: run.runId, lastEventId: lastId }, bearer(ada));
    const byHeader = await open({ runId: run.runId }, { ...bearer(ada), 'last-event-id': lastId });
    const [rest1, rest2] = [await take(byInput, 3), await take(byHeader, 3)];
    expect(rest1).toEqual(rest2);
    const transcript = await owner.chat.transcript.query({ runId: run.runId });
    expect([...firstTwo, ...rest1].map((e) => e.data)).toEqual(transcript);
    expect(new Set([...firstTwo, ...rest1].map((e) => e.id)).size).toBe(5);

    // Resumed from where the transcript ends, nothing more comes until something new is committed.
    const tail = await open({ runId: run.runId, lastEventId: transcriptEventId(transcript) }, bearer(ada));
    await agent.agent.say.mutate({ text: 'five' });
    const [five] = await take(tail, 1);
    expect(five!.data).toMatchObject({ role: 'agent', text: 'five' });
    for (const x of [byInput, byHeader, tail]) x.close();
  });

  it('refuses an id that is not one of its own', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const stream = await open({ runId: run.runId, lastEventId: 'nonsense' }, bearer(ada));
    const e = await stream.next();
    expect(e?.event).toBe('serialized-error');
    expect(e?.data).toMatchObject({ data: { code: 'BAD_REQUEST', reason: 'invalid_input' } });
    stream.close();
  });

  it('after Forget now, one forgotten card replaces the memory cards, live and on a fresh start', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const owner = s.client(ada);
    const agent = s.client(run.runToken);
    await owner.chat.say.mutate({ runId: run.runId, text: 'Note these.' });
    await agent.agent.remember.mutate({ basedOn: 0, requestId: 'ev-3', changes: NOTES });
    await agent.agent.recall.query({ text: 'reefs' });

    const before = waiting();
    const stream = await open({ runId: run.runId }, bearer(ada));
    const [, remembered] = await take(stream, 3);
    await settled(before);
    const started = performance.now();
    await owner.memory.forget.mutate({ sessionId: run.sessionId! });
    const [forgotten] = await take(stream, 1);
    expect(performance.now() - started).toBeLessThan(EVENTS_REREAD_MS / 2);
    expect(forgotten!.data).toMatchObject({
      type: 'memory',
      forgotten: true,
      names: [],
      sessionId: run.sessionId,
    });
    expect(forgotten!.id).toBe(`${remembered!.id!.replace(/\.r\d+/, '.r1')}.f`);

    // A fresh start shows what chat.transcript shows: the message and the forgotten card.
    const fresh = await open({ runId: run.runId }, bearer(ada));
    const items = await take(fresh, 2);
    const transcript = await owner.chat.transcript.query({ runId: run.runId });
    expect(items.map((e) => e.data)).toEqual(transcript);
    expect(transcriptEventId(transcript)).toBe(items[1]!.id);
    // A resume from before the forget gets the forgotten card, and nothing after it.
    const resumed = await open({ runId: run.runId, lastEventId: remembered!.id }, bearer(ada));
    const [again] = await take(resumed, 1);
    expect(again!.data).toEqual(forgotten!.data);
    for (const x of [stream, fresh, resumed]) x.close();
  });

  it("answers only the run's owner, signed in: another owner, an API key, a run token and no one are refused", async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const key = await s.client(ada).auth.createApiKey.mutate({ label: 'events' });
    const cases: Array<[Record<string, string>, string]> = [
      [bearer(grace), 'NOT_FOUND'],
      [bearer(key.apiKey), 'FORBIDDEN'],
      [bearer(run.runToken), 'FORBIDDEN'],
      [{}, 'UNAUTHORIZED'],
    ];
    for (const [headers, code] of cases) {
      const stream = await open({ runId: run.runId }, headers);
      const e = await stream.next();
      expect(e?.event).toBe('serialized-error');
      expect(e?.data).toMatchObject({ data: { code } });
      expect(await stream.next()).toBeNull();
    }
  });

  it('ends the stream once the run’s document is removed', async () => {
    const owner = s.client(ada);
    const { id: documentId } = await owner.documents.add.mutate({ title: 'To remove', text: 'Short text.' });
    const run = await s.acceptRun(ada, { documentId, mode: 'chat' });
    const agent = s.client(run.runToken);
    await agent.agent.say.mutate({ text: 'hello' });
    const stream = await open({ runId: run.runId }, bearer(ada));
    await take(stream, 1);
    await owner.documents.remove.mutate({ documentId });
    // Read again at the fallback at the latest; then the stream says it is done.
    const end = await stream.next(EVENTS_REREAD_MS * 3);
    expect(end?.event).toBe('return');
    expect(await stream.next()).toBeNull();
  });

  it("opens for the app's own pages by cookie, and refuses another origin's page before it opens", async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    await s.client(ada).chat.say.mutate({ runId: run.runId, text: 'hi' });
    const { cookie } = await s.loginCookie('user-ada');
    const asCookie = { cookie: `sponge_session=${cookie}` };

    const own = await open({ runId: run.runId }, { ...asCookie, 'sec-fetch-site': 'same-origin' });
    expect((await take(own, 1))[0]!.data).toMatchObject({ text: 'hi' });
    own.close();

    for (const foreign of [
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: `http://localhost:1`, 'sec-fetch-site': 'same-site' },
      { origin: 'http://evil.example' },
    ]) {
      const res = await fetch(subscriptionUrl(s.url, 'chat.events', { runId: run.runId }), {
        headers: { ...asCookie, ...foreign, accept: 'text/event-stream' },
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('content-type')).not.toMatch(/event-stream/);
      expect(await res.text()).not.toContain('"hi"');
    }
  });

  it('reads only what is new on each wake, however long the transcript', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    const agent = s.client(run.runToken);
    const LOG = 20;
    for (let v = 0; v < LOG; v++)
      await agent.agent.remember.mutate({
        basedOn: v,
        requestId: `long-${v}`,
        changes: [{ op: 'add', name: `lead:n${v}`, text: `Note ${v}.` }],
      });
    // A long transcript, written behind the API's back: 400 messages, 400 library cards, 200 recalls.
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
    await s.app.app.batch(
      [
        ...Array.from({ length: 400 }, (_, i) => ({
          sql: `INSERT INTO transcript_messages (run_id, at, role, text) VALUES (?, ?, ?, ?)`,
          args: [run.runId, at(i), i % 2 ? 'agent' : 'you', `message ${i}`],
        })),
        ...Array.from({ length: 400 }, (_, i) => ({
          sql: `INSERT INTO run_library_events (run_id, at, action, query, count) VALUES (?, ?, 'searched', ?, 3)`,
          args: [run.runId, at(i), `query ${i}`],
        })),
        ...Array.from({ length: 200 }, (_, i) => ({
          sql: `INSERT INTO recall_events (run_id, session_id, at, mode, count) VALUES (?, ?, ?, 'live', 2)`,
          args: [run.runId, run.sessionId, at(i)],
        })),
      ],
      'write',
    );
    const total = 400 + 400 + 200 + LOG;
    const before = waiting();
    const stream = await open({ runId: run.runId }, bearer(ada));
    const all = await take(stream, total);
    expect(all.at(-1)!.id).toBe(`m400.w${LOG}.r200.l400`);
    await settled(before);

    // What the stream's reads return from here on: rows of the application database, and entries
    // of the session's log.
    const app = s.app.app;
    const { execute, batch } = app;
    const { log } = s.app.store;
    let rows = 0;
    let entries = 0;
    app.execute = async (...args: Parameters<typeof execute>) => {
      const rs = await execute.apply(app, args);
      rows += rs.rows.length;
      return rs;
    };
    app.batch = async (...args: Parameters<typeof batch>) => {
      const results = await batch.apply(app, args);
      rows += results.reduce((n, rs) => n + rs.rows.length, 0);
      return results;
    };
    s.app.store.log = async (...args: Parameters<typeof log>) => {
      const found = await log.apply(s.app.store, args);
      entries += found.length;
      return found;
    };
    try {
      /** Wakes the stream and resolves once it has read and waits again. */
      const wake = async () => {
        const waitingBefore = waiting();
        liveNotifier(s.app.app).notify(runKey(run.runId));
        for (let i = 0; i < 400 && waiting() < waitingBefore; i++) await new Promise((r) => setTimeout(r, 5));
      };
      for (let i = 0; i < 3; i++) await wake();
      // The run, its document, the session: a few rows a wake, never the transcript again.
      expect(rows).toBeLessThan(3 * 10);
      expect(entries).toBe(0);

      // What is new still comes, once, in its place.
      rows = 0;
      await agent.agent.say.mutate({ text: 'One more.' });
      const [next] = await take(stream, 1);
      expect(next!.id).toBe(`m401.w${LOG}.r200.l400`);
      expect(next!.data).toMatchObject({ role: 'agent', text: 'One more.' });
      await agent.agent.remember.mutate({
        basedOn: LOG,
        requestId: 'long-last',
        changes: [{ op: 'add', name: 'lead:last', text: 'The last note.' }],
      });
      const [card] = await take(stream, 1);
      expect(card!.id).toBe(`m401.w${LOG + 1}.r200.l400`);
      expect(card!.data).toMatchObject({ type: 'memory', names: ['lead:last'] });
      expect(entries).toBe(1);
      expect(rows).toBeLessThan(40);
    } finally {
      app.execute = execute;
      app.batch = batch;
      s.app.store.log = log;
      stream.close();
    }
  });

  it('leaves no waiter behind when the client goes away', async () => {
    const run = await s.acceptRun(ada, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
    await s.client(ada).chat.say.mutate({ runId: run.runId, text: 'hi' });
    const before = waiting();
    const streams = await Promise.all([1, 2, 3].map(() => open({ runId: run.runId }, bearer(ada))));
    for (const x of streams) await take(x, 1);
    for (let i = 0; i < 200 && waiting() < before + 3; i++) await new Promise((r) => setTimeout(r, 5));
    expect(waiting()).toBe(before + 3);
    for (const x of streams) x.close();
    for (let i = 0; i < 200 && waiting() > before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(waiting()).toBe(before);
  });
});
