/**
 * DNS rebinding (SPEC §6c): a page of another site can point its own name at 127.0.0.1, and to
 * the browser it is then the app's own origin, with demo sign-in open to it. A server on a loopback
 * HOST answers only requests whose Host is a loopback name or address, unless PUBLIC_URL names
 * the origin browsers use.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { isLoopbackHostHeader } from './loopback.ts';

/** A request with a Host header of our choosing (fetch does not let a caller set it). */
function withHost(
  port: number,
  host: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { host, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a server on a loopback HOST', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses a rebound name: no demo sign-in, no page, nothing signed in', async () => {
    const login = await withHost(
      s.port,
      `rebound.example:${s.port}`,
      'POST',
      '/trpc/auth.login',
      JSON.stringify({ userId: 'user-ada' }),
    );
    expect(login.status).toBe(403);
    expect(JSON.parse(login.text).error.data.reason).toBe('forbidden');
    expect(login.text).not.toContain('userToken');
    const page = await withHost(s.port, `rebound.example:${s.port}`, 'GET', '/');
    expect(page.status).toBe(403);
    expect(page.text).toMatch(/PUBLIC_URL/);
  });

  it('answers localhost, 127.0.0.1 and [::1] by name', async () => {
    for (const host of [`localhost:${s.port}`, `127.0.0.1:${s.port}`, `[::1]:${s.port}`]) {
      const r = await withHost(s.port, host, 'GET', '/trpc/health');
      expect([host, r.status]).toEqual([host, 200]);
    }
  });

  it('answers the name PUBLIC_URL gives', async () => {
    const t = await startTestServer({ PUBLIC_URL: 'https://sponge.example' });
    try {
      const r = await withHost(t.port, 'sponge.example', 'GET', '/trpc/health');
      expect(r.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('isLoopbackHostHeader', () => {
  it('takes loopback names and addresses with or without a port, nothing else', () => {
    for (const ok of ['localhost', 'localhost:3000', '127.0.0.1:3000', '127.8.9.10', '[::1]:80', '[::1]'])
      expect([ok, isLoopbackHostHeader(ok)]).toEqual([ok, true]);
    for (const no of [
      undefined,
      '',
      'example.com',
      '10.0.0.1:3000',
      'localhost.evil.com',
      '127.0.0.1.nip.io',
      '[::2]',
      'a b',
    ])
      expect([no, isLoopbackHostHeader(no)]).toEqual([no, false]);
  });
});
