/**
 * Every kind of answer carries the SPEC §6c headers: the app shell, an asset, a /trpc success
 * and error, a 404 (page and API), a refused oversized body (413) and a refused cross-site POST.
 * HSTS only when browsers come over TLS (PUBLIC_URL https).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { CONTENT_SECURITY_POLICY } from './security-headers.ts';

let s: TestServer;
let ada: string;
beforeAll(async () => {
  s = await startTestServer();
  // A built web app of two files, in the test server's own folder.
  const web = join(s.dir, 'no-web-dist');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(
    join(web, 'index.html'),
    '<!doctype html><script type="module" src="/assets/app.js"></script>\n',
  );
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log("app");\n');
  ada = await s.login('user-ada');
});
afterAll(async () => {
  await s?.close();
});

function expectSecurityHeaders(res: Response, what: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, what).toBe(CONTENT_SECURITY_POLICY);
  expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), what).toBe('same-origin');
  expect(res.headers.get('strict-transport-security'), what).toBeNull();
}

describe('security headers', () => {
  it('the policy: self only, no inline script, no plugins, no framing', () => {
    const directives = Object.fromEntries(
      CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(directives['default-src']).toEqual(["'self'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
  });

  it('on every kind of answer', async () => {
    const post = (path: string, body: string | Uint8Array, headers: Record<string, string>) =>
      fetch(`${s.url}${path}`, { method: 'POST', headers, body });
    const answers: Array<[string, Promise<Response>, number]> = [
      ['the app shell', fetch(`${s.url}/`), 200],
      ['a page route (SPA fallback)', fetch(`${s.url}/documents/x`), 200],
      ['an asset', fetch(`${s.url}/assets/app.js`), 200],
      ['a missing asset', fetch(`${s.url}/assets/missing.js`), 404],
      ['a static POST', post('/', 'x', {}), 405],
      ['a /trpc query', fetch(`${s.url}/trpc/health`), 200],
      [
        'a /trpc mutation',
        post('/trpc/auth.createApiKey', JSON.stringify({ label: 'h' }), {
          authorization: `Bearer ${ada}`,
          'content-type': 'application/json',
        }),
        200,
      ],
      ['a /trpc batch', fetch(`${s.url}/trpc/health,health?batch=1&input={}`), 200],
      ['a /trpc error', fetch(`${s.url}/trpc/documents.list`), 401],
      ['an unknown procedure', fetch(`${s.url}/trpc/nope`), 404],
      [
        'a body over 4 MiB',
        post('/trpc/auth.createApiKey', `{"label":"${'x'.repeat(5 * 1024 * 1024)}"}`, {
          authorization: `Bearer ${ada}`,
          'content-type': 'application/json',
        }),
        413,
      ],
      [
        'an upload over its limit',
        post('/trpc/documents.upload', new Uint8Array(21 * 1024 * 1024), {
          authorization: `Bearer ${ada}`,
          'content-type': 'multipart/form-data; boundary=x',
        }),
        413,
      ],
      [
        'a cross-site cookie POST',
        post('/trpc/auth.logout', 'null', {
          cookie: `sponge_session=${ada}`,
          'content-type': 'application/json',
        }),
        403,
      ],
    ];
    for (const [what, pending, status] of answers) {
      const res = await pending;
      expect(res.status, what).toBe(status);
      expectSecurityHeaders(res, what);
      await res.arrayBuffer();
    }
  });

  it('HSTS behind TLS only: PUBLIC_URL https', async () => {
    const plain = await startTestServer({ PUBLIC_URL: 'http://sponge.example' });
    const tls = await startTestServer({ PUBLIC_URL: 'https://sponge.example' });
    try {
      expect((await fetch(`${plain.url}/trpc/health`)).headers.get('strict-transport-security')).toBeNull();
      for (const path of ['/trpc/health', '/trpc/nope', '/']) {
        const res = await fetch(`${tls.url}${path}`);
        expect(res.headers.get('strict-transport-security'), path).toBe('max-age=31536000');
      }
    } finally {
      await Promise.all([plain.close(), tls.close()]);
    }
  });
});

describe("what Node's own parser refuses", () => {
  it('a request line over its limit (431) and bytes that are not HTTP (400) carry the headers too', async () => {
    const { connect } = await import('node:net');
    const raw = (bytes: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(s.port, '127.0.0.1', () => socket.end(bytes));
        const parts: Buffer[] = [];
        socket.on('data', (c: Buffer) => parts.push(c));
        socket.on('end', () => resolve(Buffer.concat(parts).toString('latin1')));
        socket.on('error', reject);
      });
    for (const [bytes, status] of [
      [`GET /trpc/health?input=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 431],
      ['NOT HTTP AT ALL\r\n\r\n', 400],
    ] as const) {
      const answer = await raw(bytes);
      expect(answer.split('\r\n')[0]).toBe(
        `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}`,
      );
      expect(answer).toContain(`Content-Security-Policy: ${CONTENT_SECURITY_POLICY}\r\n`);
      expect(answer).toContain('X-Content-Type-Options: nosniff\r\n');
    }
  });
});
