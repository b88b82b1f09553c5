import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorReply, startFakeLlm, textReply } from '../testing/fake-llm.ts';
import type { FakeLlm } from '../testing/fake-llm.ts';
import { startRealApi } from '../testing/real-api.ts';
import type { RealApi } from '../testing/real-api.ts';
import { apiUrlFrom, inputTokensFrom, main, runtimeKeyPath, supportChecksFrom } from './main.ts';
import { SCRIPTED_AGENT_BANNER } from './scripted-agent.ts';

const RUNTIME_KEY = 'main-test-runtime-key-0123456789abcdef';
const REEF = 'doc-reef-recovery-2016';
/** The command's entry, run by Node as it is (type stripping): what `pnpm … runtime` builds and runs. */
const MAIN_ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));

let api: RealApi;
let dir: string;

beforeAll(async () => {
  api = await startRealApi({ RUNTIME_KEY });
  dir = mkdtempSync(join(tmpdir(), 'sponge-runtime-main-'));
});
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

function io(signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (t: string) => void out.push(t),
      err: (t: string) => void err.push(t),
      ...(signal ? { signal } : {}),
    },
  };
}

async function agentReplies(runId: string): Promise<string[]> {
  const items = await api.owner.chat.transcript.query({ runId });
  return items.flatMap((i) => (i.type === 'message' && i.role === 'agent' ? [i.text] : []));
}

describe('the runtime command', () => {
  it('prints its help, and refuses an unknown flag or a model without a name with the usage line', async () => {
    const help = io();
    expect(await main(['--', '--help'], {}, help.io, dir)).toBe(0);
    expect(help.out.join('')).toContain('usage: pnpm --filter @sponge/agent runtime [-- --once]');
    expect(help.out.join('')).toContain('AGENT_LLM_URL');

    const bad = io();
    expect(await main(['--bogus'], {}, bad.io, dir)).toBe(2);
    expect(bad.err.join('')).toMatch(/Unknown option '--bogus'[\s\S]*usage:/);

    const noModel = io();
    expect(
      await main(['--once'], { AGENT_LLM_URL: 'http://127.0.0.1:9/v1', RUNTIME_KEY }, noModel.io, dir),
    ).toBe(2);
    expect(noModel.err.join('')).toContain('AGENT_LLM_MODEL: required when AGENT_LLM_URL is set');
  });

  it('reads the model input budget from AGENT_INPUT_TOKENS, and refuses one that is not a sane count', async () => {
    expect(inputTokensFrom({})).toBe(24_000);
    expect(inputTokensFrom({ AGENT_INPUT_TOKENS: ' 100000 ' })).toBe(100_000);
    const bad = io();
    const env = {
      AGENT_LLM_URL: 'http://127.0.0.1:9/v1',
      AGENT_LLM_MODEL: 'm',
      AGENT_INPUT_TOKENS: '12k',
      RUNTIME_KEY,
    };
    expect(await main(['--once'], env, bad.io, dir)).toBe(2);
    expect(bad.err.join('')).toContain(
      'AGENT_INPUT_TOKENS: expected a whole number from 2000 to 2000000, got 12k',
    );
  });

  it('reads the support checks a turn may make from AGENT_SUPPORT_CHECKS: 8 by default, 0 for none', async () => {
    expect(supportChecksFrom({})).toBe(8);
    expect(supportChecksFrom({ AGENT_SUPPORT_CHECKS: ' 0 ' })).toBe(0);
    expect(supportChecksFrom({ AGENT_SUPPORT_CHECKS: '20' })).toBe(20);
    const bad = io();
    const env = {
      AGENT_LLM_URL: 'http://127.0.0.1:9/v1',
      AGENT_LLM_MODEL: 'm',
      AGENT_SUPPORT_CHECKS: '-1',
      RUNTIME_KEY,
    };
    expect(await main(['--once'], env, bad.io, dir)).toBe(2);
    expect(bad.err.join('')).toContain('AGENT_SUPPORT_CHECKS: expected a whole number from 0 to 64, got -1');
    const help = io();
    expect(await main(['--help'], {}, help.io, dir)).toBe(0);
    expect(help.out.join('')).toContain('AGENT_SUPPORT_CHECKS');
  });

  it('finds the API and the key where the API keeps them', () => {
    expect(apiUrlFrom({})).toBe('http://127.0.0.1:3000');
    expect(apiUrlFrom({ PORT: '4100' })).toBe('http://127.0.0.1:4100');
    expect(apiUrlFrom({ SPONGE_API_URL: 'http://api.example:80/', PORT: '4100' })).toBe('http://api.example');
    expect(runtimeKeyPath({}, '/srv/app')).toBe('/srv/app/data/runtime.key');
    expect(runtimeKeyPath({ INIT_CWD: '/home/me', DATA_DIR: 'state' }, '/srv/app')).toBe(
      '/home/me/state/runtime.key',
    );
    expect(runtimeKeyPath({ DATA_DIR: '/var/sponge' }, '/srv/app')).toBe('/var/sponge/runtime.key');
  });

  it('--once without a key says where it looked, and exits 2', async () => {
    const run = io();
    expect(
      await main(['--once'], { DATA_DIR: join(dir, 'empty'), SPONGE_API_URL: api.url }, run.io, dir),
    ).toBe(2);
    expect(run.err.join('')).toContain(`no RUNTIME_KEY, and no ${join(dir, 'empty', 'runtime.key')}`);
  });

  it('--once answers what is pending with the key from DATA_DIR/runtime.key, then exits 0', async () => {
    writeFileSync(join(dir, 'runtime.key'), `${RUNTIME_KEY}\n`, { mode: 0o600 });
    const { runId } = await api.owner.chat.ask.mutate({
      documentId: REEF,
      text: 'How many sites were resurveyed?',
    });
    const run = io();
    expect(await main(['--', '--once'], { DATA_DIR: dir, SPONGE_API_URL: api.url }, run.io, '/')).toBe(0);
    expect(run.err.join('')).toMatch(
      /"name":"sponge-runtime","runId":"\S+","mode":"chat","outcome":"answered","ms":\d+,"msg":"answered run \S+ \(chat\) in \d+ ms"\}\n/,
    );
    expect(run.err.join('')).toContain('1 pending, 1 answered, 0 failed');
    const replies = await agentReplies(runId);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.startsWith(SCRIPTED_AGENT_BANNER)).toBe(true);
    expect(replies[0]).toContain('We resurveyed 112 sites');
  });

  it('with AGENT_LLM_URL the model answers, through the same runtime path', async () => {
    const llm = await startFakeLlm();
    try {
      llm.script(textReply('Twelve of the sites recovered, says the model.'));
      const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: 'How many recovered?' });
      const env = {
        RUNTIME_KEY,
        SPONGE_API_URL: api.url,
        AGENT_LLM_URL: llm.url,
        AGENT_LLM_MODEL: 'fake-model',
        AGENT_LLM_API_KEY: 'sk-main-test-key',
      };
      expect(await main(['--once'], env, io().io, dir)).toBe(0);
      expect(await agentReplies(runId)).toEqual(['Twelve of the sites recovered, says the model.']);
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]!.headers.authorization).toBe('Bearer sk-main-test-key');
    } finally {
      await llm.close();
    }
  });

  it('--once exits 1 when the API does not answer', async () => {
    const run = io();
    expect(await main(['--once'], { RUNTIME_KEY, SPONGE_API_URL: 'http://127.0.0.1:9' }, run.io, dir)).toBe(
      1,
    );
    expect(run.err.join('')).toContain('could not ask the API at http://127.0.0.1:9 for pending runs');
  });

  it('polls until stopped, answering turns as they come', async () => {
    const stop = new AbortController();
    const run = io(stop.signal);
    const exited = main([], { RUNTIME_KEY, SPONGE_API_URL: api.url }, run.io, dir);
    const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: 'What limited recovery?' });
    await expect.poll(() => agentReplies(runId), { timeout: 15_000 }).toHaveLength(1);
    stop.abort();
    expect(await exited).toBe(0);
    const log = run.err.join('');
    expect(log).toContain(`answering runs at ${api.url} with the scripted agent`);
    expect(log).toMatch(/"msg":"stopped"\}\n$/);
  });

  it('finds the API at a SPONGE_API_URL given with /trpc and a trailing slash, as the tools do', async () => {
    const stop = new AbortController();
    const run = io(stop.signal);
    const exited = main([], { RUNTIME_KEY, SPONGE_API_URL: `${api.url}/trpc/` }, run.io, dir);
    const { runId } = await api.owner.chat.ask.mutate({ documentId: REEF, text: 'Where were the sites?' });
    await expect.poll(() => agentReplies(runId), { timeout: 15_000 }).toHaveLength(1);
    stop.abort();
    expect(await exited).toBe(0);
    expect(run.err.join('')).not.toContain('waiting for the API');
  });

  it('refuses a SPONGE_API_URL with a query, with the usage line', async () => {
    const bad = io();
    expect(await main(['--once'], { RUNTIME_KEY, SPONGE_API_URL: 'http://h/?a=1' }, bad.io, dir)).toBe(2);
    expect(bad.err.join('')).toMatch(/SPONGE_API_URL: the API's URL takes no query or fragment[\s\S]*usage:/);
  });

  it('waits for the key file the API writes at its first start, then answers', async () => {
    const dataDir = join(dir, 'first-start');
    const stop = new AbortController();
    const run = io(stop.signal);
    const exited = main([], { DATA_DIR: dataDir, SPONGE_API_URL: api.url }, run.io, dir);
    await expect.poll(() => run.err.join('')).toContain(`waiting for ${join(dataDir, 'runtime.key')}`);
    const { runId } = await api.owner.chat.ask.mutate({
      documentId: REEF,
      text: 'Which corals regrew fastest?',
    });
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'runtime.key'), RUNTIME_KEY, { mode: 0o600 });
    await expect.poll(() => agentReplies(runId), { timeout: 15_000 }).toHaveLength(1);
    stop.abort();
    expect(await exited).toBe(0);
  });
});

describe('the runtime command, spawned, when the model endpoint fails', () => {
  // A server of its own: `--once` answers everything pending, and each test leaves one run.
  let own: RealApi;
  let llm: FakeLlm;
  beforeAll(async () => {
    [own, llm] = await Promise.all([startRealApi({ RUNTIME_KEY }), startFakeLlm()]);
  });
  afterAll(async () => {
    await Promise.all([own?.close(), llm?.close()]);
  });

  const WRONG_KEY = 'sk-wrong-key-never-shown-0123456789';

  /** `node src/runtime/main.ts --once`, the command's own entry, in a process of its own. */
  async function spawnOnce(
    llmUrl: string,
  ): Promise<{ code: number | null; lines: Array<Record<string, unknown>> }> {
    const child = spawn(process.execPath, [MAIN_ENTRY, '--once'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        RUNTIME_KEY,
        SPONGE_API_URL: own.url,
        AGENT_LLM_URL: llmUrl,
        AGENT_LLM_MODEL: 'fake-model',
        AGENT_LLM_API_KEY: WRONG_KEY,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).not.toContain(WRONG_KEY);
    const lines = stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { code, lines };
  }

  async function ask(text: string) {
    const [doc] = (await own.owner.documents.list.query()).filter((d) => d.access === 'owner');
    return own.owner.chat.ask.mutate({ documentId: doc!.id, text });
  }
  async function reply(runId: string): Promise<string> {
    const items = await own.owner.chat.transcript.query({ runId });
    return items.flatMap((i) => (i.type === 'message' && i.role === 'agent' ? [i.text] : [])).join('\n');
  }

  it('a refused key (401): the turn is logged as failed, the reply names it, the exit status is 1', async () => {
    llm.reset();
    llm.script(errorReply(401, `Incorrect API key provided: ${WRONG_KEY}`));
    const { runId } = await ask('with a refused key');
    const { code, lines } = await spawnOnce(llm.url);
    expect(code).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ runId, outcome: 'failed', failure: 'auth', status: 401, level: 40 }),
    );
    expect(lines.some((l) => l.outcome === 'answered')).toBe(false);
    expect(lines.at(-1)).toMatchObject({ msg: '1 pending, 0 answered, 1 failed' });
    expect(await reply(runId)).toMatch(/refused the API key \(HTTP 401\)/);
  });

  it('a server error (500): failed, exit status 1', async () => {
    llm.reset();
    llm.script(errorReply(500, 'upstream failed'));
    const { runId } = await ask('with a failing endpoint');
    const { code, lines } = await spawnOnce(llm.url);
    expect(code).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ runId, outcome: 'failed', failure: 'http', status: 500 }),
    );
    expect(await reply(runId)).toMatch(/model endpoint failed \(HTTP 500\)/);
  });

  it('an endpoint that cannot be reached: failed, exit status 1', async () => {
    const { runId } = await ask('with nothing listening');
    const { code, lines } = await spawnOnce('http://127.0.0.1:9/v1');
    expect(code).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ runId, outcome: 'failed', failure: 'unreachable' }),
    );
    expect(await reply(runId)).toMatch(/could not be reached/);
  });

  it('a turn stopped by its own limit is an answer: exit status 0', async () => {
    llm.reset();
    llm.script(textReply('The survey shows that the re', undefined, 'length'));
    const { runId } = await ask('with a long answer');
    const { code, lines } = await spawnOnce(llm.url);
    expect(code).toBe(0);
    expect(lines).toContainEqual(expect.objectContaining({ runId, outcome: 'answered' }));
    expect(lines.some((l) => l.outcome === 'failed')).toBe(false);
    expect(await reply(runId)).toMatch(/limit of 4,096 tokens for one answer/);
  });
});
