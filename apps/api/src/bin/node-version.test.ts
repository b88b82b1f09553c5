/**
 * Every command refuses a Node older than 24 at start (SPEC §6c): the check itself, and each
 * built entry point (API, purge worker, verify, hosted runtime) run by the machine's own older
 * Node, which must exit non-zero with the message before anything else happens.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MINIMUM_NODE_MAJOR, nodeVersionProblem } from './node-version.ts';

describe('nodeVersionProblem', () => {
  it('refuses every major before 24 and names the version and the fix', () => {
    for (const v of ['v20.20.2', 'v22.12.0', 'v23.11.1', 'v18.0.0', 'v8.17.0']) {
      const problem = nodeVersionProblem(v, 'sponge-api');
      expect(problem, v).toContain(`sponge-api needs Node ${MINIMUM_NODE_MAJOR} or newer; this is Node ${v}`);
      expect(problem, v).toContain('tools/node');
    }
  });

  it('accepts 24 and later', () => {
    for (const v of ['v24.0.0', 'v24.21.0', 'v25.1.0', 'v100.0.0'])
      expect(nodeVersionProblem(v, 'x'), v).toBeNull();
  });

  it('refuses a version string it cannot read', () => {
    expect(nodeVersionProblem('', 'x')).not.toBeNull();
    expect(nodeVersionProblem('vNext', 'x')).not.toBeNull();
  });
});

const root = resolve(import.meta.dirname, '../../../..');

/** A `node` on the PATH (or the usual system places) older than 24: the machine's own. */
function oldNode(): string | undefined {
  const candidates = new Set<string>(['/usr/local/bin/node', '/usr/bin/node']);
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.add(join(dir, 'node'));
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
      if (Number(/^v(\d+)\./.exec(version)?.[1]) < MINIMUM_NODE_MAJOR) return path;
    } catch {
      // not runnable: try the next one
    }
  }
  return undefined;
}

const old = oldNode();
const entries = [
  ['the API', 'apps/api/dist/bin/main.js'],
  ['the purge worker', 'apps/api/dist/bin/purge-main.js'],
  ['verify', 'apps/api/dist/bin/verify-main.js'],
  ['the hosted runtime', 'packages/agent/dist/runtime/main.js'],
] as const;

describe.skipIf(old === undefined)(`the built commands on the machine's old Node (${old})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sponge-old-node-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(entries)('%s refuses to start, saying why, and touches nothing', async (_name, entry) => {
    const file = join(root, entry);
    if (!existsSync(file)) throw new Error(`${file} is missing: run pnpm turbo run build first`);
    const dataDir = join(dir, entry.replaceAll('/', '_'));
    const outcome = await promisify(execFile)(old!, [file, '--once'], {
      cwd: dir,
      env: { PATH: process.env.PATH, PORT: '0', DATA_DIR: dataDir, SPONGE_API_URL: 'http://127.0.0.1:9' },
      timeout: 20_000,
    }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code?: number; stderr?: string }) => ({ code: e.code, stderr: e.stderr ?? '' }),
    );
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(outcome.stderr).toMatch(/needs Node 24 or newer; this is Node v\d+\./);
    // Refused before any code that would open or create the data folder ran.
    expect(existsSync(dataDir)).toBe(false);
  });
});
