import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';

/** A raw GET that does not normalise `..` the way fetch does. */
function rawGet(
  url: string,
  path: string,
): Promise<{ status: number; body: string; type: string | undefined; headers: IncomingHttpHeaders }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          type: res.headers['content-type'],
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

describe('serving the built web app', () => {
  let s: TestServer;
  let dist: string;
  let socket: Server;
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'sponge-web-'));
    dist = join(root, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Sponge</title><div id="root"></div>');
    writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log("app")');
    writeFileSync(join(dist, 'assets', 'app-abc123.css'), 'body{}');
    writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(root, 'secret.txt'), 'outside the dist folder');
    // A sibling whose name starts with the folder's: a bare prefix check would let it through.
    mkdirSync(join(root, 'dist-private'));
    writeFileSync(join(root, 'dist-private', 'secret.txt'), 'outside the dist folder');
    // A socket: it exists and is no folder, but opening it fails (ENXIO), even for root.
    socket = createServer();
    await new Promise<void>((done) => socket.listen(join(dist, 'assets', 'broken-abc123.js'), done));
    s = await startTestServer({ WEB_DIST: dist });
  });
  afterAll(async () => {
    await s?.close();
    await new Promise((done) => socket?.close(done));
    rmSync(join(dist, '..'), { recursive: true, force: true });
  });

  it('serves index.html, assets with content types, and the SPA fallback', async () => {
    const home = await fetch(`${s.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await home.text()).toContain('<div id="root">');
    const js = await fetch(`${s.url}/assets/app-abc123.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${s.url}/assets/app-abc123.css`)).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
    const deep = await fetch(`${s.url}/documents/doc-reef-recovery-2016/memory?session=x`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    expect((await fetch(`${s.url}/assets/missing.js`)).status).toBe(404);
    const head = await fetch(`${s.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await fetch(`${s.url}/`, { method: 'POST' })).status).toBe(405);
  });

  it('caches hashed assets for good and revalidates the HTML shell', async () => {
    for (const path of ['/assets/app-abc123.js', '/assets/app-abc123.css']) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.headers.get('cache-control'), path).toBe(IMMUTABLE);
    }
    // index.html by any name, the SPA fallback (also under /assets/), and files outside /assets/.
    for (const path of [
      '/',
      '/index.html',
      '/documents/doc-1/memory',
      '/assets/',
      '/assets/page',
      '/favicon.svg',
    ]) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('cache-control'), path).toBe('no-cache');
      expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(r.headers.get('x-frame-options'), path).toBe('DENY');
    }
    expect((await fetch(`${s.url}/assets/page`)).headers.get('content-type')).toBe(
      'text/html; charset=utf-8',
    );
    expect((await fetch(`${s.url}/favicon.svg`)).headers.get('content-type')).toBe(
      'image/svg+xml; charset=utf-8',
    );
    // no-cache means "ask first": the shell's ETag makes that a 304 while it is unchanged.
    const etag = (await fetch(`${s.url}/`)).headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await fetch(`${s.url}/`, { headers: { 'if-none-match': etag! } })).status).toBe(304);
  });

  it('never leaves the dist folder', async () => {
    for (const path of [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/%2E%2E%2Fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/../../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '//../secret.txt',
      '/..%5csecret.txt',
      '/../dist-private/secret.txt',
      '/%2e%2e/dist-private/secret.txt',
      '/%00',
      '/%',
    ]) {
      const r = await rawGet(s.url, path);
      expect(r.body, path).not.toContain('outside the dist folder');
      expect([200, 400, 404], path).toContain(r.status);
      // Whatever came back is the app's own: the shell or a not-found page.
      expect(r.type, path).toBe('text/html; charset=utf-8');
    }
  });

  it('ends the answer, not the process, when a file cannot be read', async () => {
    await expect(rawGet(s.url, '/assets/broken-abc123.js')).rejects.toThrow();
    expect((await fetch(`${s.url}/assets/app-abc123.js`)).status).toBe(200);
  });

  it('keeps /trpc for the API, and never answers it with the app shell', async () => {
    const r = await fetch(`${s.url}/trpc/health`);
    expect(await r.json()).toEqual({ result: { data: { ok: true } } });
    for (const path of ['/trpc', '/trpc?input=1']) {
      const miss = await rawGet(s.url, path);
      expect(miss.status, path).toBe(404);
      expect(miss.body, path).not.toContain('<div id="root">');
    }
  });
});

describe('without a built web app', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers a plain 404 page for pages, and the API still works', async () => {
    const r = await fetch(`${s.url}/`);
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(await r.text()).toMatch(/not built yet/);
    expect((await fetch(`${s.url}/trpc/health`)).status).toBe(200);
  });
});
