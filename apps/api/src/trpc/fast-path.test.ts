/**
 * The direct route (fast-path.ts) against the tRPC adapter it stands in for: two API processes'
 * worth of servers on ONE data directory (so the same tokens and rows), one answering directly,
 * one with every call through the adapter. Each request goes to both; status, the headers a
 * client reads, and the body bytes must be the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initTRPC } from '@trpc/server';
import type { AnyTRPCRouter } from '@trpc/server';
import type { TRPCRequestInfo } from '@trpc/server/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REEF_DOCUMENT_ID } from '../demo/library.ts';
import { createDirectCall } from './fast-path.ts';
import { appRouter } from '../router.ts';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';

let dir: string;
let direct: TestServer;
let adapter: TestServer;
let user: string;
let runToken: string;
let sessionId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sponge-direct-'));
  direct = await startTestServer({}, { dir });
  adapter = await startTestServer({}, { sameDataAs: direct, directCalls: false });
  user = await direct.login('user-ada');
  const run = await direct.acceptRun(user, { documentId: REEF_DOCUMENT_ID, mode: 'chat' });
  runToken = run.runToken;
  sessionId = run.sessionId!;
  await direct.client(runToken).agent.remember.mutate({
    basedOn: 0,
    requestId: 'seed',
    changes: [
      { op: 'add', name: 'lead:a', text: 'a lead', data: { n: 1 } },
      { op: 'add', name: 'finding:b', text: 'b', links: [{ rel: 'supports', to: 'lead:a' }] },
    ],
  });
});
afterAll(async () => {
  await adapter?.close();
  await direct?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Req {
  what: string;
  method: 'GET' | 'POST';
  path: string;
  input?: unknown;
  rawQuery?: string;
  body?: string;
  token?: () => string;
  contentType?: string | null;
  /** The status both routes must answer, where the test says. */
  status?: number;
}

async function send(s: TestServer, r: Req) {
  const headers: Record<string, string> = {};
  if (r.token) headers.authorization = `Bearer ${r.token()}`;
  if (r.contentType !== null) headers['content-type'] = r.contentType ?? 'application/json';
  const query =
    r.rawQuery ??
    (r.method === 'GET' && r.input !== undefined
      ? `?input=${encodeURIComponent(JSON.stringify(r.input))}`
      : '');
  const res = await fetch(`${s.url}/trpc/${r.path}${query}`, {
    method: r.method,
    headers,
    ...(r.method === 'POST' ? { body: r.body ?? JSON.stringify(r.input ?? null) } : {}),
  });
  // Each answer has its own random answer id, and the explain token and its expiry derive from it.
  const body = (await res.text()).replace(/"(answerId|explainToken|explainExpiresAt)":"[^"]*"/g, '"$1":"…"');
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    vary: res.headers.get('vary'),
    body,
  };
}

const REQUESTS: Req[] = [
  { what: 'health', method: 'GET', path: 'health' },
  { what: 'agent.load', method: 'GET', path: 'agent.load', token: () => runToken },
  {
    what: 'query current_notes',
    method: 'GET',
    path: 'agent.query',
    input: { question: 'current_notes' },
    token: () => runToken,
  },
  {
    what: 'read a note',
    method: 'GET',
    path: 'agent.read',
    input: { name: 'lead:a' },
    token: () => runToken,
  },
  {
    what: 'read a missing note',
    method: 'GET',
    path: 'agent.read',
    input: { name: 'lead:nope' },
    token: () => runToken,
  },
  {
    what: 'read, bad input',
    method: 'GET',
    path: 'agent.read',
    input: { name: 7, extra: true },
    token: () => runToken,
  },
  { what: 'read, no credential', method: 'GET', path: 'agent.read', input: { name: 'lead:a' } },
  {
    what: 'read, user token',
    method: 'GET',
    path: 'agent.read',
    input: { name: 'lead:a' },
    token: () => user,
  },
  {
    what: 'remember, stale basedOn',
    method: 'POST',
    path: 'agent.remember',
    input: { basedOn: 0, requestId: 'stale', changes: [{ op: 'add', name: 'lead:c', text: 'c' }] },
    token: () => runToken,
  },
  {
    what: 'remember, replay of the seed',
    method: 'POST',
    path: 'agent.remember',
    input: {
      basedOn: 0,
      requestId: 'seed',
      changes: [
        { op: 'add', name: 'lead:a', text: 'a lead', data: { n: 1 } },
        { op: 'add', name: 'finding:b', text: 'b', links: [{ rel: 'supports', to: 'lead:a' }] },
      ],
    },
    token: () => runToken,
  },
  {
    what: 'remember, request id reused',
    method: 'POST',
    path: 'agent.remember',
    input: { basedOn: 1, requestId: 'seed', changes: [{ op: 'add', name: 'lead:x', text: 'x' }] },
    token: () => runToken,
  },
  {
    what: 'remember, 0 changes',
    method: 'POST',
    path: 'agent.remember',
    input: { basedOn: 1, requestId: 'zero', changes: [] },
    token: () => runToken,
  },
  {
    what: 'remember, name exists',
    method: 'POST',
    path: 'agent.remember',
    input: { basedOn: 1, requestId: 'dup', changes: [{ op: 'add', name: 'lead:a', text: 'again' }] },
    token: () => runToken,
  },
  {
    what: 'remember, forged token',
    method: 'POST',
    path: 'agent.remember',
    input: { basedOn: 1, requestId: 'f', changes: [] },
    token: () => `${runToken.slice(0, -2)}xx`,
  },
  {
    what: 'remember, null body',
    method: 'POST',
    path: 'agent.remember',
    body: 'null',
    token: () => runToken,
  },
  {
    what: 'remember, not JSON',
    method: 'POST',
    path: 'agent.remember',
    body: '{"basedOn": ',
    token: () => runToken,
  },
  {
    what: 'remember, text/plain',
    method: 'POST',
    path: 'agent.remember',
    body: '{}',
    contentType: 'text/plain',
    token: () => runToken,
  },
  {
    what: 'remember by GET',
    method: 'GET',
    path: 'agent.remember',
    input: { basedOn: 1 },
    token: () => runToken,
  },
  {
    what: 'query by POST',
    method: 'POST',
    path: 'agent.query',
    input: { question: 'current_notes' },
    token: () => runToken,
  },
  { what: 'unknown procedure', method: 'GET', path: 'agent.nothing', token: () => runToken },
  { what: 'batch of two', method: 'GET', path: 'health,health', rawQuery: '?batch=1&input=%7B%7D' },
  {
    what: 'query, input not JSON',
    method: 'GET',
    path: 'agent.query',
    rawQuery: '?input=%7Bnot',
    token: () => runToken,
  },
  { what: 'documents.list', method: 'GET', path: 'documents.list', token: () => user },
  {
    what: 'memory.panel',
    method: 'GET',
    path: 'memory.panel',
    input: { documentId: REEF_DOCUMENT_ID, sessionId: '__SESSION__' },
    token: () => user,
  },
  {
    what: 'memory.panel, not the owner',
    method: 'GET',
    path: 'memory.panel',
    input: { documentId: 'doc-nope' },
    token: () => user,
  },
  { what: 'logout without credential', method: 'POST', path: 'auth.logout', input: null },
  // Refused on the parsed JSON before any schema (SPEC §6c), on both routes alike.
  {
    what: 'remember, changes a 10^5-deep array',
    status: 400,
    method: 'POST',
    path: 'agent.remember',
    body: `{"basedOn":1,"requestId":"deep","changes":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    token: () => runToken,
  },
  {
    what: 'agent.load, a 1,000-deep object as its input',
    status: 400,
    method: 'GET',
    path: 'agent.load',
    rawQuery: `?input=${encodeURIComponent('{"a":'.repeat(1_000) + '0' + '}'.repeat(1_000))}`,
    token: () => runToken,
  },
  {
    what: 'remember, a NUL in a note',
    status: 400,
    method: 'POST',
    path: 'agent.remember',
    input: { basedOn: 1, requestId: 'nul', changes: [{ op: 'add', name: 'lead:n', text: 'a\u0000b' }] },
    token: () => runToken,
  },
];

describe('direct route', () => {
  it('answers every request with the status, headers and bytes of the tRPC adapter', async () => {
    for (const r0 of REQUESTS) {
      const r =
        r0.input && JSON.stringify(r0.input).includes('__SESSION__')
          ? {
              ...r0,
              input: JSON.parse(JSON.stringify(r0.input).replace('__SESSION__', sessionId)) as unknown,
            }
          : r0;
      const viaAdapter = await send(adapter, r);
      const viaDirect = await send(direct, r);
      expect(viaDirect, r.what).toEqual(viaAdapter);
      if (r.status !== undefined) {
        expect(viaDirect.status, r.what).toBe(r.status);
        expect(viaDirect.body, r.what).toContain('"reason":"invalid_input"');
      }
    }
  });

  it('answers successful mutations in the same shape (each server writes its own call)', async () => {
    const call = (s: TestServer, basedOn: number, requestId: string) =>
      send(s, {
        what: 'remember',
        method: 'POST',
        path: 'agent.remember',
        input: { basedOn, requestId, changes: [{ op: 'add', name: `lead:${requestId}`, text: 't' }] },
        token: () => runToken,
      });
    const a = await call(adapter, 1, 'via-adapter');
    const d = await call(direct, 2, 'via-direct');
    expect([d.status, d.contentType, d.vary]).toEqual([a.status, a.contentType, a.vary]);
    expect(JSON.parse(d.body)).toEqual({
      result: {
        data: {
          version: 3,
          applied: [{ op: 'add', name: 'lead:via-direct', digest: expect.any(String) }],
          replayed: false,
        },
      },
    });
    expect(JSON.parse(a.body)).toEqual({
      result: {
        data: {
          version: 2,
          applied: [{ op: 'add', name: 'lead:via-adapter', digest: expect.any(String) }],
          replayed: false,
        },
      },
    });
  });
});

describe('start-up check of the router internals the route reads', () => {
  const direct = (router: unknown) => () =>
    createDirectCall({ router: router as AnyTRPCRouter, createContext: () => Promise.resolve({}) });

  it("accepts this tRPC version's router", () => {
    expect(direct(appRouter)).not.toThrow();
  });

  it('refuses, naming what is missing, a router whose internals moved', () => {
    const { _config, procedures } = appRouter._def;
    const cases: Array<[unknown, RegExp]> = [
      [{}, /router\._def\._config is not an object; router\._def\.procedures is not/],
      [{ _def: { procedures } }, /_config is not an object/],
      [{ _def: { _config: { ..._config, errorFormatter: undefined }, procedures } }, /errorFormatter/],
      [{ _def: { _config: { ..._config, transformer: {} }, procedures } }, /transformer/],
      [{ _def: { _config, procedures: {} } }, /procedures is not a non-empty map/],
      [{ _def: { _config, record: procedures } }, /procedures is not a non-empty map/],
      [
        { _def: { _config, procedures: { health: { type: 'query' } } } },
        /procedures\["health"\] is not a procedure/,
      ],
    ];
    for (const [router, problem] of cases) {
      expect(direct(router)).toThrow(problem);
      expect(direct(router)).toThrow(/@trpc\/server 11\.22\.1; see docs\/dependencies\.md/);
    }
  });
});

describe('request info and abort signal', () => {
  it('gives createContext the request info, and the procedure a signal that fires when the client goes away', async () => {
    const t = initTRPC.create();
    let entered!: () => void;
    const inProcedure = new Promise<void>((resolve) => (entered = resolve));
    const signals: AbortSignal[] = [];
    const infos: TRPCRequestInfo[] = [];
    const router = t.router({
      quick: t.procedure.query(({ signal }) => {
        signals.push(signal!);
        return 'done';
      }),
      // Answers only when its signal fires.
      slow: t.procedure.query(({ signal }) => {
        signals.push(signal!);
        entered();
        return new Promise<string>((resolve) => signal!.addEventListener('abort', () => resolve('aborted')));
      }),
    });
    const directCall = createDirectCall({
      router,
      createContext: ({ info }) => {
        infos.push(info);
        return Promise.resolve({});
      },
    });
    const server = createServer((req, res) => {
      if (!directCall(req, res, (req.url ?? '').slice('/trpc/'.length))) res.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const quick = await fetch(`${base}/trpc/quick?input=${encodeURIComponent('{"a":1}')}`);
      expect(await quick.json()).toEqual({ result: { data: 'done' } });
      expect(infos[0]).toMatchObject({
        type: 'query',
        isBatchCall: false,
        accept: null,
        connectionParams: null,
      });
      expect(infos[0]!.url?.href).toBe(`${base}/trpc/quick?input=${encodeURIComponent('{"a":1}')}`);
      expect(infos[0]!.calls.map((c) => [c.path, c.batchIndex, c.procedure?._def.type])).toEqual([
        ['quick', 0, 'query'],
      ]);
      // The procedure takes no input, so nothing read it: as behind the adapter, result() is undefined.
      expect(infos[0]!.calls[0]!.result()).toBeUndefined();
      expect(await infos[0]!.calls[0]!.getRawInput()).toEqual({ a: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // An answer written completely does not abort anything.
      expect(signals[0]!.aborted).toBe(false);

      const gone = request(`${base}/trpc/slow`);
      gone.on('error', () => {});
      gone.end();
      await inProcedure;
      const slowSignal = signals[1]!;
      expect(slowSignal.aborted).toBe(false);
      gone.destroy();
      await new Promise<void>((resolve) => slowSignal.addEventListener('abort', () => resolve()));
      expect(slowSignal.aborted).toBe(true);
      expect(infos[1]!.signal.aborted).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
