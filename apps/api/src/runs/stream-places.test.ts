/**
 * The cap on open `chat.events` streams (issue 37 point 9, docs/operations.md): 8 per run and 32
 * per owner, counted in the application database, so every API process on the same databases
 * sees the same places. Beyond the cap a stream is refused before it opens (TOO_MANY_REQUESTS
 * `busy`, with when to retry); closing one frees its place; a place's lease is renewed by its
 * stream's own periodic read, and one that lapsed (its process gone) holds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { openSse, subscriptionUrl } from '../testing/sse.ts';
import type { SseStream } from '../testing/sse.ts';
import { liveNotifier, runKey } from './notifier.ts';

const PER_RUN = 8;
const PER_OWNER = 32;

describe('open chat.events streams', () => {
  /** Both processes' clock: the test moves it past a lease. */
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  let a: TestServer;
  let b: TestServer;
  let ada: string;
  let grace: string;
  const open: SseStream[] = [];
  beforeAll(async () => {
    a = await startTestServer({}, { now });
    // A second API process on the same databases.
    b = await startTestServer({}, { sameDataAs: a, now });
    ada = await a.login('user-ada');
    grace = await a.login('user-grace');
  });
  afterAll(async () => {
    for (const x of open) x.close();
    await b?.close();
    await a?.close();
  });

  /** Grace's own document (the demo library's reef paper is Ada's). */
  let graceDocument: string | undefined;
  async function chatRun(server: TestServer, token: string): Promise<string> {
    let documentId = REEF_DOCUMENT_ID;
    if (token === grace) {
      graceDocument ??= (
        await server.client(grace).documents.add.mutate({ title: 'Grace notes', text: 'Short text.' })
      ).id;
      documentId = graceDocument;
    }
    const run = await server.acceptRun(token, { documentId, mode: 'chat' });
    await server.client(token).chat.say.mutate({ runId: run.runId, text: 'hello' });
    return run.runId;
  }

  /** A stream that opened and sent the run's first item; kept open until the test ends. */
  async function opened(server: TestServer, token: string, runId: string): Promise<SseStream> {
    const stream = await openSse(subscriptionUrl(server.url, 'chat.events', { runId }), {
      authorization: `Bearer ${token}`,
    });
    open.push(stream);
    const first = await stream.next();
    expect(first?.event, JSON.stringify(first?.data)).toBeUndefined();
    return stream;
  }

  /** The refusal a stream beyond the cap gets, as its first event. */
  async function refused(server: TestServer, token: string, runId: string) {
    const stream = await openSse(subscriptionUrl(server.url, 'chat.events', { runId }), {
      authorization: `Bearer ${token}`,
    });
    const e = await stream.next();
    stream.close();
    expect(e?.event, JSON.stringify(e?.data)).toBe('serialized-error');
    return e!.data as { message: string; data: Record<string, unknown> };
  }

  it('refuses a stream past 8 on one run, in every process, until one closes', async () => {
    const runId = await chatRun(a, ada);
    const streams: SseStream[] = [];
    for (let i = 0; i < PER_RUN; i++) streams.push(await opened(i % 2 ? b : a, ada, runId));

    for (const server of [a, b]) {
      const error = await refused(server, ada, runId);
      expect(error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'busy' });
      expect(error.data.retryAfterSeconds).toBeGreaterThan(0);
      expect(error.message).toContain(`${PER_RUN}`);
    }
    // Another run of the same owner is not affected.
    await opened(b, ada, await chatRun(a, ada));

    // Closing one frees its place, for either process.
    streams[0]!.close();
    let again: Awaited<ReturnType<typeof refused>> | null = null;
    for (let i = 0; i < 100; i++) {
      const stream = await openSse(subscriptionUrl(b.url, 'chat.events', { runId }), {
        authorization: `Bearer ${ada}`,
      });
      const e = await stream.next();
      if (e?.event === undefined) {
        open.push(stream);
        again = null;
        break;
      }
      stream.close();
      again = e.data as typeof again;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(again).toBeNull();
    await refused(a, ada, runId);
  });

  it('refuses a stream past 32 of one owner, whatever the runs, and no one else', async () => {
    // The first test left 9 of ada's streams open (8 on one run, 1 on another).
    const left = PER_OWNER - 9;
    const runs = await Promise.all([0, 1, 2].map(() => chatRun(b, ada)));
    for (let i = 0; i < left; i++) await opened(i % 2 ? a : b, ada, runs[i % runs.length]!);
    const extra = await chatRun(a, ada);
    const error = await refused(b, ada, extra);
    expect(error.data).toMatchObject({ code: 'TOO_MANY_REQUESTS', reason: 'busy' });
    expect(error.message).toContain(`${PER_OWNER}`);
    // Another owner has places of their own.
    await opened(a, grace, await chatRun(a, grace));
  });

  it('keeps a place while its stream reads, and lets a lapsed one go', async () => {
    const runId = await chatRun(a, grace);
    for (let i = 0; i < PER_RUN; i++) await opened(a, grace, runId);
    await refused(b, grace, runId);

    // A minute on: every lease has lapsed unless the streams' reads renewed them.
    offsetMs += 60_000;
    const before = liveNotifier(a.app.app).waiting();
    liveNotifier(a.app.app).notify(runKey(runId));
    // Woken, the streams read again (and renew) before they wait again.
    for (let i = 0; i < 400 && liveNotifier(a.app.app).waiting() < before; i++)
      await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    await refused(b, grace, runId);

    // A process that stops renewing (gone, its streams never closed): its places lapse with
    // their leases. Here the other process's clock runs far ahead instead.
    offsetMs += 10 * 60_000;
    const taken = await opened(b, grace, runId);
    taken.close();
  });
});
