/**
 * What every flow needs besides the browser: the servers the config started, owners signed
 * in over HTTP (the same tRPC API the web app calls), fresh chat runs driven by the real agent
 * client (@sponge/agent), the purge worker, and screenshots kept as artifacts.
 *
 * Tests create their own runs and tell them apart by a unique opening message (`chat.say`), so
 * they pass in any order and next to each other on the same demo document.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect } from '@playwright/test';
import type { BrowserContext, Page, TestInfo } from '@playwright/test';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@sponge/api';
import { createMemoryTools, isMemoryToolError } from '@sponge/agent';
import type { MemoryToolReason, MemoryTools } from '@sponge/agent';

export interface ServerInfo {
  port: number;
  dataDir: string;
  ttlSeconds?: number;
}

interface Servers {
  main: ServerInfo;
  shortTtl: ServerInfo & { ttlSeconds: number };
  /** The hosted runtime runs beside this server and answers its owners' questions. */
  chat: ServerInfo;
  /** DEMO off, SIGNUP open: real accounts, made on the sign-up page. */
  accounts: ServerInfo;
  /** DEMO off, SIGNUP closed: accounts only from the users CLI. */
  closed: ServerInfo;
}

function readServers(): Servers {
  const raw = process.env.SPONGE_E2E_SERVERS;
  if (!raw) throw new Error('SPONGE_E2E_SERVERS is not set: run these tests through playwright.config.ts');
  return JSON.parse(raw) as Servers;
}

export const servers = readServers();
/** The purge worker's credential; playwright.config.ts gives both servers the same one. */
const PURGE_KEY = 'e2e-purge-key-0123456789abcdef';
/** RUNTIME_KEY as playwright.config.ts gives it to the API: these tests play the hosted runtime. */
const RUNTIME_KEY = 'e2e-runtime-key-0123456789abcdef';
export const REEF_TITLE = 'Reef recovery after the 2016 bleaching';
export const ADA = 'Ada Lovelace';
export const GRACE = 'Grace Hopper';
export const ROSALIND = 'Rosalind Franklin';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const originOf = (server: ServerInfo): string => `http://127.0.0.1:${server.port}`;

export type Api = ReturnType<typeof createTRPCClient<AppRouter>>;

/** A tRPC client over plain HTTP, with a bearer token when given. */
export function apiClient(server: ServerInfo, token?: string): Api {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${originOf(server)}/trpc`,
        headers: () => (token ? { authorization: `Bearer ${token}` } : {}),
      }),
    ],
  });
}

export interface User {
  id: string;
  name: string;
  token: string;
  api: Api;
  server: ServerInfo;
}

/** Signs a demo user in over HTTP (`auth.demoUsers` → `auth.login`). */
export async function login(name: string, server: ServerInfo = servers.main): Promise<User> {
  const anonymous = apiClient(server);
  const user = (await anonymous.auth.demoUsers.query()).find((u) => u.name === name);
  if (!user) throw new Error(`no demo user named ${name} on port ${server.port}`);
  const { userToken } = await anonymous.auth.login.mutate({ userId: user.id });
  return { id: user.id, name: user.name, token: userToken, api: apiClient(server, userToken), server };
}

/**
 * Signs the browser context in as the demo user, as the sign-in page's button does
 * (`auth.login` from the app's own origin): the API sets its signed, HttpOnly session cookie in
 * the context. Cookies are per host, not per port: a context talks to one server as one user.
 */
export async function signInBrowser(context: BrowserContext, user: User): Promise<void> {
  const origin = originOf(user.server);
  const response = await context.request.post(`${origin}/trpc/auth.login`, {
    data: { userId: user.id },
    headers: { origin },
  });
  expect(response.status(), await response.text()).toBe(200);
}

/** A document of the user's library by its title. */
export async function documentTitled(user: User, title: string) {
  const doc = (await user.api.documents.list.query()).find((d) => d.title === title);
  if (!doc) throw new Error(`${user.name} cannot see a document titled ${title}`);
  return doc;
}

/** A short random suffix for note names and labels, valid in a slug. */
export const unique = (): string => randomUUID().replaceAll('-', '').slice(0, 10);

export interface ChatRun {
  runId: string;
  runToken: string;
  sessionId: string;
  documentId: string;
  /** The owner's opening message: tells this run's transcript apart on the document page. */
  label: string;
  /** The agent client for this run, on the same server. */
  agent: MemoryTools;
}

/**
 * A fresh chat run (its own session): the owner asks a unique question (`chat.ask`), and the test,
 * standing in for the hosted runtime, claims the run with RUNTIME_KEY to drive its agent.
 */
export async function startChatRun(owner: User, documentId: string, topic: string): Promise<ChatRun> {
  const label = `e2e ${topic} ${unique()}`;
  const asked = await owner.api.chat.ask.mutate({ documentId, text: label });
  if (!asked.sessionId) throw new Error('a chat run was accepted without a working-memory session');
  const { runToken, agent } = await claimRun(owner.server, asked.runId);
  return { runId: asked.runId, runToken, sessionId: asked.sessionId, documentId, label, agent };
}

/**
 * Ada signed in over HTTP, the demo's reef document in her library, and a fresh chat run of hers
 * on it (startChatRun): where most flows of the panel, the transcript and review start.
 */
export async function adaRunOnReef(topic: string) {
  const ada = await login(ADA);
  const reef = await documentTitled(ada, REEF_TITLE);
  return { ada, reef, run: await startChatRun(ada, reef.id, topic) };
}

/** Claims a run with RUNTIME_KEY, as the hosted runtime does: the test then plays its agent. */
export async function claimRun(
  server: ServerInfo,
  runId: string,
): Promise<{ runToken: string; agent: MemoryTools }> {
  const claim = await apiClient(server, RUNTIME_KEY).runtime.claim.mutate({ runId });
  const agent = createMemoryTools({ url: originOf(server), runToken: claim.runToken, retries: 0 });
  return { runToken: claim.runToken, agent };
}

export const panelPath = (documentId: string, sessionId?: string): string =>
  `/documents/${encodeURIComponent(documentId)}/memory${sessionId ? `?session=${encodeURIComponent(sessionId)}` : ''}`;

/** Expects the promise to fail with a MemoryToolError of that reason; returns the error. */
export async function expectToolRefusal(call: Promise<unknown>, reason: MemoryToolReason) {
  const outcome = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  expect(outcome.ok, `expected a refusal (${reason}), got ${JSON.stringify(outcome)}`).toBe(false);
  if (outcome.ok) throw new Error('unreachable');
  expect(isMemoryToolError(outcome.error), String(outcome.error)).toBe(true);
  if (!isMemoryToolError(outcome.error)) throw outcome.error;
  expect(outcome.error.reason).toBe(reason);
  return outcome.error;
}

/** The tRPC error code of a failed API call (`NOT_FOUND`, …). */
export async function errorCodeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'no error',
    (error: unknown) => {
      const data = (error as { data?: { code?: string } } | null)?.data;
      return data?.code ?? String(error);
    },
  );
}

/** A command of the API package (`pnpm --filter @sponge/api <script> -- …`) on the server's data. */
function apiCommand(
  server: ServerInfo,
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn('pnpm', ['--silent', '--filter', '@sponge/api', script, '--', ...args], {
      cwd: repoRoot,
      env: { ...process.env, DATA_DIR: server.dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });
}

/** One purge pass (`pnpm --filter @sponge/api purge -- --once`) over the server's data. */
export function purgeOnce(server: ServerInfo): Promise<{ code: number | null; output: string }> {
  return apiCommand(server, 'purge', ['--once'], { PURGE_KEY, LOG_LEVEL: 'info' });
}

/**
 * The users CLI (`pnpm --filter @sponge/api users -- …`) on the server's data, as its operator
 * runs it beside the running server.
 */
export function usersCli(
  server: ServerInfo,
  args: string[],
): Promise<{ code: number | null; output: string }> {
  return apiCommand(server, 'users', args, { LOG_LEVEL: 'warn' });
}

/** A new person's details: a unique address, so tests never meet each other's accounts. */
export function newPerson(name: string): { name: string; email: string; password: string } {
  const id = unique();
  return {
    name,
    email: `${name.split(' ')[0]?.toLowerCase()}.${id}@example.org`,
    password: `correct horse ${id}`,
  };
}

/** Signs up on the sign-up page, from the sign-in page; ends in the library. */
export async function signUpInBrowser(
  page: Page,
  server: ServerInfo,
  person: { name: string; email: string; password: string },
): Promise<void> {
  await page.goto(`${originOf(server)}/signin`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create an account' })).toBeVisible();
  await page.getByLabel('Name').fill(person.name);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Library' })).toBeVisible();
}

/** Signs in on the sign-in page, where the page is now (it keeps `?next=`). */
export async function signInWithPassword(
  page: Page,
  person: { email: string; password: string },
): Promise<void> {
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The account menu in the header, opened. */
export async function openAccountMenu(page: Page, name: string) {
  await page.getByRole('button', { name: `Account: ${name}` }).click();
  const menu = page.getByRole('menu');
  await expect(menu).toBeVisible();
  return menu;
}

/**
 * A full-page screenshot kept after the run: under `test-results/screenshots/` (a stable place
 * for reports and CI artifacts) and attached to the test's report entry.
 */
export async function keepScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<string> {
  const dir = join(repoRoot, 'e2e', 'test-results', 'screenshots');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  await testInfo.attach(name, { path, contentType: 'image/png' });
  return path;
}

/** The panel's two lists, found the way a screen-reader user finds them. */
export function panelSections(page: Page) {
  return {
    notes: page.getByRole('region', { name: 'Working notes' }),
    reviewed: page.getByRole('region', { name: 'Reviewed knowledge in view' }),
  };
}

/** Matches a string literally inside a RegExp. */
export const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The first 4 hex digits and "..." (SPEC §3). */
export const shortDigest = (digest: string): string => `${digest.slice(0, 4)}...`;

/** Uploads a PDF as the owner signed in on `page` (its cookie), as the library's dialog does. */
export async function uploadPdf(
  page: Page,
  pdf: Uint8Array,
): Promise<{ id: string; pages: number; characters: number }> {
  const origin = new URL(page.url()).origin;
  const uploaded = await page.request.post(`${origin}/trpc/documents.upload`, {
    multipart: {
      file: { name: `reef-log-${unique()}.pdf`, mimeType: 'application/pdf', buffer: Buffer.from(pdf) },
    },
    headers: { origin },
  });
  expect(uploaded.status(), await uploaded.text()).toBe(200);
  return ((await uploaded.json()) as { result: { data: { id: string; pages: number; characters: number } } })
    .result.data;
}

/**
 * The serious and critical accessibility violations axe finds on the page, against WCAG 2.1 AA
 * and best practice; a handful of passing checks guard against judging a blank page.
 */
export async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  expect(results.passes.length).toBeGreaterThan(5);
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target.join(' ')) }));
}
