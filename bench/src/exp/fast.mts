// Experiment: the same procedures through tRPC's createCaller behind a bare node:http server,
// to measure what the fetch adapter costs under 50 concurrent agents.
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../apps/api/src/config.ts';
import { openApp } from '../../../apps/api/src/app.ts';
import { createInnerContext } from '../../../apps/api/src/context.ts';
import { appRouter } from '../../../apps/api/src/router.ts';
import { startServer } from '../../../apps/api/src/server.ts';
import { throughput } from '../stats.ts';
import { acceptRun, loginOwner, trpc } from '../http.ts';

const mode = process.argv[2] ?? 'fast';
const dir = mkdtempSync(join(os.tmpdir(), 'fast-'));
const config = loadConfig({ PORT: '0', DATA_DIR: dir, DEMO: '1', LOG_LEVEL: 'silent', RECALL_MODE: 'off', TOKEN_SECRET: 'x'.repeat(40) });
let port: number;
if (mode === 'fast') {
  const app = await openApp(config);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = (req.url ?? '').split('?')[0]!.slice('/trpc/'.length);
      try {
        const ctx = await createInnerContext({ deps: app, authorization: req.headers.authorization, cookie: req.headers.cookie });
        const caller = appRouter.createCaller(ctx) as any;
        const [a, b] = path.split('.');
        const input = req.method === 'GET' ? (new URL(req.url!, 'http://x').searchParams.get('input') ? JSON.parse(new URL(req.url!, 'http://x').searchParams.get('input')!) : undefined) : JSON.parse(Buffer.concat(chunks).toString() || 'null');
        const data = b ? await caller[a!][b](input) : await caller[a!](input);
        const body = JSON.stringify({ result: { data } });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      } catch (e) {
        const body = JSON.stringify({ error: { message: (e as Error).message, data: {} } });
        res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as { port: number }).port;
} else {
  const s = await startServer(config, { host: '127.0.0.1' });
  port = s.port;
}
const owner = await loginOwner(port);
const agents = await Promise.all(Array.from({ length: 50 }, () => acceptRun(port, owner)));
const versions = agents.map(() => 0);
for (const kind of ['remember', 'health', 'remember']) {
  const r = await throughput(async (w, i) => {
    if (kind === 'health') return (await trpc(port, 'query', 'health')).ok;
    const a = await trpc(port, 'mutation', 'agent.remember', { basedOn: versions[w], requestId: `${kind}${w}-${i}-${Math.random()}`, changes: [{ op: 'add', name: `lead:a${i}-${Math.random()}`, text: 'x'.repeat(200) }] }, agents[w]!.runToken);
    if (a.ok) versions[w] = (a.data as { version: number }).version;
    return a.ok;
  }, 50, 4000, 1000);
  console.log(mode, kind, r.perSecond.toFixed(0), '/s', r.errors, 'errors');
}
process.exit(0);
