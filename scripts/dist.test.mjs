// What the build puts in every workspace's dist/ is product code only: no test file, nothing from a
// `testing` folder, no harness, and nothing that loads a test tool (vitest, fast-check, Playwright)
// or a test harness (@sponge/testing, @oh/memory/testing). Run by scripts/test.sh after the build
// ("script tests"); on a tree that was never built it fails and says so instead of passing.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Packages that only tests may load. */
const TEST_ONLY = ['vitest', 'fast-check', '@playwright/test', '@sponge/testing', '@oh/memory/testing'];
const specifier = TEST_ONLY.map((name) => name.replace(/[/.]/g, '\\$&')).join('|');
/** `from 'x'`, `import 'x'`, `import('x')`, `require('x')`, also of a subpath (`vitest/config`). */
const IMPORT = new RegExp(
  `(?:\\bfrom\\s*|\\bimport\\s*\\(?\\s*|\\brequire\\s*\\(\\s*)['"\`](${specifier})(?:/[^'"\`]*)?['"\`]`,
);
const TEXT = /\.(?:[cm]?js|jsx|[cm]?ts|tsx|html|json)$/;

/** The workspaces that can have a dist/: packages/*, packages/oh/* and apps/*. */
function workspaces(base) {
  const found = [];
  for (const group of ['packages', join('packages', 'oh'), 'apps']) {
    const dir = join(base, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const manifest = join(dir, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const { scripts = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
      found.push({ path: join(group, name), build: scripts.build ?? null });
    }
  }
  return found;
}

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * What is wrong with one workspace's dist/, one line per file: `<file>: <why>`. A bundle (a Vite
 * build) keeps no import statements, so there any mention of vitest counts.
 */
function testCodeIn(base, workspace) {
  const dist = join(base, workspace.path, 'dist');
  const problems = [];
  if (workspace.build === null) {
    if (existsSync(dist)) problems.push(`${relative(base, dist)}: a workspace without a build has a dist/`);
    return problems;
  }
  if (!existsSync(dist) || filesUnder(dist).length === 0) {
    return [`${relative(base, dist)}: missing or empty; build first (pnpm turbo run build)`];
  }
  const bundle = workspace.build.startsWith('vite ');
  for (const file of filesUnder(dist)) {
    const inDist = relative(dist, file).split(sep);
    const name = inDist.at(-1);
    const why = [];
    if (/\.(?:test|spec)\./.test(name)) why.push('a test file');
    if (/^harness\./.test(name)) why.push('a test harness');
    if (inDist.slice(0, -1).includes('testing')) why.push('in a testing folder');
    if (TEXT.test(name)) {
      const text = readFileSync(file, 'utf8');
      const loaded = text.match(IMPORT);
      if (loaded) why.push(`loads ${loaded[1]}`);
      else if (bundle && /\bvitest\b/.test(text)) why.push('mentions vitest');
    }
    if (why.length > 0) problems.push(`${relative(base, file)}: ${why.join(', ')}`);
  }
  return problems;
}

describe('dist/ holds no test code', () => {
  const all = workspaces(root);
  it('finds the workspaces', () => {
    assert.ok(
      all.some((w) => w.path === join('apps', 'api')),
      `no apps/api among ${all.map((w) => w.path)}`,
    );
  });
  for (const workspace of all) {
    it(`${workspace.path}/dist`, () => {
      const problems = testCodeIn(root, workspace);
      assert.deepEqual(problems, [], `test code in a build output:\n  ${problems.join('\n  ')}`);
    });
  }
});

describe('the dist check itself', () => {
  const base = mkdtempSync(join(tmpdir(), 'dist-check-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  const write = (path, content = '') => {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  };
  const lib = { path: 'packages/lib', build: 'tsc -p tsconfig.build.json' };

  it('names each test file, harness and test-only import, and passes product code', () => {
    write('packages/lib/dist/index.js', "import { z } from 'zod';\n// vitest is not loaded here\n");
    write('packages/lib/dist/index.test.js', "import { it } from 'vitest';");
    write('packages/lib/dist/testing/fixtures.js', 'export const x = 1;');
    write('packages/lib/dist/security/harness.js', 'export const y = 2;');
    write('packages/lib/dist/faults/rounds.js', "import { expect } from 'vitest';");
    write('packages/lib/dist/faults/rounds.d.ts', "import type { Api } from '@sponge/testing/api';");
    write('packages/lib/dist/fuzz.js', 'const fc = await import("fast-check");');
    write('packages/lib/dist/e2e.cjs', "const { test } = require('@playwright/test');");
    write('packages/lib/dist/sqld.js', "export * from '@oh/memory/testing';");
    assert.deepEqual(testCodeIn(base, lib).sort(), [
      'packages/lib/dist/e2e.cjs: loads @playwright/test',
      'packages/lib/dist/faults/rounds.d.ts: loads @sponge/testing',
      'packages/lib/dist/faults/rounds.js: loads vitest',
      'packages/lib/dist/fuzz.js: loads fast-check',
      'packages/lib/dist/index.test.js: a test file, loads vitest',
      'packages/lib/dist/security/harness.js: a test harness',
      'packages/lib/dist/sqld.js: loads @oh/memory/testing',
      'packages/lib/dist/testing/fixtures.js: in a testing folder',
    ]);
  });

  it('finds vitest in a bundle, which has no import statements', () => {
    write('apps/web/dist/assets/index-abc.js', 'var a="vitest";');
    assert.deepEqual(testCodeIn(base, { path: 'apps/web', build: 'vite build' }), [
      'apps/web/dist/assets/index-abc.js: mentions vitest',
    ]);
  });

  it('fails on a missing dist/ instead of passing', () => {
    assert.deepEqual(testCodeIn(base, { path: 'packages/unbuilt', build: 'tsc' }), [
      'packages/unbuilt/dist: missing or empty; build first (pnpm turbo run build)',
    ]);
  });

  it('fails on a dist/ of a workspace that has no build (the test harnesses)', () => {
    write('packages/testing/dist/api.js', 'export {};');
    assert.deepEqual(testCodeIn(base, { path: 'packages/testing', build: null }), [
      'packages/testing/dist: a workspace without a build has a dist/',
    ]);
  });
});
