// Adds up what every test runner reported and prints the plain summary line CI reads last:
// `N passed, N failed, N skipped`. Arguments are the names of steps that exited non-zero; a failed
// step with no failing test to show for it (a build error, a crashed runner) counts as one failure,
// so a broken run can never end in "0 failed". Skipped counts every test a runner did not run
// (vitest's skipped and todo, Playwright's skipped, node:test's skipped and todo) and every step
// scripts/test.sh did not run (test-results/skipped-steps.txt, one `name: reason` a line), so a
// run that quietly left something out never reads as complete.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The summary of the reports under `root`: one line per suite, then the total line.
 * @param {string} root the repository's root
 * @param {Iterable<string>} failedSteps names of the steps that exited non-zero
 * @returns {{ lines: string[]; passed: number; failed: number; skipped: number }}
 */
export function summarize(root, failedSteps = []) {
  const at = (...parts) => join(root, ...parts);
  const suites = [];

  // packages/oh holds Oh's packages; a folder without reports (packages/oh itself) adds nothing.
  const workspaces = ['packages', 'packages/oh', 'apps'].flatMap((group) =>
    existsSync(at(group)) ? readdirSync(at(group)).map((dir) => join(group, dir)) : [],
  );
  for (const workspace of [...workspaces, 'bench']) {
    for (const [report, name, step] of [
      ['vitest.json', workspace, 'unit and integration tests'],
      ['vitest-sqld.json', `${workspace} on libSQL servers`, 'API tests on libSQL servers'],
    ]) {
      const file = at(workspace, 'test-results', report);
      if (!existsSync(file)) continue;
      const r = JSON.parse(readFileSync(file, 'utf8'));
      suites.push({
        name,
        step,
        passed: r.numPassedTests ?? 0,
        failed: r.numFailedTests ?? 0,
        // vitest reports skip, skipIf and a skipped describe as pending, todo apart.
        skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
      });
    }
  }

  for (const [file, name] of [
    ['test-results/smoke.txt', 'contract smoke'],
    ['test-results/smoke-sqld.txt', 'contract smoke on libSQL servers'],
  ]) {
    if (!existsSync(at(file))) continue;
    const m = readFileSync(at(file), 'utf8').match(/(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/);
    if (m)
      suites.push({
        name,
        step: name,
        passed: Number(m[1]),
        failed: Number(m[2]),
        skipped: Number(m[3] ?? 0),
      });
  }

  // node:test's TAP ends with `# pass N`, `# fail N`, `# skipped N`, `# todo N` lines.
  const scripts = at('test-results/scripts.tap');
  if (existsSync(scripts)) {
    const tap = readFileSync(scripts, 'utf8');
    const count = (key) => Number(tap.match(new RegExp(`^# ${key} (\\d+)$`, 'm'))?.[1] ?? 0);
    suites.push({
      name: 'scripts (node:test)',
      step: 'script tests',
      passed: count('pass'),
      failed: count('fail') + count('cancelled'),
      skipped: count('skipped') + count('todo'),
    });
  }

  const e2e = at('e2e/test-results/results.json');
  if (existsSync(e2e)) {
    const s = JSON.parse(readFileSync(e2e, 'utf8')).stats ?? {};
    suites.push({
      name: 'e2e (Playwright)',
      step: 'end-to-end tests',
      passed: (s.expected ?? 0) + (s.flaky ?? 0),
      failed: s.unexpected ?? 0,
      skipped: s.skipped ?? 0,
    });
  }

  const lines = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const s of suites) {
    passed += s.passed;
    failed += s.failed;
    skipped += s.skipped;
    lines.push(`  ${s.name}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
  }
  const skippedSteps = at('test-results/skipped-steps.txt');
  if (existsSync(skippedSteps)) {
    for (const line of readFileSync(skippedSteps, 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      skipped += 1;
      lines.push(`  step not run: ${line.trim()}`);
    }
  }
  for (const step of new Set(failedSteps)) {
    const reported = suites.filter((s) => s.step === step).reduce((n, s) => n + s.failed, 0);
    if (reported === 0) {
      failed += 1;
      lines.push(`  step "${step}" failed`);
    }
  }
  lines.push(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  return { lines, passed, failed, skipped };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { lines, passed, failed } = summarize(process.cwd(), process.argv.slice(2));
  for (const line of lines) console.log(line);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
