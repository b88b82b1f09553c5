/**
 * `live` (issue 28, SPEC §7c): how soon the owner's page sees what the agent just said. An agent
 * posts a reply (`agent.say`, answered) while the owner's client holds the run's `chat.events`
 * stream open, and at the same time polls `chat.transcript` every second as the document page
 * did while a question waited (`WAITING_REFRESH_MS`, its fastest interval). For every reply: the
 * time from the call's answer to its event on the stream, and to the first poll that shows it.
 * The replies go out at random moments of the poll's second, so the poll's wait is a fair sample.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { must, startApi, trpc } from '../http.ts';
import { summarize } from '../stats.ts';

/** The hosted runtime's credential startApi gives the API (http.ts). */
const RUNTIME_KEY = 'bench-runtime-key-0123456789abcdef';
/** The document page's transcript poll while a question waited, before the stream. */
const OLD_POLL_MS = 1_000;

/** The `data` of each event of a tRPC SSE stream, as it arrives; `close` ends it. */
async function openStream(
  url: string,
  token: string,
  onData: (data: unknown) => void,
): Promise<{ close: () => void }> {
  const ac = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
    signal: ac.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`chat.events answered ${res.status}`);
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          // Data events only: tRPC's own (connected, ping) carry an `event:` line.
          if (lines.some((l) => l.startsWith('event:'))) continue;
          const data = lines.find((l) => l.startsWith('data: '));
          if (data) onData(JSON.parse(data.slice(6)));
        }
      }
    } catch {
      // closed
    }
  })();
  return { close: () => ac.abort() };
}

export async function liveEvents(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const dataDir = join(work, 'live-events');
  mkdirSync(dataDir);
  const api = await startApi(dataDir);
  const closers: Array<() => void> = [];
  try {
    const users = must<Array<{ id: string }>>(
      await trpc(api.port, 'query', 'auth.demoUsers'),
      'auth.demoUsers',
    );
    const { userToken } = must<{ userToken: string }>(
      await trpc(api.port, 'mutation', 'auth.login', { userId: users[0]!.id }),
      'auth.login',
    );
    const docs = must<Array<{ id: string; access: string }>>(
      await trpc(api.port, 'query', 'documents.list', undefined, userToken),
      'documents.list',
    );
    const documentId = docs.find((d) => d.access === 'owner')!.id;
    const { runId } = must<{ runId: string }>(
      await trpc(api.port, 'mutation', 'runs.accept', { documentId, mode: 'chat' }, userToken),
      'runs.accept',
    );
    const { runToken } = must<{ runToken: string }>(
      await trpc(api.port, 'mutation', 'runtime.claim', { runId }, RUNTIME_KEY),
      'runtime.claim',
    );

    // When each reply was first seen, by its text: on the stream, and by the poll.
    const streamed = new Map<string, number>();
    const polled = new Map<string, number>();
    const textOf = (item: unknown) =>
      typeof item === 'object' && item !== null && 'text' in item ? String(item.text) : null;
    const stream = await openStream(
      `http://127.0.0.1:${api.port}/trpc/chat.events?input=${encodeURIComponent(JSON.stringify({ runId }))}`,
      userToken,
      (data) => {
        const text = textOf(data);
        if (text !== null && !streamed.has(text)) streamed.set(text, performance.now());
      },
    );
    closers.push(stream.close);
    const roundTrips: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        const items = must<unknown[]>(
          await trpc(api.port, 'query', 'chat.transcript', { runId }, userToken),
          'chat.transcript',
        );
        const now = performance.now();
        roundTrips.push(now - t0);
        for (const item of items) {
          const text = textOf(item);
          if (text !== null && !polled.has(text)) polled.set(text, now);
        }
        await new Promise((r) => setTimeout(r, OLD_POLL_MS));
      }
    })();
    closers.push(() => (polling = false));

    const samples = quick ? 6 : 30;
    log(`live: ${samples} agent replies, each timed to its event on the stream and to the 1 s poll`);
    const toEvent: number[] = [];
    const toPoll: number[] = [];
    const callToEvent: number[] = [];
    let early = 0;
    for (let i = -2; i < samples; i++) {
      await new Promise((r) => setTimeout(r, Math.random() * OLD_POLL_MS));
      const text = `reply ${i} ${Math.random().toString(36).slice(2)}`;
      const t0 = performance.now();
      must(await trpc(api.port, 'mutation', 'agent.say', { text }, runToken), 'agent.say');
      const acked = performance.now();
      const deadline = acked + 10_000;
      while ((!streamed.has(text) || !polled.has(text)) && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 1));
      if (!streamed.has(text) || !polled.has(text))
        throw new Error(`live: reply ${i} did not arrive in 10 s`);
      if (i < 0) continue; // warmup
      const at = streamed.get(text)!;
      if (at < acked) early++;
      // An event that came before the call's own answer counts as no wait at all.
      toEvent.push(Math.max(0, at - acked));
      callToEvent.push(at - t0);
      toPoll.push(Math.max(0, polled.get(text)! - acked));
    }
    polling = false;
    await poller;
    const s = summarize(toEvent);
    const p = summarize(toPoll);
    const call = summarize(callToEvent);
    const rt = summarize(roundTrips);
    return [
      {
        figure: "an agent's reply, from its call's answer to its event in the owner's subscribed client",
        sync: 'n/a',
        project: lat(s),
        baseline: `the document page's former 1 s transcript poll ${lat(p)}`,
        ratio: round(s.p50 / p.p50, 3),
        target: 'p50 ≤ 200 ms',
        met: s.p50 <= 200,
        note: `${early} of ${samples} events came before the call's answer (counted as 0); from the call's start ${lat(call)}; one chat.transcript round trip ${ms(rt.p50)} ms p50`,
        raw: { toEvent: s, toPoll: p, callToEvent: call, transcriptRoundTrip: rt, early, samples },
      },
    ];
  } finally {
    for (const close of closers) close();
    await api.stop();
  }
}
