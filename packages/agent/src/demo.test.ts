/**
 * The demo command: its flags (parseArgs, unknown ones refused with the usage line) and its
 * transcript, against the real API started in-process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './demo.ts';
import { startRealApi } from './testing/real-api.ts';
import type { RealApi } from './testing/real-api.ts';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('flags', () => {
  it('refuses unknown flags and stray arguments with the usage line', async () => {
    for (const argv of [['--verbos'], ['--', '--url', 'http://x', 'extra'], ['-x']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(/^usage: pnpm --filter @sponge\/agent demo/m);
      expect(r.out).toBe('');
    }
  });

  it('prints the usage for --help, and asks for a run token', async () => {
    expect(await run(['--', '--help'])).toMatchObject({ code: 0, out: expect.stringMatching(/^usage: /) });
    const saved = process.env.RUN_TOKEN;
    delete process.env.RUN_TOKEN;
    try {
      expect(await run(['--url', 'http://127.0.0.1:9'])).toMatchObject({
        code: 2,
        err: expect.stringMatching(/--run-token is required/),
      });
    } finally {
      if (saved !== undefined) process.env.RUN_TOKEN = saved;
    }
  });
});

describe('against the API', () => {
  let api: RealApi;
  beforeAll(async () => {
    api = await startRealApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('plays the reef scenario and prints the transcript on its output', async () => {
    const { runToken } = await api.acceptRun();
    // As pnpm hands them over: with the `--` separator.
    const r = await run(['--', '--url', api.url, '--run-token', runToken, '--verbose']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Sponge demo agent → ${api.url}`);
    expect(r.out).toContain('● load');
    expect(r.out).toMatch(/· remember attempt 1 \(r-/);
    expect(r.out).toContain('● recall "reef survey methods"');
    expect(r.out).toMatch(/done: memory is at version 4$/);
  });

  it('says why the API refused, on its error output, and exits 1', async () => {
    const r = await run(['--url', api.url, '--run-token', `rt_${'A'.repeat(43)}`]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/refused: unauthenticated \(UNAUTHORIZED\)/);
  });
});
