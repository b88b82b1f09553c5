import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONFIG_VARIABLES,
  ConfigError,
  DEFAULT_WEB_DIST,
  loadConfig,
  resolvePurgeKey,
  resolveTokenSecret,
} from './config.ts';
import { openEmbeddings } from './stores.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv');
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({}, '/srv');
    expect(c).toMatchObject({
      port: 3000,
      dataDir: '/srv/data',
      demo: true,
      sessionTtlSeconds: 86_400,
      explainTokenTtlSeconds: 600,
      purgeIntervalSeconds: 60,
      recallMode: 'shadow',
      acceptRunsUntil: null,
      memoryDbThread: 'worker',
      memoryDbSynchronous: 'FULL',
      mcpRateLimit: { burst: 60, refillSeconds: 0.25 },
      memoryDb: { url: 'file:/srv/data/memory.db' },
      appDb: { url: 'file:/srv/data/sponge.db' },
      webDist: DEFAULT_WEB_DIST,
    });
    expect(DEFAULT_WEB_DIST).toMatch(/apps\/web\/dist$/);
  });

  it('reads every variable', () => {
    const c = loadConfig(
      {
        PORT: '8080',
        DATA_DIR: '/var/sponge',
        DEMO: 'false',
        SESSION_TTL_SECONDS: '60',
        EXPLAIN_TOKEN_TTL_SECONDS: '30',
        TOKEN_SECRET: 'x'.repeat(32),
        PURGE_INTERVAL_SECONDS: '5',
        RECALL_MODE: 'live',
        EMBEDDINGS_URL: 'https://embeddings.example/v1',
        EMBEDDINGS_API_KEY: 'sk-test',
        EMBEDDINGS_MODEL: 'small',
        EMBEDDINGS_DIMENSIONS: '512',
        EMBEDDINGS_BATCH_SIZE: '16',
        EMBEDDINGS_TIMEOUT_MS: '2500',
        EMBEDDINGS_RETRIES: '0',
        EMBEDDINGS_SEND_DIMENSIONS: 'off',
        EMBEDDINGS_SIMILARITY_FLOOR: '0.35',
        ACCEPT_RUNS_UNTIL: '2030-06-01T12:00:00Z',
        MEMORY_DATABASE_URL: 'libsql://memory.example',
        MEMORY_DATABASE_AUTH_TOKEN: 'm',
        APP_DATABASE_URL: 'libsql://app.example',
        APP_DATABASE_AUTH_TOKEN: 'a',
        WEB_DIST: 'web',
        MEMORY_DB_THREAD: 'main',
        MEMORY_DB_SYNCHRONOUS: 'NORMAL',
        PURGE_KEY: 'k'.repeat(16),
        LOG_LEVEL: 'warn',
      },
      '/srv',
    );
    expect(c).toMatchObject({
      port: 8080,
      dataDir: '/var/sponge',
      demo: false,
      sessionTtlSeconds: 60,
      explainTokenTtlSeconds: 30,
      tokenSecret: 'x'.repeat(32),
      purgeIntervalSeconds: 5,
      purgeKey: 'k'.repeat(16),
      recallMode: 'live',
      embeddings: {
        kind: 'cloud',
        options: {
          url: 'https://embeddings.example/v1',
          apiKey: 'sk-test',
          model: 'small',
          dimensions: 512,
          batchSize: 16,
          timeoutMs: 2500,
          retries: 0,
          sendDimensions: false,
        },
      },
      similarityFloor: 0.35,
      logLevel: 'warn',
      acceptRunsUntil: new Date('2030-06-01T12:00:00Z'),
      memoryDb: { url: 'libsql://memory.example', authToken: 'm' },
      appDb: { url: 'libsql://app.example', authToken: 'a' },
      webDist: '/srv/web',
      memoryDbThread: 'main',
      memoryDbSynchronous: 'NORMAL',
    });
  });

  it('DEMO defaults to off for a remote application database, and 0/false turn it off', () => {
    expect(loadConfig({ APP_DATABASE_URL: 'libsql://app.example' }).demo).toBe(false);
    expect(loadConfig({ APP_DATABASE_URL: 'libsql://app.example', DEMO: '1' }).demo).toBe(true);
    expect(loadConfig({ DEMO: '0' }).demo).toBe(false);
  });

  it('HOST defaults to 127.0.0.1; DEMO is on by default only on a loopback HOST', () => {
    expect(loadConfig({})).toMatchObject({ host: '127.0.0.1', publicUrl: null, demo: true });
    for (const host of ['127.0.0.1', '127.8.0.1', 'localhost', '::1'])
      expect(loadConfig({ HOST: host }).demo, host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'sponge.example'])
      expect(loadConfig({ HOST: host }).demo, host).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', DEMO: '1' }).demo).toBe(true);
    expect(problems({ HOST: 'not a host!' })).toEqual([
      'HOST: expected an IP address or a host name to listen on',
    ]);
  });

  it('PUBLIC_URL is kept as its origin', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://Sponge.example/app/' }).publicUrl).toBe(
      'https://sponge.example',
    );
    expect(problems({ PUBLIC_URL: 'ftp://sponge.example' })).toEqual([
      'PUBLIC_URL: expected the http(s) origin browsers use, got "ftp://sponge.example"',
    ]);
  });

  it('names every bad value in one message', () => {
    const p = problems({
      PORT: 'abc',
      DEMO: 'maybe',
      SESSION_TTL_SECONDS: '0',
      EXPLAIN_TOKEN_TTL_SECONDS: '601',
      TOKEN_SECRET: 'short',
      RECALL_MODE: 'loud',
      ACCEPT_RUNS_UNTIL: 'next tuesday',
      EMBEDDINGS_URL: 'ftp://x',
      EMBEDDINGS_DIMENSIONS: 'lots',
      EMBEDDINGS_BATCH_SIZE: '0',
      EMBEDDINGS_TIMEOUT_MS: '1.5',
      EMBEDDINGS_RETRIES: '-1',
      EMBEDDINGS_SEND_DIMENSIONS: 'perhaps',
      MEMORY_DATABASE_URL: 'postgres://x',
      MEMORY_DB_THREAD: 'fork',
      MEMORY_DB_SYNCHRONOUS: 'OFF',
      MCP_CALLS_PER_MINUTE: '0',
    });
    expect(p).toEqual([
      'PORT: expected an integer 0..65535, got "abc"',
      'DEMO: expected 1/true/on or 0/false/off, got "maybe"',
      'SESSION_TTL_SECONDS: expected an integer 1..31536000, got "0"',
      'EXPLAIN_TOKEN_TTL_SECONDS: expected an integer 1..600, got "601"',
      'TOKEN_SECRET: must be at least 32 characters',
      'RECALL_MODE: expected shadow, live or off',
      'EMBEDDINGS_URL: expected an http(s) URL of an OpenAI-compatible endpoint',
      'EMBEDDINGS_DIMENSIONS: expected an integer 1..65536, got "lots"',
      'EMBEDDINGS_BATCH_SIZE: expected an integer 1..2048, got "0"',
      'EMBEDDINGS_TIMEOUT_MS: expected an integer 1..600000, got "1.5"',
      'EMBEDDINGS_RETRIES: expected an integer 0..20, got "-1"',
      'EMBEDDINGS_SEND_DIMENSIONS: expected 1/true/on or 0/false/off, got "perhaps"',
      'ACCEPT_RUNS_UNTIL: expected an ISO date or date-time, got "next tuesday"',
      'MEMORY_DB_THREAD: expected worker or main',
      'MEMORY_DB_SYNCHRONOUS: expected FULL or NORMAL',
      'MEMORY_DATABASE_URL: expected a file:, libsql:, http(s): or ws(s): URL',
      'MCP_CALLS_PER_MINUTE: expected an integer 1..10000000, got "0"',
    ]);
    try {
      loadConfig({ PORT: '-1' });
    } catch (e) {
      expect((e as Error).message).toBe(
        'Invalid configuration:\n  - PORT: expected an integer 0..65535, got "-1"',
      );
    }
  });

  it('needs a model and a dimension with an embeddings URL, in every recall mode', () => {
    for (const RECALL_MODE of ['shadow', 'live', 'off']) {
      expect(problems({ RECALL_MODE, EMBEDDINGS_URL: 'https://embeddings.example' })).toEqual([
        'EMBEDDINGS_MODEL: required when EMBEDDINGS_URL is set',
        'EMBEDDINGS_DIMENSIONS: required when EMBEDDINGS_URL is set',
      ]);
    }
    expect(problems({ EMBEDDINGS_URL: 'http://[::1' })).toEqual([
      'EMBEDDINGS_URL: expected an http(s) URL of an OpenAI-compatible endpoint',
    ]);
  });

  it('EMBEDDINGS_SIMILARITY_FLOOR: a similarity 0..1, unset by default, anything else refused in words', () => {
    expect(loadConfig({}, '/srv').similarityFloor).toBeUndefined();
    for (const [v, floor] of [
      ['0.42', 0.42],
      ['.5', 0.5],
      ['0', 0],
      ['1', 1],
      [' 0.3 ', 0.3],
    ] as const)
      expect(loadConfig({ EMBEDDINGS_SIMILARITY_FLOOR: v }, '/srv').similarityFloor, v).toBe(floor);
    for (const v of ['1.01', '-0.1', '2', 'high', '0,4', '0x1', 'NaN', 'Infinity', '.'])
      expect(problems({ EMBEDDINGS_SIMILARITY_FLOOR: v }), v).toEqual([
        `EMBEDDINGS_SIMILARITY_FLOOR: expected a number 0..1, got ${JSON.stringify(v)}`,
      ]);
  });

  it('TRUSTED_PROXIES: addresses and CIDR ranges, each bad entry named; none by default', () => {
    expect(loadConfig({}, '/srv').trustedProxies).toEqual([]);
    expect(
      loadConfig({ TRUSTED_PROXIES: ' 127.0.0.1, 10.0.0.0/8,fd00::/8 ' }, '/srv').trustedProxies,
    ).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(problems({ TRUSTED_PROXIES: '127.0.0.1, proxy.internal, 10.0.0.0/40' })).toEqual([
      'TRUSTED_PROXIES: expected the comma-separated IP addresses (or CIDR ranges) of the proxies in front, got "proxy.internal", "10.0.0.0/40"',
    ]);
  });

  it('UPLOADS_IN_FLIGHT_PER_OWNER: 2 of the 4 places by default', () => {
    expect(loadConfig({}, '/srv')).toMatchObject({ uploadsInFlight: 4, uploadsInFlightPerOwner: 2 });
    expect(loadConfig({ UPLOADS_IN_FLIGHT_PER_OWNER: '1' }, '/srv').uploadsInFlightPerOwner).toBe(1);
    expect(problems({ UPLOADS_IN_FLIGHT_PER_OWNER: '0' })).toEqual([
      'UPLOADS_IN_FLIGHT_PER_OWNER: expected an integer 1..1000, got "0"',
    ]);
  });

  it('SIGNUPS_PER_ADDRESS: 10 in 15 minutes by default', () => {
    expect(loadConfig({}, '/srv').signUpsPerAddress).toBe(10);
    expect(loadConfig({ SIGNUPS_PER_ADDRESS: '50' }, '/srv').signUpsPerAddress).toBe(50);
    expect(problems({ SIGNUPS_PER_ADDRESS: '0' })).toEqual([
      'SIGNUPS_PER_ADDRESS: expected an integer 1..100000, got "0"',
    ]);
  });

  it('refuses one database for both memory and the application', () => {
    expect(problems({ MEMORY_DATABASE_URL: 'libsql://same', APP_DATABASE_URL: 'libsql://same' })).toEqual([
      'MEMORY_DATABASE_URL: must differ from APP_DATABASE_URL (agent memory lives in its own database)',
    ]);
  });

  it('generates secrets once into DATA_DIR with mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-config-'));
    try {
      const c = loadConfig({ DATA_DIR: dir });
      const secret = resolveTokenSecret(c);
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(resolveTokenSecret(c)).toBe(secret);
      expect(statSync(join(dir, 'token-secret')).mode & 0o777).toBe(0o600);
      const key = resolvePurgeKey(c);
      expect(readFileSync(join(dir, 'purge.key'), 'utf8').trim()).toBe(key);
      expect(statSync(join(dir, 'purge.key')).mode & 0o777).toBe(0o600);
      expect(key).not.toBe(secret);
      expect(resolveTokenSecret(loadConfig({ DATA_DIR: dir, TOKEN_SECRET: 'y'.repeat(40) }))).toBe(
        'y'.repeat(40),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the README's configuration table", () => {
  it('lists exactly the variables the schema reads', () => {
    const readme = readFileSync(
      resolve(dirname(fileURLToPath(import.meta.url)), '../../../README.md'),
      'utf8',
    );
    const lines = readme.split('\n');
    const heading = lines.findIndex((l) => l.trim() === '## Configuration');
    expect(heading, 'README.md has a "## Configuration" heading').not.toBe(-1);
    // The first table after the heading: its header row, the separator, then one row per line.
    const start = lines.findIndex((l, i) => i > heading && l.startsWith('|'));
    const table: string[] = [];
    for (let i = start; start > heading && i < lines.length && lines[i]!.startsWith('|'); i++)
      table.push(lines[i]!);
    const documented = new Set<string>();
    for (const row of table.slice(2)) {
      const firstCell = row.split('|')[1] ?? '';
      for (const [, name] of firstCell.matchAll(/`([^`]+)`/g)) {
        if (/^[A-Z][A-Z0-9_]*$/.test(name!)) documented.add(name!);
      }
    }
    const read = new Set(CONFIG_VARIABLES);
    expect({
      readButNotDocumented: [...read].filter((n) => !documented.has(n)),
      documentedButNotRead: [...documented].filter((n) => !read.has(n)),
    }).toEqual({ readButNotDocumented: [], documentedButNotRead: [] });
  });
});

describe('every embeddings variable reaches the adapter', () => {
  interface Seen {
    url: string;
    authorization: string | undefined;
    body: { input: string[]; model: string; dimensions?: number };
  }
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  /** A local OpenAI-compatible endpoint; `reply` answers the nth request (1-based). */
  async function endpoint(dims: number, reply?: (res: ServerResponse, n: number) => boolean) {
    const seen: Seen[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'];
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
        if (reply?.(res, seen.length)) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            data: body.input.map((_, index) => ({ index, embedding: new Array<number>(dims).fill(0.5) })),
          }),
        );
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    closers.push(
      () =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
    );
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
  }

  const adapterFor = (env: Record<string, string>) => openEmbeddings(loadConfig(env, '/srv').embeddings);

  it('local hashing without EMBEDDINGS_URL, sized by EMBEDDINGS_DIMENSIONS', async () => {
    expect(adapterFor({}).id).toBe('local-hash-v1:256');
    const adapter = adapterFor({ EMBEDDINGS_DIMENSIONS: '128' });
    expect(adapter.id).toBe('local-hash-v1:128');
    expect((await adapter.embed(['coral reef']))[0]).toHaveLength(128);
  });

  it('URL, API key, model, dimensions, batch size and sending the dimension', async () => {
    const server = await endpoint(4);
    const env = {
      EMBEDDINGS_URL: server.url,
      EMBEDDINGS_API_KEY: 'sk-config-test',
      EMBEDDINGS_MODEL: 'tiny-embed',
      EMBEDDINGS_DIMENSIONS: '4',
      EMBEDDINGS_BATCH_SIZE: '2',
    };
    const adapter = adapterFor(env);
    expect(adapter.dimensions).toBe(4);
    expect(await adapter.embed(['a', 'b', 'c', 'd', 'e'])).toHaveLength(5);
    expect(server.seen.map((s) => s.body.input)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(server.seen[0]).toEqual({
      url: '/v1/embeddings',
      authorization: 'Bearer sk-config-test',
      body: { input: ['a', 'b'], model: 'tiny-embed', dimensions: 4 },
    });

    await adapterFor({ ...env, EMBEDDINGS_SEND_DIMENSIONS: 'false' }).embed(['f']);
    expect(server.seen[3]!.body).toEqual({ input: ['f'], model: 'tiny-embed' });
  });

  it('EMBEDDINGS_RETRIES and EMBEDDINGS_TIMEOUT_MS', async () => {
    // Two overloaded answers (retry-after-ms: 0 keeps the test fast), then success.
    const flaky = await endpoint(4, (res, n) => {
      if (n > 2) return false;
      res.writeHead(503, { 'retry-after-ms': '0' });
      res.end();
      return true;
    });
    const env = { EMBEDDINGS_URL: flaky.url, EMBEDDINGS_MODEL: 'm', EMBEDDINGS_DIMENSIONS: '4' };
    await expect(adapterFor({ ...env, EMBEDDINGS_RETRIES: '1' }).embed(['x'])).rejects.toMatchObject({
      code: 'http',
      status: 503,
      attempts: 2,
    });
    expect(flaky.seen).toHaveLength(2);
    expect(await adapterFor({ ...env, EMBEDDINGS_RETRIES: '1' }).embed(['x'])).toHaveLength(1);
    expect(flaky.seen).toHaveLength(3);

    // Never answers: the per-request timeout ends the attempt.
    const silent = await endpoint(4, () => true);
    const started = performance.now();
    await expect(
      adapterFor({
        ...env,
        EMBEDDINGS_URL: silent.url,
        EMBEDDINGS_TIMEOUT_MS: '50',
        EMBEDDINGS_RETRIES: '0',
      }).embed(['x']),
    ).rejects.toMatchObject({ code: 'timeout', attempts: 1 });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('SIGNUP (issue 26)', () => {
  it('is open on the embedded setup, closed with a remote app database, and only open or closed', () => {
    expect(loadConfig({ DATA_DIR: '/tmp/x' }).signUp).toBe('open');
    expect(loadConfig({ DATA_DIR: '/tmp/x', APP_DATABASE_URL: 'http://127.0.0.1:8080' }).signUp).toBe(
      'closed',
    );
    expect(
      loadConfig({ DATA_DIR: '/tmp/x', APP_DATABASE_URL: 'http://127.0.0.1:8080', SIGNUP: 'open' }).signUp,
    ).toBe('open');
    expect(loadConfig({ DATA_DIR: '/tmp/x', SIGNUP: 'closed' }).signUp).toBe('closed');
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', SIGNUP: 'maybe' })).toThrow(
      /SIGNUP: expected 'open' or 'closed'/,
    );
  });
});
