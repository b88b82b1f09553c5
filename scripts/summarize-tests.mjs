// Adds up what every test runner reported and prints the plain summary line CI reads last:
// `N passed, N failed`. Arguments are the names of steps that exited non-zero; a failed step
// with no failing test to show for it (a build error, a crashed runner) counts as one failure,
// so a broken run can never end in "0 failed".
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const failedSteps = new Set(process.argv.slice(2));
const suites = [];

const workspaces = ['packages', 'apps'].flatMap((group) =>
  existsSync(group) ? readdirSync(group).map((dir) => join(group, dir)) : [],
);
for (const workspace of [...workspaces, 'bench']) {
  for (const [report, name, step] of [
    ['vitest.json', workspace, 'unit and integration tests'],
    ['vitest-sqld.json', `${workspace} on libSQL servers`, 'API tests on libSQL servers'],
  ]) {
    const file = join(workspace, 'test-results', report);
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8'));
    suites.push({ name, step, passed: r.numPassedTests, failed: r.numFailedTests });
  }
}

for (const [file, name] of [
  ['test-results/smoke.txt', 'contract smoke'],
  ['test-results/smoke-sqld.txt', 'contract smoke on libSQL servers'],
]) {
  if (!existsSync(file)) continue;
  const m = readFileSync(file, 'utf8').match(/(\d+) passed, (\d+) failed\s*$/);
  if (m) suites.push({ name, step: name, passed: Number(m[1]), failed: Number(m[2]) });
}

const e2e = 'e2e/test-results/results.json';
if (existsSync(e2e)) {
  const s = JSON.parse(readFileSync(e2e, 'utf8')).stats ?? {};
  suites.push({
    name: 'e2e (Playwright)',
    step: 'end-to-end tests',
    passed: (s.expected ?? 0) + (s.flaky ?? 0),
    failed: s.unexpected ?? 0,
  });
}

let passed = 0;
let failed = 0;
for (const s of suites) {
  passed += s.passed;
  failed += s.failed;
  console.log(`  ${s.name}: ${s.passed} passed, ${s.failed} failed`);
}
for (const step of failedSteps) {
  const reported = suites.filter((s) => s.step === step).reduce((n, s) => n + s.failed, 0);
  if (reported === 0) {
    failed += 1;
    console.log(`  step "${step}" failed`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
