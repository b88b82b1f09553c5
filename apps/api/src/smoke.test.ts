/**
 * The outside contract: ../shared/contract/smoke.mjs starts `pnpm --filter @sponge/api start`
 * itself and drives it over plain HTTP. Skipped where the shared folder is not present.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '../../..');
const smoke = resolve(repoRoot, '../shared/contract/smoke.mjs');

describe.skipIf(!existsSync(smoke))('contract smoke test', () => {
  it('passes against `pnpm --filter @sponge/api start`', () => {
    const r = spawnSync(process.execPath, [smoke], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(out, out).toMatch(/\d+ passed, 0 failed/);
    expect(r.status, out).toBe(0);
    expect(join(repoRoot, 'apps/api')).toBeTruthy();
  }, 150_000);
});
