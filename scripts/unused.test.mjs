// The unused-code check (knip.ts, the step "unused exports and dependencies" of scripts/test.sh)
// fails on what it should: knip is run, with the project's config and tsconfig.base.json, on a
// small workspace laid out like the repository (an Oh package, a Sponge package, an app whose
// entry points are run from their build by package.json scripts, a thread started by URL, a test
// helper). Once clean, it passes; then each change below breaks it once, and knip must name the
// change under its kind of finding and exit with a failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG_FILES = ['knip.ts', 'tsconfig.base.json'];
const TSCONFIG = (base) => JSON.stringify({ extends: `${base}/tsconfig.base.json`, include: ['src'] });
const manifest = (fields) => JSON.stringify({ private: true, type: 'module', ...fields }, null, 2);
const built = (entry) => ({ types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` });

/** Every file in use: the check passes. */
const CLEAN = {
  'package.json': manifest({ name: 'fixture', devDependencies: { knip: '*' } }),
  'pnpm-workspace.yaml': "packages:\n  - apps/*\n  - packages/*\n  - 'packages/oh/*'\n",
  // Oh: its entry is its public API, so an export Sponge does not import is not reported.
  'packages/oh/notes/package.json': manifest({ name: '@oh/notes', exports: { '.': built('index') } }),
  'packages/oh/notes/tsconfig.json': TSCONFIG('../../..'),
  'packages/oh/notes/src/index.ts':
    'export const openNotes = () => 1;\nexport const notesForOthers = () => 2;\n',
  // A Sponge package: every export of its entry is imported by the app; a helper for tests.
  'packages/shelf/package.json': manifest({
    name: '@sponge/shelf',
    exports: { '.': built('index'), './testing': './src/testing/index.ts' },
    dependencies: { '@oh/notes': 'workspace:*' },
  }),
  'packages/shelf/tsconfig.json': TSCONFIG('../..'),
  'packages/shelf/src/index.ts': "export { openShelf } from './shelf.ts';\n",
  'packages/shelf/src/shelf.ts': [
    "import { openNotes } from '@oh/notes';",
    "import { Worker } from 'node:worker_threads';",
    '// A thread started by its URL, as the PDF, OCR and database threads are.',
    "const THREAD = new URL('./reader.ts', import.meta.url);",
    'export const openShelf = () => [openNotes(), new Worker(THREAD)];',
    '',
  ].join('\n'),
  'packages/shelf/src/reader.ts':
    "import { parentPort } from 'node:worker_threads';\nparentPort?.postMessage('read');\n",
  'packages/shelf/src/testing/index.ts': "export const emptyShelf = () => 'empty';\n",
  // An app whose entry points run from their build (`node dist/…`), one of them in a folder.
  'apps/desk/package.json': manifest({
    name: '@sponge/desk',
    scripts: { start: 'node --max-semi-space-size=16 dist/main.js', purge: 'node dist/bin/purge.js' },
    dependencies: { '@sponge/shelf': 'workspace:*' },
  }),
  'apps/desk/tsconfig.json': TSCONFIG('../..'),
  'apps/desk/src/main.ts': "import { openShelf } from '@sponge/shelf';\nconsole.log(openShelf());\n",
  'apps/desk/src/bin/purge.ts':
    "import { emptyShelf } from '@sponge/shelf/testing';\nconsole.log(emptyShelf());\n",
  // An export nothing imports, kept on purpose: tagged.
  'apps/desk/src/version.ts': "/** @public */\nexport const VERSION = '1';\nconsole.log(VERSION);\n",
  'scripts/tool.mjs': "import '../apps/desk/src/version.ts';\n",
};

/** One change breaking the check each, and the finding knip must report for it. */
const BROKEN = {
  'an unused export': {
    change: {
      'packages/shelf/src/shelf.ts':
        CLEAN['packages/shelf/src/shelf.ts'] + 'export const shelfSize = () => 3;\n',
    },
    finding: ['packages/shelf/src/shelf.ts', 'exports', 'shelfSize'],
  },
  'an unused exported type': {
    change: {
      'packages/shelf/src/shelf.ts': CLEAN['packages/shelf/src/shelf.ts'] + 'export type Shelf = string[];\n',
    },
    finding: ['packages/shelf/src/shelf.ts', 'types', 'Shelf'],
  },
  "an export of a Sponge package's entry that no other package imports": {
    change: {
      'packages/shelf/src/index.ts': "export { openShelf } from './shelf.ts';\nexport const spare = 1;\n",
    },
    finding: ['packages/shelf/src/index.ts', 'exports', 'spare'],
  },
  'an unused dependency': {
    change: {
      'apps/desk/package.json': manifest({
        ...JSON.parse(CLEAN['apps/desk/package.json']),
        dependencies: { '@sponge/shelf': 'workspace:*', 'left-pad': '1.3.0' },
      }),
    },
    finding: ['apps/desk/package.json', 'dependencies', 'left-pad'],
  },
  'a dependency used but not listed': {
    change: {
      'apps/desk/src/main.ts': CLEAN['apps/desk/src/main.ts'] + "import 'left-pad';\n",
    },
    finding: ['apps/desk/src/main.ts', 'unlisted', 'left-pad'],
  },
  'a file nothing starts from or imports': {
    change: { 'apps/desk/src/old-main.ts': "console.log('old');\n" },
    finding: ['apps/desk/src/old-main.ts', 'files', 'apps/desk/src/old-main.ts'],
  },
  'a package.json `exports` entry with no file (a configuration hint)': {
    change: {
      'packages/shelf/package.json': manifest({
        ...JSON.parse(CLEAN['packages/shelf/package.json']),
        exports: { '.': built('index'), './testing': './src/testing/index.ts', './gone': built('gone') },
      }),
    },
    hint: /\.\/dist\/gone\.js +Package entry file not found in packages\/shelf\/package\.json/,
  },
  'an export made twice': {
    change: {
      'apps/desk/src/words.ts': "export const greeting = 'hello';\nexport default greeting;\n",
      'apps/desk/src/main.ts':
        CLEAN['apps/desk/src/main.ts'] +
        "import hello, { greeting } from './words.ts';\nconsole.log(hello, greeting);\n",
    },
    finding: ['apps/desk/src/words.ts', 'duplicates', 'greeting,default'],
  },
};

const made = [];
function lay(files) {
  const base = mkdtempSync(join(tmpdir(), 'unused-'));
  made.push(base);
  for (const name of CONFIG_FILES) copyFileSync(join(root, name), join(base, name));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  return base;
}

/**
 * The step's command, `pnpm exec knip`, on the tree at `base`: its exit status, its findings (its
 * JSON report) and its text report with the configuration hints (on stderr; the JSON one has none).
 */
function knip(base, { withText = false } = {}) {
  const step = readFileSync(join(root, 'scripts/test.sh'), 'utf8');
  assert.match(step, /^step "unused exports and dependencies" pnpm exec knip$/m);
  const { bin } = JSON.parse(readFileSync(join(root, 'node_modules/knip/package.json'), 'utf8'));
  const knipAt = (...args) =>
    spawnSync(
      process.execPath,
      [join(root, 'node_modules/knip', bin.knip), '--directory', base, '--no-progress', ...args],
      { encoding: 'utf8' },
    );
  const run = knipAt('--reporter', 'json');
  const text = withText ? knipAt() : { status: run.status, stdout: '', stderr: '' };
  assert.equal(run.status, text.status);
  assert.ok(run.stdout.startsWith('{'), `knip printed no report:\n${run.stdout}\n${run.stderr}`);
  const findings = JSON.parse(run.stdout).issues.flatMap((issue) =>
    Object.entries(issue).flatMap(([kind, items]) =>
      Array.isArray(items)
        ? items.map((item) => [
            issue.file,
            kind,
            Array.isArray(item) ? item.map((i) => i.name).join(',') : item.name,
          ])
        : [],
    ),
  );
  return { status: run.status, findings, text: text.stdout + text.stderr };
}

after(() => {
  for (const base of made) rmSync(base, { recursive: true, force: true });
});

describe('the unused-code check (knip)', () => {
  it('passes on a tree where everything is used, with the repository config', () => {
    const { status, findings, text } = knip(lay(CLEAN), { withText: true });
    assert.deepEqual(findings, []);
    assert.equal(text, '');
    assert.equal(status, 0);
  });

  for (const [name, { change, finding, hint }] of Object.entries(BROKEN)) {
    describe(`fails on ${name}`, () => {
      let result;
      before(() => (result = knip(lay({ ...CLEAN, ...change }), { withText: hint !== undefined })));
      it('names it', () => {
        assert.deepEqual(result.findings, finding ? [finding] : []);
        if (hint) assert.match(result.text, hint);
      });
      it('exits with a failure', () => assert.equal(result.status, 1));
    });
  }
});
