// The summary npm test ends with, fed sample reports of every runner (node --test, run by
// scripts/test.sh as its "script tests" step).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { summarize } from './summarize-tests.mjs';

const script = join(dirname(fileURLToPath(import.meta.url)), 'summarize-tests.mjs');
let root;

function write(path, content) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content));
}

/** vitest's JSON report, as far as the summary reads it. */
const vitest = (passed, failed, pending, todo) => ({
  numPassedTests: passed,
  numFailedTests: failed,
  numPendingTests: pending,
  numTodoTests: todo,
  testResults: [],
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'summary-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('summarize-tests', () => {
  it('adds up passed, failed and skipped over every runner, skipped and todo alike', () => {
    write('packages/oh/memory/test-results/vitest.json', vitest(10, 1, 2, 1));
    write('apps/api/test-results/vitest.json', vitest(20, 0, 0, 0));
    write('apps/api/test-results/vitest-sqld.json', vitest(15, 0, 3, 0));
    write('bench/test-results/vitest.json', vitest(4, 0, 0, 0));
    write('test-results/smoke.txt', 'a line of its own\n12 passed, 0 failed\n');
    write(
      'test-results/scripts.tap',
      'TAP version 13\n# tests 3\n# pass 2\n# fail 0\n# cancelled 0\n# skipped 1\n# todo 0\n',
    );
    write('e2e/test-results/results.json', { stats: { expected: 5, unexpected: 1, flaky: 1, skipped: 2 } });
    const { lines, passed, failed, skipped } = summarize(root);
    assert.deepEqual([passed, failed, skipped], [10 + 20 + 15 + 4 + 12 + 2 + 6, 1 + 1, 3 + 3 + 1 + 2]);
    assert.equal(lines.at(-1), '69 passed, 2 failed, 9 skipped');
    assert.ok(lines.includes('  packages/oh/memory: 10 passed, 1 failed, 3 skipped'));
    assert.ok(lines.includes('  e2e (Playwright): 6 passed, 1 failed, 2 skipped'));
  });

  it('counts a step scripts/test.sh did not run as skipped, and a failed step with no failed test as a failure', () => {
    write('apps/api/test-results/vitest.json', vitest(3, 0, 0, 0));
    write('test-results/skipped-steps.txt', 'contract smoke: ../shared/contract/smoke.mjs is not there\n\n');
    const { lines } = summarize(root, ['build', 'build']);
    assert.deepEqual(lines.slice(-3), [
      '  step not run: contract smoke: ../shared/contract/smoke.mjs is not there',
      '  step "build" failed',
      '3 passed, 1 failed, 1 skipped',
    ]);
  });

  it('reads a smoke line that counts skips too', () => {
    write('test-results/smoke-sqld.txt', '7 passed, 0 failed, 2 skipped\n');
    assert.equal(summarize(root).lines.at(-1), '7 passed, 0 failed, 2 skipped');
  });

  it('as a command: prints the lines, the total last, and exits 1 on a failure or when nothing passed', () => {
    const run = (...steps) =>
      spawnSync(process.execPath, [script, ...steps], { cwd: root, encoding: 'utf8' });
    let r = run();
    assert.equal(r.stdout.trim().split('\n').at(-1), '0 passed, 0 failed, 0 skipped');
    assert.equal(r.status, 1);
    write('apps/api/test-results/vitest.json', vitest(3, 0, 1, 0));
    r = run();
    assert.equal(r.stdout.trim().split('\n').at(-1), '3 passed, 0 failed, 1 skipped');
    assert.equal(r.status, 0);
    r = run('lint');
    assert.equal(r.stdout.trim().split('\n').at(-1), '3 passed, 1 failed, 1 skipped');
    assert.equal(r.status, 1);
  });
});
