/**
 * Issue 24, point 15: retries happen at one layer, with one policy and one Retry-After parser.
 * A real HTTP server speaking the OpenAI embeddings format answers every request 503; one batch of
 * background indexing makes exactly the cloud adapter's attempts (1 + retries), not those attempts
 * again for each of the queue's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../db/open.ts';
import type { Client } from '@libsql/client';
import { EmbeddingError } from '@oh/embeddings';
import { createCloudEmbeddingAdapter } from '@oh/embeddings';
import { createRecallIndex } from './recall-index.ts';
import { kindOf } from '../records.ts';
import type { RecallNote } from './render.ts';

let dir: string;
const cleanups: Array<() => void | Promise<void>> = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'recall-retries-'));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

/** An embeddings endpoint that is always overloaded; counts the requests it was sent. */
async function overloadedEndpoint(headers: Record<string, string> = {}) {
  const seen = { requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.requests++;
      res.writeHead(503, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const note = (name: string, text: string): RecallNote => ({
  kind: kindOf(name),
  name,
  text,
  data: null,
  links: [],
  digest: `digest-of-${name}`,
});

describe('one batch against an endpoint that always answers 503', () => {
  it("makes the adapter's attempts once, not once per queue attempt", async () => {
    const endpoint = await overloadedEndpoint();
    const retries = 3;
    const adapter = createCloudEmbeddingAdapter({
      url: endpoint.url,
      model: 'text-embedding-3-small',
      dimensions: 8,
      retries,
      backoffBaseMs: 1,
      backoffMaxMs: 2,
    });
    const client: Client = await openDatabase({ url: `file:${join(dir, 'memory.db')}` });
    cleanups.push(() => client.close());
    const reports: Array<{ attempt: number; gaveUp: boolean; error: unknown }> = [];
    const index = createRecallIndex({
      client,
      adapter,
      // The queue's own policy (6 attempts) would run if the adapter's error let it.
      queue: { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 2 },
      onBackgroundError: (error, info) => reports.push({ ...info, error }),
    });
    cleanups.push(() => index.close());
    await index.init();

    index.indexLater('s1', [note('finding:a', 'first'), note('finding:b', 'second')]);
    await vi.waitFor(() => expect(reports.some((r) => r.gaveUp)).toBe(true), { timeout: 20_000 });

    expect(endpoint.seen.requests).toBe(1 + retries);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ attempt: 1, gaveUp: true });
    expect(reports[0]!.error).toBeInstanceOf(EmbeddingError);
    expect((reports[0]!.error as EmbeddingError).attempts).toBe(1 + retries);
    expect((await index.status('s1', new Map([['finding:a', 'digest-of-finding:a']]))).needsCatchUp).toBe(
      true,
    );
  }, 30_000);

  it('takes the pause from the one parser: a Retry-After beyond what it waits ends the batch at once', async () => {
    const endpoint = await overloadedEndpoint({ 'retry-after': '3600' });
    const adapter = createCloudEmbeddingAdapter({
      url: endpoint.url,
      model: 'm',
      dimensions: 8,
      retries: 3,
      maxRetryAfterMs: 60_000,
    });
    const error = await adapter.embed(['x']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'http', status: 503, retryAfterMs: 3_600_000, attempts: 1 });
    expect(endpoint.seen.requests).toBe(1);
  });
});
