import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmbeddingError } from './adapter.ts';
import { createCloudEmbeddingAdapter, resolveEndpoint } from './cloud-adapter.ts';
import type { CloudEmbeddingOptions } from './cloud-adapter.ts';

const API_KEY = 'sk-test-7f3a9c1e5b2d4a6890abcdef';
const DIMS = 8;

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: { input: string[]; model: string; dimensions?: number };
}

type Handler = (req: Seen, res: ServerResponse, n: number) => void;

interface TestServer {
  url: string;
  requests: Seen[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A local OpenAI-compatible embeddings server; `handler` decides each answer. */
async function startServer(handler: Handler): Promise<TestServer> {
  const requests: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'],
      };
      requests.push(seen);
      handler(seen, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const s: TestServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

/** A vector that encodes which input it belongs to: [len(text), i, 0, …]. */
function vectorFor(text: string, dims = DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  v[0] = text.length;
  v[1] = Number(/\d+/.exec(text)?.[0] ?? -1);
  return v;
}

function answer(res: ServerResponse, req: Seen, opts: { dims?: number; reverse?: boolean } = {}): void {
  const data = req.body.input.map((text, index) => ({
    object: 'embedding',
    index,
    embedding: vectorFor(text, opts.dims),
  }));
  if (opts.reverse) data.reverse();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      object: 'list',
      data,
      model: req.body.model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    }),
  );
}

function adapterFor(server: TestServer, extra: Partial<CloudEmbeddingOptions> = {}) {
  return createCloudEmbeddingAdapter({
    url: server.url,
    apiKey: API_KEY,
    model: 'test-embed',
    dimensions: DIMS,
    backoffBaseMs: 10,
    backoffMaxMs: 50,
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<EmbeddingError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EmbeddingError);
    return err as EmbeddingError;
  }
  throw new Error('expected the promise to reject');
}

function expectNoKey(err: EmbeddingError): void {
  expect(err.message).not.toContain(API_KEY);
  expect(JSON.stringify(err)).not.toContain(API_KEY);
  expect(String(err.stack)).not.toContain(API_KEY);
  expect(JSON.stringify((err as { cause?: unknown }).cause ?? null)).not.toContain(API_KEY);
}

describe('cloud embedding adapter (OpenAI-compatible)', () => {
  it('POSTs {input, model, dimensions} to /v1/embeddings with a Bearer key and orders by index', async () => {
    const server = await startServer((req, res) => answer(res, req, { reverse: true }));
    const adapter = adapterFor(server);
    expect(adapter.id).toBe(`openai-compatible:${new URL(server.url).host}/test-embed:${DIMS}`);
    const out = await adapter.embed(['note 0', 'note 1 longer', 'note 2']);
    expect(out.map((v) => Array.from(v.slice(0, 2)))).toEqual([
      [6, 0],
      [13, 1],
      [6, 2],
    ]);
    expect(out.every((v) => v instanceof Float32Array && v.length === DIMS)).toBe(true);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/v1/embeddings');
    expect(req!.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req!.body).toEqual({
      input: ['note 0', 'note 1 longer', 'note 2'],
      model: 'test-embed',
      dimensions: DIMS,
    });
  });

  it('splits inputs into batches: 150 inputs at 64 per request make 3 requests', async () => {
    const server = await startServer((req, res) => answer(res, req));
    const texts = Array.from({ length: 150 }, (_, i) => `t ${i}`);
    const out = await adapterFor(server).embed(texts);
    expect(server.requests.map((r) => r.body.input.length)).toEqual([64, 64, 22]);
    expect(out.map((v) => v[1])).toEqual(texts.map((_, i) => i));
    expect(await adapterFor(server).embed([])).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it('honours Retry-After on 429 and then succeeds', async () => {
    const server = await startServer((req, res, n) => {
      if (n === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit' } }));
      } else answer(res, req);
    });
    const started = Date.now();
    const out = await adapterFor(server).embed(['a 1']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(out[0]![1]).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 500 and then succeeds', async () => {
    const server = await startServer((req, res, n) => {
      if (n === 1) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'internal error' } }));
      } else answer(res, req);
    });
    const out = await adapterFor(server).embed(['a 7']);
    expect(out[0]![1]).toBe(7);
    expect(server.requests).toHaveLength(2);
  });

  it('waits retry-after-ms on a 408, and never retries a refused request whatever it asks', async () => {
    const slow = await startServer((req, res, n) => {
      if (n === 1) {
        res.writeHead(408, { 'retry-after-ms': '300' });
        res.end();
      } else answer(res, req);
    });
    const started = Date.now();
    expect((await adapterFor(slow).embed(['a 3']))[0]![1]).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(slow.requests).toHaveLength(2);

    const refused = await startServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: { message: 'input too long' } }));
    });
    const err = await failure(adapterFor(refused).embed(['x']));
    expect([err.status, err.retryable, err.attempts]).toEqual([400, false, 1]);
    expect(err.message).toMatch(/HTTP 400: input too long$/);
    expect(refused.requests).toHaveLength(1);
  });

  it('backs off with full jitter, each wait capped at backoffMaxMs', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const random = vi.spyOn(Math, 'random');
    try {
      // The top of the jitter range: steps of 60 s and more, each capped at 100 ms.
      random.mockReturnValue(0.999);
      let started = Date.now();
      const err = await failure(
        adapterFor(server, { retries: 2, backoffBaseMs: 60_000, backoffMaxMs: 100 }).embed(['x']),
      );
      expect(err.attempts).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(5_000);
      // The bottom of the range is no wait at all: full jitter, not "the step to twice the step".
      random.mockReturnValue(0);
      started = Date.now();
      await failure(
        adapterFor(server, { retries: 2, backoffBaseMs: 60_000, backoffMaxMs: 60_000 }).embed(['x']),
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(server.requests).toHaveLength(6);
    } finally {
      random.mockRestore();
    }
  });

  it('gives up after the retries with a clear error naming the endpoint and status', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream unavailable');
    });
    const err = await failure(adapterFor(server, { retries: 2 }).embed(['x']));
    expect(server.requests).toHaveLength(3);
    expect(err.code).toBe('http');
    expect(err.status).toBe(503);
    expect(err.attempts).toBe(3);
    expect(err.retryable).toBe(true);
    expect(err.endpoint).toBe(`${server.url}/v1/embeddings`);
    expect(err.message).toBe(
      `embeddings request to ${server.url}/v1/embeddings failed: HTTP 503 (after 3 attempts)`,
    );
    expectNoKey(err);
  });

  it('times out a hanging response (no headers, or a stalled body) and retries it', async () => {
    const hang = await startServer(() => {
      // never answer
    });
    const err = await failure(adapterFor(hang, { timeoutMs: 150, retries: 1 }).embed(['x']));
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/no complete answer within 150 ms/);
    expect(hang.requests).toHaveLength(2);

    const stall = await startServer((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": [');
      if (n > 1) res.end(']}'); // the retry completes (with a wrong count, so it fails differently)
    });
    const err2 = await failure(adapterFor(stall, { timeoutMs: 150, retries: 0 }).embed(['x']));
    expect(err2.code).toBe('timeout');
    expect(stall.requests).toHaveLength(1);
    expectNoKey(err2);
  });

  it('refuses malformed JSON without retrying', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [ {"index": 0, "embedding": [1,2');
    });
    const err = await failure(adapterFor(server).embed(['x']));
    expect(err.code).toBe('bad_response');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/not JSON/);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses responses of the wrong shape', async () => {
    const bodies: unknown[] = [
      { nope: true },
      { data: [] },
      { data: [{ index: 5, embedding: vectorFor('x') }] },
      { data: [{ index: 0, embedding: ['1', 2, 3, 4, 5, 6, 7, 8] }] },
      { data: [{ index: 0, embedding: 'AAAA' }] },
    ];
    const server = await startServer((_req, res, n) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(bodies[n - 1]));
    });
    const adapter = adapterFor(server);
    for (let i = 0; i < bodies.length; i++) {
      expect((await failure(adapter.embed(['x']))).code).toBe('bad_response');
    }
    expect(server.requests).toHaveLength(bodies.length);
  });

  it('refuses vectors of the wrong dimension', async () => {
    const server = await startServer((req, res) => answer(res, req, { dims: 12 }));
    const err = await failure(adapterFor(server).embed(['a', 'b']));
    expect(err.code).toBe('dimension_mismatch');
    expect(err.message).toMatch(/returned 12-dimensional vectors, expected 8/);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 401 and never echoes the key, even when the server does', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.authorization}` } }));
    });
    const err = await failure(adapterFor(server).embed(['x']));
    expect(server.requests).toHaveLength(1);
    expect(err.status).toBe(401);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(`${server.url}/v1/embeddings`);
    expect(err.message).toContain('Incorrect API key provided: Bearer [redacted]');
    expectNoKey(err);
  });

  it('fails at once when Retry-After is longer than it is willing to wait', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '3600' });
      res.end();
    });
    const started = Date.now();
    const err = await failure(adapterFor(server).embed(['x']));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(3_600_000);
    expect(err.message).toMatch(/retry after 3600 s/);
    expect(server.requests).toHaveLength(1);
  });

  it('retries network errors and reports them without the key', async () => {
    const server = await startServer(() => {});
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const err = await failure(
      createCloudEmbeddingAdapter({
        url,
        apiKey: API_KEY,
        model: 'm',
        dimensions: DIMS,
        retries: 2,
        backoffBaseMs: 5,
      }).embed(['x']),
    );
    expect(err.code).toBe('network');
    expect(err.attempts).toBe(3);
    expect(err.message).toMatch(/network error \(ECONNREFUSED\)/);
    expectNoKey(err);
  });

  it('sends no Authorization without a key, and no dimensions when told not to', async () => {
    const server = await startServer((req, res) => answer(res, req));
    await adapterFor(server, { apiKey: '', sendDimensions: false }).embed(['x']);
    expect(server.requests[0]!.authorization).toBeUndefined();
    expect(server.requests[0]!.body).toEqual({ input: ['x'], model: 'test-embed' });
  });

  it('uses an injected fetch', async () => {
    const calls: string[] = [];
    const adapter = createCloudEmbeddingAdapter({
      url: 'https://embeddings.invalid/v1',
      model: 'm',
      dimensions: 2,
      fetch: async (input) => {
        calls.push(input instanceof Request ? input.url : input.toString());
        return new Response(JSON.stringify({ data: [{ index: 0, embedding: [0.6, 0.8] }] }), { status: 200 });
      },
    });
    const [v] = await adapter.embed(['x']);
    expect(Array.from(v!)).toEqual([Float32Array.from([0.6])[0], Float32Array.from([0.8])[0]]);
    expect(calls).toEqual(['https://embeddings.invalid/v1/embeddings']);
  });

  it('validates its configuration', () => {
    const base = { url: 'http://localhost:1', model: 'm', dimensions: 4 };
    expect(() => createCloudEmbeddingAdapter({ ...base, model: ' ' })).toThrow(/model name is required/);
    expect(() => createCloudEmbeddingAdapter({ ...base, dimensions: 0 })).toThrow(/dimensions/);
    expect(() => createCloudEmbeddingAdapter({ ...base, batchSize: 0 })).toThrow(/batchSize/);
    expect(() => createCloudEmbeddingAdapter({ ...base, url: 'not a url' })).toThrow(
      /not a valid absolute URL/,
    );
    try {
      createCloudEmbeddingAdapter({
        ...base,
        url: `http://u:${API_KEY}@host/?key=${API_KEY}`,
        dimensions: 0,
      });
    } catch (err) {
      expect((err as Error).message).not.toContain(API_KEY);
    }
  });

  it('resolves endpoint URLs', () => {
    expect(resolveEndpoint('https://api.openai.com').href).toBe('https://api.openai.com/v1/embeddings');
    expect(resolveEndpoint('https://api.openai.com/').href).toBe('https://api.openai.com/v1/embeddings');
    expect(resolveEndpoint('http://localhost:11434/v1/').href).toBe('http://localhost:11434/v1/embeddings');
    expect(resolveEndpoint('https://x.example/openai/deployments/e/embeddings?api-version=1').href).toBe(
      'https://x.example/openai/deployments/e/embeddings?api-version=1',
    );
  });
});
