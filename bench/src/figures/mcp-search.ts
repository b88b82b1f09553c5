/**
 * `mcp` (issue 29, SPEC §7d): what the owner's own agent pays for searching its library over MCP
 * instead of tRPC. The same queries, with the same API key, in the same rounds against one real
 * API process: `tools/call search_library` through the official SDK's client (what an agent
 * uses), the same call as a bare JSON-RPC POST to /mcp (the transport without the client
 * library), and the baseline `documents.search` over tRPC. Both answer from the same hybrid
 * search; the difference is the protocol: a fresh stateless MCP server per POST, the SDK's input
 * and output validation, and the answer written twice (text and structured content).
 */
import http from 'node:http';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { lat, ms, round } from '../figure.ts';
import type { BenchContext, Row } from '../figure.ts';
import { loginOwner, must, startApi, trpc } from '../http.ts';
import { interleave } from '../stats.ts';

/** Words the generated documents are written in, so every query finds passages. */
const WORDS = (
  'reef coral bleaching recovery grazing fish macroalgae larvae settlement heatwave transect ' +
  'survey density cover mortality herbivore connectivity temperature anomaly colony branching'
).split(' ');

const QUERIES = [
  'coral recovery after bleaching',
  'grazing fish density',
  'larvae settlement tiles',
  'heatwave mortality',
  'macroalgae cover',
  'transect survey',
  'temperature anomaly',
  'herbivore connectivity',
];

/** A document of `paragraphs` paragraphs of seeded pseudo-text (deterministic across runs). */
export function syntheticText(seed: number, paragraphs: number): string {
  let x = seed * 2654435761 + 1;
  const next = () => ((x = (x * 1103515245 + 12345) >>> 0), x);
  return Array.from({ length: paragraphs }, () =>
    Array.from({ length: 60 }, () => WORDS[next() % WORDS.length]).join(' '),
  ).join('\n\n');
}

/** One JSON-RPC message POSTed to /mcp over a keep-alive socket; the parsed answer. */
function mcpPost(port: number, key: string, agent: http.Agent, message: unknown): Promise<unknown> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${key}`,
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`/mcp answered ${res.statusCode}`));
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function mcpSearch(ctx: BenchContext): Promise<Row[]> {
  const { quick, work, log } = ctx;
  const dataDir = join(work, 'mcp-search');
  mkdirSync(dataDir);
  // The bench calls far faster than an agent: the per-key limit is lifted for this process only.
  const api = await startApi(dataDir, { MCP_CALLS_PER_MINUTE: '10000000' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let client: Client | undefined;
  try {
    const owner = await loginOwner(api.port);
    const { apiKey } = must<{ apiKey: string }>(
      await trpc(api.port, 'mutation', 'auth.createApiKey', { label: 'bench' }, owner.token),
      'auth.createApiKey',
    );
    const documents = quick ? 8 : 40;
    for (let d = 0; d < documents; d++) {
      must(
        await trpc(
          api.port,
          'mutation',
          'documents.add',
          { title: `Synthetic survey ${d}`, text: syntheticText(d, 12) },
          apiKey,
        ),
        'documents.add',
      );
    }
    // Searched once everything is indexed, so both protocols rank the same library.
    for (const deadline = Date.now() + 300_000; ;) {
      const listed = must<Array<{ access: string; index: { state: string } | null }>>(
        await trpc(api.port, 'query', 'documents.list', undefined, apiKey),
        'documents.list',
      );
      if (listed.every((d) => d.access !== 'owner' || d.index?.state === 'ready')) break;
      if (Date.now() > deadline) throw new Error('mcp: the library was not indexed within 5 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
    log(`mcp: ${documents} documents of 12 paragraphs indexed; timing three ways of one search`);

    client = new Client({ name: 'sponge-bench', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${api.port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
      }),
    );
    const sdk = client;
    const query = (i: number) => QUERIES[i % QUERIES.length]!;
    let hitsSeen = 0;
    const viaTrpc = async (i: number) => {
      const hits = must<unknown[]>(
        await trpc(api.port, 'query', 'documents.search', { query: query(i), limit: 8 }, apiKey),
        'documents.search',
      );
      hitsSeen += hits.length;
    };
    const viaSdk = async (i: number) => {
      const result = await sdk.callTool({ name: 'search_library', arguments: { query: query(i), limit: 8 } });
      if (result.isError) throw new Error(`search_library: ${JSON.stringify(result.content)}`);
    };
    const viaPost = async (i: number) => {
      const answer = (await mcpPost(api.port, apiKey, agent, {
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'search_library', arguments: { query: query(i), limit: 8 } },
      })) as { result?: { isError?: boolean } };
      if (!answer.result || answer.result.isError)
        throw new Error(`search_library: ${JSON.stringify(answer)}`);
    };
    const opts = quick ? { rounds: 4, perRound: 10, warmup: 10 } : { rounds: 12, perRound: 25, warmup: 40 };
    const [t, s, p] = await interleave([viaTrpc, viaSdk, viaPost], opts);
    if (hitsSeen === 0) throw new Error('mcp: documents.search found nothing; the comparison would be empty');
    const ratio = s!.p50 / t!.p50;
    return [
      {
        figure: `search_library over MCP (the SDK's client) vs documents.search over tRPC, same key and queries, ${documents + 3} documents`,
        sync: 'n/a',
        project: lat(s!),
        baseline: `documents.search over tRPC ${lat(t!)}`,
        ratio: round(ratio, 2),
        target: 'p50 ≤ 2× tRPC',
        met: ratio <= 2,
        note: `a bare JSON-RPC POST to /mcp ${lat(p!)} (${round(p!.p50 / t!.p50, 2)}× tRPC); ${opts.rounds} alternating rounds of ${opts.perRound} calls each`,
        raw: { trpc: t, sdk: s, post: p, opts, documents: documents + 3, p50Ms: ms(s!.p50) },
      },
    ];
  } finally {
    await client?.close();
    agent.destroy();
    await api.stop();
  }
}
