import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, textReply } from '../testing/fake-llm.ts';
import { startRealApi } from '../testing/real-api.ts';
import type { RealApi } from '../testing/real-api.ts';
import { apiUrlFrom, main, runtimeKeyPath } from './main.ts';
import { SCRIPTED_AGENT_BANNER } from './scripted-agent.ts';

const RUNTIME_KEY = 'main-test-runtime-key-0123456789abcdef';
const REEF = 'doc-reef-recovery-2016';

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
      /"name":"sponge-runtime","msg":"answered run \S+ \(chat\) in \d+ ms"\}\n/,
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
