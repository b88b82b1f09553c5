import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from './testing/harness.ts';
import type { TestServer } from './testing/harness.ts';

/** A raw GET that does not normalise `..` the way fetch does. */
function rawGet(url: string, path: string): Promise<{ status: number; body: string; type: string | undefined }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serving the built web app', () => {
  let s: TestServer;
  let dist: string;
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), 'sponge-web-'));
    dist = join(root, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Sponge</title><div id="root"></div>');
    writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log("app")');
    writeFileSync(join(dist, 'assets', 'app-abc123.css'), 'body{}');
    writeFileSync(join(root, 'secret.txt'), 'outside the dist folder');
    s = await startTestServer({ WEB_DIST: dist });
  });
  afterAll(async () => {
    await s?.close();
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
    expect((await fetch(`${s.url}/assets/app-abc123.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const deep = await fetch(`${s.url}/documents/doc-reef-recovery-2016/memory?session=x`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    expect((await fetch(`${s.url}/assets/missing.js`)).status).toBe(404);
    const head = await fetch(`${s.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await fetch(`${s.url}/`, { method: 'POST' })).status).toBe(405);
  });

  it('never leaves the dist folder', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/%00']) {
      const r = await rawGet(s.url, path);
      expect(r.body, path).not.toContain('outside the dist folder');
      expect([200, 404]).toContain(r.status);
    }
  });

  it('keeps /trpc for the API', async () => {
    const r = await fetch(`${s.url}/trpc/health`);
    expect(await r.json()).toEqual({ result: { data: { ok: true } } });
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
