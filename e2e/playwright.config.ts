// End-to-end tests drive the real built app (API + web from one origin) on fresh temp data in
// Debian's Chromium. Five servers: the usual one, one whose sessions live a few seconds so the
// expired → purged flow can be seen without waiting a day, one with the hosted runtime beside
// it, so an owner's question is answered as in production, and two with DEMO off for real
// accounts (sign-up open, sign-up closed). The runtime has a server of
// its own because on the usual one the tests play the runtime themselves (they claim runs with
// RUNTIME_KEY and count exactly the notes they write): a real one would race them for their runs.
import { defineConfig } from '@playwright/test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `pnpm --filter @sponge/agent runtime` is the hosted runtime's command. The chat flow cannot run
// without it, and a flow that skips itself reads as passed in a summary: no runtime, no run.
const agentScripts = (
  JSON.parse(
    readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../packages/agent/package.json'), 'utf8'),
  ) as { scripts?: Record<string, string> }
).scripts;
if (typeof agentScripts?.runtime !== 'string')
  throw new Error('packages/agent has no "runtime" script: the e2e chat flow needs the hosted runtime');

const basePort = 43000 + Math.floor(Math.random() * 4000);
export const servers = {
  main: { port: basePort, dataDir: mkdtempSync(join(tmpdir(), 'sponge-e2e-')) },
  shortTtl: { port: basePort + 1, dataDir: mkdtempSync(join(tmpdir(), 'sponge-e2e-ttl-')), ttlSeconds: 4 },
  chat: {
    port: basePort + 2,
    dataDir: mkdtempSync(join(tmpdir(), 'sponge-e2e-chat-')),
    // extracting.spec.ts waits for a slow PDF to be refused at this limit: the 30 s default would
    // make it the slowest test of all. Long enough for its steps while the PDF is read, under load.
    env: { UPLOAD_READ_SECONDS: '12' },
  },
  // Real accounts, as a server that is not a demo runs: sign-up open, then closed (accounts made
  // with the users CLI).
  accounts: {
    port: basePort + 3,
    dataDir: mkdtempSync(join(tmpdir(), 'sponge-e2e-accounts-')),
    // Every test's browser signs up from 127.0.0.1: more than one address's sign-ups in 15 minutes.
    env: { DEMO: '0', SIGNUP: 'open', SIGNUPS_PER_ADDRESS: '1000' },
  },
  closed: {
    port: basePort + 4,
    dataDir: mkdtempSync(join(tmpdir(), 'sponge-e2e-closed-')),
    env: { DEMO: '0', SIGNUP: 'closed' },
  },
};
// Workers are separate processes: they read the servers from the environment, not this module.
process.env.SPONGE_E2E_SERVERS ??= JSON.stringify(servers);
const chosen = JSON.parse(process.env.SPONGE_E2E_SERVERS) as typeof servers;

const purgeKey = 'e2e-purge-key-0123456789abcdef';
// The hosted runtime's credential: the tests stand in for the runtime and claim runs with it.
const runtimeKey = 'e2e-runtime-key-0123456789abcdef';
const start = (s: { port: number; dataDir: string; ttlSeconds?: number; env?: Record<string, string> }) => ({
  command: 'pnpm --silent --filter @sponge/api start',
  url: `http://127.0.0.1:${s.port}/trpc/health`,
  reuseExistingServer: false,
  timeout: 60_000,
  stdout: 'ignore' as const,
  stderr: 'pipe' as const,
  env: {
    PORT: String(s.port),
    DATA_DIR: s.dataDir,
    DEMO: '1',
    PURGE_KEY: purgeKey,
    RUNTIME_KEY: runtimeKey,
    LOG_LEVEL: 'warn',
    ...(s.ttlSeconds ? { SESSION_TTL_SECONDS: String(s.ttlSeconds) } : {}),
    ...s.env,
  },
});
// No URL to wait on: the runtime waits for the API's health itself, and the entries start in
// order, so its API is already up.
const runtime = (s: { port: number; dataDir: string }) => ({
  command: 'pnpm --silent --filter @sponge/agent runtime',
  reuseExistingServer: false,
  stdout: 'ignore' as const,
  stderr: 'pipe' as const,
  env: {
    SPONGE_API_URL: `http://127.0.0.1:${s.port}`,
    RUNTIME_KEY: runtimeKey,
    DATA_DIR: s.dataDir,
    // Empty: the scripted agent answers offline, whatever model the shell may have configured.
    AGENT_LLM_URL: '',
    LOG_LEVEL: 'warn',
  },
});

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results/artifacts',
  forbidOnly: !!process.env.CI,
  retries: 0,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: './test-results/results.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${chosen.main.port}`,
    // Dates read in the reader's locale (UI.md): the flows read as a British reader, "14:02 today".
    locale: 'en-GB',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
  webServer: [
    start(chosen.main),
    start(chosen.shortTtl),
    start(chosen.chat),
    runtime(chosen.chat),
    start(chosen.accounts),
    start(chosen.closed),
  ],
});
