/**
 * The `users` command (SPEC §6c) on real database files: an account it adds signs in on a
 * server with SIGNUP=closed; disable signs it out everywhere and stops its keys; the password
 * comes from --password, or stdin when the command runs as its own process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestServer, TEST_RUNTIME_KEY, TEST_TOKEN_SECRET } from '../testing/harness.ts';
import type { TestServer } from '../testing/harness.ts';
import { runUsers } from './users-command.ts';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** The command's environment: the server's own databases (files, or libSQL servers in the sqld run). */
const envOf = (s: TestServer) => ({
  DATA_DIR: s.dir,
  APP_DATABASE_URL: s.appUrl,
  MEMORY_DATABASE_URL: s.memoryUrl,
  TOKEN_SECRET: TEST_TOKEN_SECRET,
  LOG_LEVEL: 'silent',
});

async function users(s: TestServer, argv: string[], password = '') {
  let out = '';
  let err = '';
  const code = await runUsers(argv, {
    env: envOf(s),
    cwd: s.dir,
    out: { write: (text: string) => (out += text) },
    err: { write: (text: string) => (err += text) },
    readPassword: () => Promise.resolve(password),
  });
  return { code, out, err };
}

async function signIn(s: TestServer, email: string, password: string) {
  return s.call('mutation', 'auth.signIn', { email, password });
}

/** Signs in like a browser; the session's token, as its cookie carries it before the signature. */
async function sessionOf(s: TestServer, email: string, password: string): Promise<string> {
  const res = await fetch(`${s.url}/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const value = /sponge_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!res.ok || !value) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  return decodeURIComponent(value).split('.')[0]!;
}

describe('users add | list | disable | enable', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ SIGNUP: 'closed', DEMO: '0' });
    const added = await users(s, [
      'add',
      '--email',
      'Lise@Example.org',
      '--name',
      'Lise Meitner',
      '--password',
      'fission 1938 Berlin',
    ]);
    expect(added).toMatchObject({ code: 0, err: '' });
    expect(added.out).toMatch(/^added lise@example\.org \(user_[0-9a-f]{32}\)\n$/);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('the added account signs in where sign-up is closed', async () => {
    expect(
      (
        await s.call('mutation', 'auth.signUp', {
          name: 'X',
          email: 'x@example.org',
          password: 'long enough pw',
        })
      ).status,
    ).toBe(403);
    const r = await signIn(s, 'lise@example.org', 'fission 1938 Berlin');
    expect(r.status).toBe(200);
    expect(r.data.user).toMatchObject({ name: 'Lise Meitner', email: 'lise@example.org' });
  });

  it('refuses a taken email, a short password, a missing name; nothing is added', async () => {
    expect(
      (
        await users(s, [
          'add',
          '--email',
          'lise@example.org',
          '--name',
          'Again',
          '--password',
          'another long one',
        ])
      ).code,
    ).toBe(1);
    const short = await users(s, [
      'add',
      '--email',
      'new@example.org',
      '--name',
      'New',
      '--password',
      'short',
    ]);
    expect(short.code).toBe(2);
    expect(short.err).toMatch(/at least 10 characters/);
    expect((await users(s, ['add', '--email', 'new@example.org', '--password', 'long enough pw'])).code).toBe(
      2,
    );
    expect(
      (await users(s, ['add', '--email', 'not-an-email', '--name', 'N', '--password', 'long enough pw']))
        .code,
    ).toBe(2);
    expect((await users(s, ['frobnicate'])).code).toBe(2);
    expect((await users(s, ['list'])).out).not.toMatch(/new@example\.org/);
  });

  it('takes the password from the prompt when --password is absent', async () => {
    const r = await users(
      s,
      ['add', '--email', 'prompt@example.org', '--name', 'Prompted'],
      'typed at the prompt',
    );
    expect(r.code).toBe(0);
    expect((await signIn(s, 'prompt@example.org', 'typed at the prompt')).status).toBe(200);
  });

  it('disable: sessions and API keys stop at once, sign-in says disabled only with the right password; enable undoes it', async () => {
    await users(s, [
      'add',
      '--email',
      'otto@example.org',
      '--name',
      'Otto Hahn',
      '--password',
      'radiochemistry',
    ]);
    // A session, read back through its cookie as a browser holds it.
    const meByCookie = async (c: string) =>
      (
        (await (await fetch(`${s.url}/trpc/auth.me`, { headers: { cookie: c } })).json()) as {
          result: { data: unknown };
        }
      ).result.data;
    const setCookie = await fetch(`${s.url}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'otto@example.org', password: 'radiochemistry' }),
    });
    const sessionCookie = /sponge_session=[^;]+/.exec(setCookie.headers.get('set-cookie') ?? '')?.[0] ?? '';
    expect(await meByCookie(sessionCookie)).toMatchObject({ email: 'otto@example.org' });
    const key = await fetch(`${s.url}/trpc/auth.createApiKey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: sessionCookie, 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ label: 'my agent' }),
    });
    const apiKey = ((await key.json()) as { result: { data: { apiKey: string } } }).result.data.apiKey;
    expect(await s.client(apiKey).auth.me.query()).toMatchObject({ email: 'otto@example.org' });

    expect(await users(s, ['disable', '--email', 'otto@example.org'])).toMatchObject({
      code: 0,
      out: 'disabled otto@example.org\n',
    });
    expect(await meByCookie(sessionCookie)).toBeNull();
    expect(await s.client(apiKey).auth.me.query()).toBeNull();
    const right = await signIn(s, 'otto@example.org', 'radiochemistry');
    expect([right.status, right.error?.message]).toEqual([403, 'This account is disabled.']);
    const wrong = await signIn(s, 'otto@example.org', 'a wrong password');
    expect([wrong.status, wrong.error?.message]).toEqual([401, 'Wrong email or password.']);
    expect((await users(s, ['list'])).out).toMatch(/^otto@example\.org\tOtto Hahn\t\S+\tdisabled\t/m);

    expect((await users(s, ['enable', '--email', 'otto@example.org'])).code).toBe(0);
    expect(await s.client(apiKey).auth.me.query()).toMatchObject({ email: 'otto@example.org' });
    expect((await signIn(s, 'otto@example.org', 'radiochemistry')).status).toBe(200);
    expect((await users(s, ['disable', '--email', 'nobody@example.org'])).code).toBe(1);
  });

  it("disable finishes the account's live runs; enable does not bring them back", async () => {
    await users(s, [
      'add',
      '--email',
      'emmy@example.org',
      '--name',
      'Emmy Noether',
      '--password',
      'invariants 1918',
    ]);
    const emmy = await sessionOf(s, 'emmy@example.org', 'invariants 1918');
    const { id: documentId } = await s.client(emmy).documents.add.mutate({
      title: 'Symmetries',
      text: 'Every symmetry of the action has a conserved quantity.',
    });
    const claimed = await s.acceptRun(emmy, { documentId, mode: 'chat' });
    const staged = await s.client(emmy).runs.accept.mutate({ documentId, mode: 'staged' });
    const runtime = s.client(TEST_RUNTIME_KEY).runtime;
    expect((await runtime.pending.query()).map((p) => p.runId)).toContain(staged.runId);

    expect((await users(s, ['disable', '--email', 'emmy@example.org'])).code).toBe(0);
    const whileDisabled = await errorOf(s.client(claimed.runToken).agent.document.query());
    expect([whileDisabled.code, whileDisabled.reason]).toEqual(['UNAUTHORIZED', 'unauthenticated']);

    expect((await users(s, ['enable', '--email', 'emmy@example.org'])).code).toBe(0);
    expect((await runtime.pending.query()).map((p) => p.runId)).not.toContain(staged.runId);
    const again = await errorOf(runtime.claim.mutate({ runId: staged.runId }));
    expect([again.code, again.reason]).toEqual(['NOT_FOUND', 'not_found']);
    const finished = await errorOf(s.client(claimed.runToken).agent.document.query());
    expect([finished.code, finished.reason, finished.message]).toEqual([
      'FORBIDDEN',
      'forbidden',
      'This run has finished; its token no longer opens the tools.',
    ]);
    const owner = await sessionOf(s, 'emmy@example.org', 'invariants 1918');
    const runs = await s.client(owner).runs.list.query({ documentId });
    expect(runs.map((r) => [r.id, r.status, r.finishedAt !== null])).toEqual(
      expect.arrayContaining([
        [claimed.runId, 'finished', true],
        [staged.runId, 'finished', true],
      ]),
    );
  });

  it('as its own process, reads the password from stdin', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/bin/users-main.ts',
        'add',
        '--email',
        'stdin@example.org',
        '--name',
        'From Stdin',
      ],
      {
        cwd: apiRoot,
        env: { ...process.env, ...envOf(s) },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.end('piped in password\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toMatch(/^added stdin@example\.org/);
    expect((await signIn(s, 'stdin@example.org', 'piped in password')).status).toBe(200);
  });
});

describe('users on a DATA_DIR no API has opened yet', () => {
  it('makes the application database and its tables itself (0600)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sponge-users-fresh-'));
    const io = (out: string[]) => ({
      env: { DATA_DIR: dir, TOKEN_SECRET: TEST_TOKEN_SECRET, LOG_LEVEL: 'silent' },
      cwd: dir,
      out: { write: (s: string) => out.push(s) },
      err: { write: (s: string) => out.push(s) },
      readPassword: () => Promise.resolve('first account here'),
    });
    const out: string[] = [];
    expect(await runUsers(['add', '--email', 'first@example.org', '--name', 'First'], io(out))).toBe(0);
    expect(await runUsers(['list'], io(out))).toBe(0);
    expect(out.join('')).toMatch(/^first@example\.org\tFirst\t\S+\tactive\t/m);
    expect(statSync(join(dir, 'sponge.db')).mode & 0o777).toBe(0o600);
  });
});
