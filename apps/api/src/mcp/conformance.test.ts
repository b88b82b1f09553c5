/**
 * The Model Context Protocol's own conformance suite (`@modelcontextprotocol/conformance`, its
 * active server scenarios) against `/mcp` on a real API server. Every scenario must pass except
 * those listed in conformance-expected-failures.yml, each a feature this endpoint does not offer
 * (with the reason beside it); the suite itself fails on a listed scenario that passes.
 *
 * The suite's client sends no credential, and the server has no mode without one: a small proxy
 * in front adds the owner's API key to every request and passes everything else (Host, Origin,
 * body) as it came, so the DNS-rebinding scenario still reaches the server's own checks.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';

const here = dirname(fileURLToPath(import.meta.url));
const EXPECTED_FAILURES = join(here, 'conformance-expected-failures.yml');
const conformanceBin = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

let s: TestServer;
let proxy: Server;
let proxyUrl: string;
let results: string;

/** Forwards every request to the API server with `Authorization: Bearer <key>` added. */
function keyProxy(target: URL, key: string): Server {
  return createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.once('error', () => res.destroy());
    req.pipe(upstream);
  });
}

beforeAll(async () => {
  // The suite makes a few hundred calls in a minute: more than the default per-key limit allows.
  s = await startTestServer({}, { mcpRateLimit: { burst: 1_000, refillSeconds: 0.01 } });
  const owner = await s.login('user-ada');
  const created = await s.call('mutation', 'auth.createApiKey', { label: 'conformance' }, owner);
  proxy = keyProxy(new URL(s.url), created.data.apiKey as string);
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  results = mkdtempSync(join(tmpdir(), 'sponge-mcp-conformance-'));
});
afterAll(async () => {
  await new Promise((closed) => proxy?.close(closed));
  await s?.close();
  rmSync(results, { recursive: true, force: true });
});

/** The scenarios and their checks as the suite wrote them (`server-<scenario>-<time>/checks.json`). */
function scenarioResults(dir: string): Map<string, Array<{ id: string; status: string }>> {
  const out = new Map<string, Array<{ id: string; status: string }>>();
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(entry)?.[1] ?? entry;
    out.set(scenario, JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')));
  }
  return out;
}

it('passes every active server scenario of the MCP conformance suite but the features it does not offer', async () => {
  const run = spawn(
    process.execPath,
    [conformanceBin, 'server', '--url', proxyUrl, '--expected-failures', EXPECTED_FAILURES, '-o', results],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((exited) => run.once('close', exited));
  expect(code, output).toBe(0);

  // What the suite judged, beside its exit code: the scenarios this endpoint must pass, passed.
  const scenarios = scenarioResults(results);
  for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
    const checks = scenarios.get(scenario);
    expect(checks, `${scenario} ran`).toBeDefined();
    const bad = checks!.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(bad, `${scenario}\n${output}`).toEqual([]);
  }
  console.log(output.split('\n').slice(-40).join('\n'));
}, 300_000);
