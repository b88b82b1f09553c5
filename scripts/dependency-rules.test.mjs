// The import rules (.dependency-cruiser.mjs, the step "dependency rules" of scripts/test.sh) fail
// on a violation: `pnpm deps` is run, with the project's config, on a small tree laid out like
// the repository, once clean (it passes) and once with one file breaking each rule (each is
// reported under its rule's name, and the run fails).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG_FILES = ['.dependency-cruiser.mjs', '.dependency-cruiser.tsconfig.json', 'tsconfig.base.json'];

/** A package from npm, as far as resolving it goes. */
const npm = (name) => ({
  [`node_modules/${name}/package.json`]: JSON.stringify({ name, type: 'module', main: 'index.js' }),
  [`node_modules/${name}/index.js`]: 'export const x = 1;\n',
});

/** The layout of SPEC §2 in a few files, every import in it allowed. */
const CLEAN = {
  ...npm('zod'),
  ...npm('vitest'),
  ...npm('@libsql/client'),
  'packages/oh/schema/src/index.ts': "import { x } from 'zod';\nexport const Name = x;\n",
  'packages/oh/profiles/src/index.ts': "import { Name } from '@oh/schema';\nexport const Profile = Name;\n",
  'packages/oh/embeddings/src/index.ts':
    "import { x } from 'zod';\nexport { parseRetryAfter } from './retry-after.ts';\nexport const adapter = x;\n",
  'packages/oh/embeddings/src/retry-after.ts': 'export const parseRetryAfter = () => undefined;\n',
  'packages/oh/memory/src/index.ts': [
    "import { x as createClient } from '@libsql/client';",
    "import { Name } from '@oh/schema';",
    "import { Profile } from '@oh/profiles';",
    'export const openStore = () => ({ createClient, Name, Profile });',
  ].join('\n'),
  'packages/oh/memory/src/testing/index.ts':
    "import { openStore } from '../index.ts';\nexport const open = openStore;\n",
  'packages/contract/src/index.ts':
    "import { x } from 'zod';\nimport { Name } from '@oh/schema';\nexport const Input = [x, Name];\n",
  'packages/contract/src/index.test.ts':
    "import { x } from 'vitest';\nimport { Input } from './index.ts';\nx(Input);\n",
  'packages/agent/src/index.ts': [
    "import type { AppRouter } from '@sponge/api';",
    "import { Input } from '@sponge/contract';",
    "import { parseRetryAfter } from '@oh/embeddings/retry-after';",
    'export const client = (router?: AppRouter) => [router, Input, parseRetryAfter];',
  ].join('\n'),
  'packages/library/src/index.ts': [
    "import { openStore } from '@oh/memory';",
    "import { Input } from '@sponge/contract';",
    'export const openLibrary = () => [openStore, Input];',
  ].join('\n'),
  'packages/reviewed/src/index.ts': [
    "import { openStore } from '@oh/memory';",
    "import { openLibrary } from '@sponge/library';",
    'export const openReviewed = () => [openStore, openLibrary];',
  ].join('\n'),
  'apps/api/src/index.ts': [
    "import { openStore } from '@oh/memory';",
    "import { Input } from '@sponge/contract';",
    "import { openLibrary } from '@sponge/library';",
    "import { openReviewed } from '@sponge/reviewed';",
    'export const version = 1;',
    'export type AppRouter = {',
    '  input: typeof Input;',
    '  store: typeof openStore;',
    '  library: typeof openLibrary;',
    '  reviewed: typeof openReviewed;',
    '};',
  ].join('\n'),
  'apps/api/src/bin/main.ts': "import { version } from '../index.ts';\nconsole.log(version);\n",
  'apps/api/src/app.test.ts': [
    "import { x } from 'vitest';",
    "import { open } from '../../../packages/oh/memory/src/testing/index.ts';",
    "import { version } from './index.ts';",
    'x([open, version]);',
  ].join('\n'),
  'apps/web/src/main.tsx': [
    "import type { AppRouter } from '@sponge/api';",
    "import { Input } from '@sponge/contract';",
    'export const shown: AppRouter | typeof Input = Input;',
  ].join('\n'),
  'e2e/tests/app.spec.ts': "import type { AppRouter } from '@sponge/api';\nexport type R = AppRouter;\n",
  'bench/src/main.ts': "import { openStore } from '@oh/memory';\nconsole.log(openStore);\n",
};

/** One file (or one change) breaking each rule, and the dependency each rule must name. */
const BROKEN = {
  'no-circular': {
    files: {
      'packages/oh/memory/src/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
      'packages/oh/memory/src/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
      'packages/oh/memory/src/index.ts': `${CLEAN['packages/oh/memory/src/index.ts']}\nexport type { A } from './a.ts';\n`,
    },
    from: 'packages/oh/memory/src/a.ts',
    to: 'packages/oh/memory/src/b.ts',
  },
  'no-orphans': {
    files: { 'apps/api/src/lonely.ts': 'export const lonely = 1;\n' },
    from: 'apps/api/src/lonely.ts',
    to: 'apps/api/src/lonely.ts',
  },
  'no-dead-product-files': {
    files: {
      'apps/api/src/tested-only.ts': 'export const tested = 1;\n',
      'apps/api/src/tested-only.test.ts':
        "import { tested } from './tested-only.ts';\nconsole.log(tested);\n",
    },
    from: 'apps/api/src/tested-only.ts',
    to: 'apps/api/src/tested-only.ts',
  },
  'oh-imports-nothing-of-sponge': {
    files: {
      'packages/oh/profiles/src/sponge.ts':
        "import { Input } from '@sponge/contract';\nexport const I = Input;\n",
    },
    from: 'packages/oh/profiles/src/sponge.ts',
    to: 'packages/contract/src/index.ts',
  },
  'oh-schema-imports-only-zod': {
    files: {
      'packages/oh/schema/src/read.ts':
        "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
    },
    from: 'packages/oh/schema/src/read.ts',
    to: /fs$/,
  },
  'contract-imports-only-zod-and-oh-schema': {
    files: {
      'packages/contract/src/profile.ts':
        "import { Profile } from '@oh/profiles';\nexport const P = Profile;\n",
    },
    from: 'packages/contract/src/profile.ts',
    to: 'packages/oh/profiles/src/index.ts',
  },
  'no-package-imports-an-app': {
    files: {
      'packages/agent/src/version.ts': "import { version } from '@sponge/api';\nexport const v = version;\n",
    },
    from: 'packages/agent/src/version.ts',
    to: 'apps/api/src/index.ts',
  },
  'domains-import-no-app': {
    // In each domain, a type-only import of an app, which a package other than a domain may make
    // (AppRouter).
    files: {
      'packages/library/src/router.ts':
        "import type { AppRouter } from '@sponge/api';\nexport type R = AppRouter;\n",
      'packages/library/src/index.ts': `${CLEAN['packages/library/src/index.ts']}\nexport type { R } from './router.ts';\n`,
      'packages/reviewed/src/outcome.ts':
        "import type { AppRouter } from '@sponge/api';\nexport type Outcome = AppRouter['reviewed'];\n",
      'packages/reviewed/src/index.ts': `${CLEAN['packages/reviewed/src/index.ts']}\nexport type { Outcome } from './outcome.ts';\n`,
    },
    from: ['packages/library/src/router.ts', 'packages/reviewed/src/outcome.ts'],
    to: 'apps/api/src/index.ts',
  },
  'routers-hold-no-sql': {
    files: {
      'apps/api/src/routers/notes.ts':
        "import type { Client } from '@libsql/client';\nexport const notes = (db: Client) => db;\n",
      'apps/api/src/index.ts': `${CLEAN['apps/api/src/index.ts']}\nexport { notes } from './routers/notes.ts';\n`,
    },
    from: 'apps/api/src/routers/notes.ts',
    to: 'node_modules/@libsql/client/index.js',
  },
  'web-imports-the-api-by-type-only': {
    files: {
      'apps/web/src/version.ts': "import { version } from '@sponge/api';\nexport const v = version;\n",
    },
    from: 'apps/web/src/version.ts',
    to: 'apps/api/src/index.ts',
  },
  'web-and-runtime-load-only-store-free-packages': {
    files: {
      'packages/agent/src/profile.ts': "import { Profile } from '@oh/profiles';\nexport const P = Profile;\n",
    },
    from: 'packages/agent/src/profile.ts',
    to: 'packages/oh/profiles/src/index.ts',
  },
  'web-and-runtime-never-load-the-store': {
    files: { 'packages/agent/src/driver.ts': "import { x } from '@libsql/client';\nexport const d = x;\n" },
    from: 'packages/agent/src/driver.ts',
    to: 'node_modules/@libsql/client/index.js',
  },
  'web-and-runtime-load-no-embedding-adapter': {
    files: {
      'packages/agent/src/retry.ts':
        "import { parseRetryAfter } from '@oh/embeddings';\nexport const r = parseRetryAfter;\n",
    },
    from: 'packages/agent/src/retry.ts',
    to: 'packages/oh/embeddings/src/index.ts',
  },
  'product-imports-no-test-code': {
    files: { 'apps/api/src/check.ts': "import { x } from 'vitest';\nexport const c = x;\n" },
    from: 'apps/api/src/check.ts',
    to: 'node_modules/vitest/index.js',
  },
  'only-entries-across-packages': {
    files: {
      'apps/api/src/deep.ts':
        "import { Name } from '../../../packages/oh/schema/src/name.ts';\nexport const N = Name;\n",
      'packages/oh/schema/src/name.ts': "export { Name } from './index.ts';\n",
    },
    from: 'apps/api/src/deep.ts',
    to: 'packages/oh/schema/src/name.ts',
  },
  'not-to-unresolvable': {
    files: { 'apps/api/src/gone.ts': "import { gone } from './missing.ts';\nexport const g = gone;\n" },
    from: 'apps/api/src/gone.ts',
    to: './missing.ts',
  },
  'not-to-dist': {
    files: {
      'apps/api/src/built.ts':
        "import { Input } from '../../../packages/contract/dist/index.js';\nexport const I = Input;\n",
      'packages/contract/dist/index.js': 'export const Input = 1;\n',
    },
    from: 'apps/api/src/built.ts',
    to: 'packages/contract/dist/index.js',
  },
};

/** The tree in a fresh folder beside the project's config. */
function lay(files) {
  const base = mkdtempSync(join(tmpdir(), 'dependency-rules-'));
  for (const name of CONFIG_FILES) copyFileSync(join(root, name), join(base, name));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  return base;
}

/** `pnpm deps` (the root package.json's script) in `base`, with more arguments. */
function deps(base, ...more) {
  const [command, ...args] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.deps.split(
    ' ',
  );
  assert.equal(command, 'depcruise');
  const { bin } = JSON.parse(
    readFileSync(join(root, 'node_modules/dependency-cruiser/package.json'), 'utf8'),
  );
  return spawnSync(
    process.execPath,
    [join(root, 'node_modules/dependency-cruiser', bin.depcruise), ...args, ...more],
    {
      cwd: base,
      encoding: 'utf8',
    },
  );
}

/** The violations `pnpm deps` finds in `base`. */
function violations(base) {
  const run = deps(base, '--output-type', 'json');
  assert.ok(run.stdout.startsWith('{'), `depcruise printed no report:\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(run.stdout).summary.violations;
}

describe('the dependency rules', () => {
  const made = [];
  after(() => made.forEach((base) => rmSync(base, { recursive: true, force: true })));
  let clean;
  let broken;
  before(() => {
    made.push(lay(CLEAN));
    const files = { ...CLEAN };
    for (const rule of Object.values(BROKEN)) Object.assign(files, rule.files);
    made.push(lay(files));
    [clean, broken] = made;
  });

  it('pass the layout of SPEC §2, type-only imports of the API included', () => {
    const run = deps(clean);
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /no dependency violations found/);
  });

  it('fail the run on a violation, and name it', () => {
    const run = deps(broken);
    assert.notEqual(run.status, 0);
    assert.match(run.stdout, /error oh-imports-nothing-of-sponge: packages\/oh\/profiles\/src\/sponge\.ts/);
  });

  it('each have a file here that breaks them', async () => {
    const { default: config } = await import(join(root, '.dependency-cruiser.mjs'));
    assert.deepEqual(Object.keys(BROKEN).sort(), config.forbidden.map((r) => r.name).sort());
  });

  describe('each report their own violation', () => {
    let found;
    before(() => (found = violations(broken)));
    // A rule over several packages breaks in each of them (`from` lists them).
    for (const [name, { from: froms, to }] of Object.entries(BROKEN)) {
      for (const from of [froms].flat()) {
        it(typeof froms === 'string' ? name : `${name} (${from})`, () => {
          const matches = (v) =>
            v.rule.name === name && v.from === from && (typeof to === 'string' ? v.to === to : to.test(v.to));
          const all = found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
          assert.ok(found.some(matches), `no ${name} for ${from} -> ${to} among:\n  ${all.join('\n  ')}`);
        });
      }
    }
  });
});
