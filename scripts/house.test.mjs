// The house rules of issues 25 and 38 that no linter holds: no product file over 600 lines, no
// package over 40% of the product's lines, every Sponge package pins Oh's one version exactly, the
// API's routers hold no SQL, and the API's rooms import only downwards. Product code is a package's
// or an app's src/ without tests, test harnesses, fixtures and bench scripts. Each check is also
// run on a small tree that breaks it, to show that it fails.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_FILE_LINES = 600;
const MAX_PACKAGE_SHARE = 0.4;
const NOT_SOURCE = new Set(['node_modules', 'dist', 'test-results', 'results']);

/** Every workspace folder with a package.json: packages/*, packages/oh/*, apps/*. */
function workspaces(base) {
  return ['packages', 'packages/oh', 'apps'].flatMap((group) =>
    existsSync(join(base, group))
      ? readdirSync(join(base, group))
          .map((dir) => join(group, dir))
          .filter((dir) => existsSync(join(base, dir, 'package.json')))
      : [],
  );
}

const isProduct = (path) =>
  /\.(ts|tsx|mjs|js)$/.test(path) &&
  !/\.(test|spec|bench)\.[a-z]+$/.test(path) &&
  !/(^|\/)(testing|fixtures)\//.test(path) &&
  !path.endsWith('.d.ts');

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name.startsWith('.') || NOT_SOURCE.has(e.name)
        ? []
        : walk(join(dir, e.name))
      : [join(dir, e.name)],
  );
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
const countLines = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Every product file with its workspace and its lines. */
function productFiles(base) {
  return workspaces(base).flatMap((ws) =>
    existsSync(join(base, ws, 'src'))
      ? walk(join(base, ws, 'src'))
          .map((file) => ({ workspace: ws, path: relative(base, file), file }))
          .filter((f) => isProduct(f.path))
          .map(({ workspace, path, file }) => ({
            workspace,
            path,
            lines: countLines(readFileSync(file, 'utf8')),
          }))
      : [],
  );
}

/** Each workspace's product lines and share of the whole, largest first. */
function shares(files) {
  const total = files.reduce((n, f) => n + f.lines, 0);
  const byWs = new Map();
  for (const f of files) byWs.set(f.workspace, (byWs.get(f.workspace) ?? 0) + f.lines);
  return [...byWs]
    .map(([ws, lines]) => ({ ws, lines, share: lines / total }))
    .sort((a, b) => b.lines - a.lines);
}

const overLong = (files) =>
  files.filter((f) => f.lines > MAX_FILE_LINES).map((f) => `${f.path}: ${f.lines} lines`);
const overShare = (files) =>
  shares(files)
    .filter((p) => p.share > MAX_PACKAGE_SHARE)
    .map((p) => `${p.ws}: ${(100 * p.share).toFixed(1)}%`);

/** The Oh packages' versions, and every dependency on an Oh package not pinned `workspace:<that version>`. */
function ohPins(base) {
  const manifests = walk(base)
    .filter((file) => file.endsWith('/package.json'))
    .map((file) => ({ path: relative(base, file), json: JSON.parse(readFileSync(file, 'utf8')) }));
  const oh = manifests.filter((m) => m.json.name?.startsWith('@oh/'));
  const versions = [...new Set(oh.map((m) => m.json.version))];
  const loose = [];
  for (const { path, json } of manifests)
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'])
      for (const [name, range] of Object.entries(json[field] ?? {}))
        if (name.startsWith('@oh/') && (versions.length !== 1 || range !== `workspace:${versions[0]}`))
          loose.push(`${path} ${field} ${name}@${range}`);
  return { packages: oh.length, versions, loose };
}

/**
 * What in the API's routers looks like SQL (issue 38): a statement object, a client's `execute` or
 * `batch`, or the words of a statement. A router maps inputs to domain calls and errors to codes;
 * statements live in the rooms and the domains (.dependency-cruiser.mjs, routers-hold-no-sql, keeps
 * the driver out of them as well).
 */
const SQL_IN_TEXT = [
  /\bsql\s*:/,
  /\.(execute|batch|executeMultiple)\s*\(/,
  /\b(SELECT\b[^;]*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/,
];

function sqlInRouters(base) {
  return productFiles(base)
    .filter((f) => f.path.startsWith('apps/api/src/routers/'))
    .flatMap((f) =>
      readFileSync(join(base, f.path), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          SQL_IN_TEXT.some((re) => re.test(line)) ? [`${f.path}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
}

/**
 * The API's rooms, lowest first (apps/api/README.md): a folder of apps/api/src, or a file at its
 * root. A product file imports its own room or one on a lower line, never one beside or above it,
 * so no two rooms need each other and none reaches back up.
 */
const API_ROOMS = [
  ['errors.ts', 'tokens.ts', 'log.ts', 'data-dir.ts', 'migrations.ts'],
  ['http'],
  ['accounts'],
  ['config.ts'],
  ['deps.ts', 'stores.ts'],
  ['runs'],
  ['demo'],
  ['app.ts'],
  ['trpc'],
  ['routers'],
  ['router.ts'],
  ['mcp'],
  ['server.ts', 'index.ts'],
  ['bin'],
];
const roomLevel = new Map(API_ROOMS.flatMap((rooms, level) => rooms.map((room) => [room, level])));

/** Every import of an API product file that reaches a room beside or above its own, as `from -> to`. */
function apiImportsGoingUp(base) {
  const src = 'apps/api/src/';
  const found = [];
  for (const { path } of productFiles(base).filter((f) => f.path.startsWith(src))) {
    const from = path.slice(src.length);
    const room = from.split('/')[0];
    if (!roomLevel.has(room)) {
      found.push(`${from}: in no room`);
      continue;
    }
    for (const [, spec] of readFileSync(join(base, path), 'utf8').matchAll(
      /\b(?:from|import)\s*\(?\s*'(\.[^']+)'/g,
    )) {
      const to = posix.normalize(posix.join(posix.dirname(from), spec));
      const other = to.split('/')[0];
      if (other !== room && !(roomLevel.get(other) < roomLevel.get(room))) found.push(`${from} -> ${to}`);
    }
  }
  return found;
}

describe('the house', () => {
  const files = productFiles(root);

  it('no product file is over 600 lines', (t) => {
    const largest = [...files].sort((a, b) => b.lines - a.lines).slice(0, 8);
    t.diagnostic(`largest product files: ${largest.map((f) => `${f.path} ${f.lines}`).join(', ')}`);
    assert.ok(files.length > 100, `found the product files (${files.length})`);
    assert.deepEqual(overLong(files), []);
  });

  it('no package holds over 40% of the product lines', (t) => {
    const list = shares(files);
    t.diagnostic(
      `${files.reduce((n, f) => n + f.lines, 0)} product lines in ${files.length} files: ` +
        list.map((p) => `${p.ws} ${p.lines} (${(100 * p.share).toFixed(1)}%)`).join(', '),
    );
    assert.deepEqual(overShare(files), []);
  });

  it("the API's routers hold no SQL", () => {
    assert.ok(
      files.filter((f) => f.path.startsWith('apps/api/src/routers/')).length >= 8,
      'found the routers',
    );
    assert.deepEqual(sqlInRouters(root), []);
  });

  it("the API's rooms import only downwards", () => {
    assert.deepEqual(apiImportsGoingUp(root), []);
  });

  it("every Oh package has Oh's one version, and every dependency on one pins it exactly", (t) => {
    const pins = ohPins(root);
    t.diagnostic(`Oh ${pins.versions.join(', ')} (${pins.packages} packages)`);
    assert.ok(pins.packages >= 4, 'found the Oh packages');
    assert.equal(pins.versions.length, 1, `one Oh version, got ${pins.versions.join(', ')}`);
    assert.deepEqual(pins.loose, []);
  });
});

describe('the house checks fail on a violation', () => {
  const base = mkdtempSync(join(tmpdir(), 'house-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  const write = (path, text) => {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), text);
  };
  const manifest = (name, version, dependencies = {}) => JSON.stringify({ name, version, dependencies });
  const lines = (n) => 'export const x = 1;\n'.repeat(n);

  it('counts product code only, and finds a file over 600 lines and a package over 40%', () => {
    write('packages/oh/memory/package.json', manifest('@oh/memory', '0.10.8'));
    write('packages/oh/memory/src/store.ts', lines(601));
    write('packages/oh/memory/src/store.test.ts', lines(5000));
    write('packages/oh/memory/src/testing/harness.ts', lines(5000));
    write('packages/oh/memory/src/recall/recall.bench.ts', lines(5000));
    write('apps/api/package.json', manifest('@sponge/api', '0.0.0', { '@oh/memory': 'workspace:0.10.8' }));
    write('apps/api/src/server.ts', lines(600));
    write('apps/web/package.json', manifest('@sponge/web', '0.0.0'));
    write('apps/web/src/main.tsx', lines(300));
    const files = productFiles(base);
    assert.deepEqual(files.map((f) => f.path).sort(), [
      'apps/api/src/server.ts',
      'apps/web/src/main.tsx',
      'packages/oh/memory/src/store.ts',
    ]);
    assert.deepEqual(overLong(files), ['packages/oh/memory/src/store.ts: 601 lines']);
    assert.deepEqual(overShare(files), ['packages/oh/memory: 40.0%']);
  });

  it('finds SQL in a router, and nowhere else', () => {
    write('apps/api/src/routers/notes.ts', "export const list = (db) => db.execute({ sql: 'SELECT 1' });\n");
    write(
      'apps/api/src/routers/runs.ts',
      "export const finish = (run) => finishRun(run); // the run's UPDATE is runs/'s\n",
    );
    write(
      'apps/api/src/runs/runs.ts',
      "export const finishRun = (db) => db.execute('UPDATE runs SET status = 1');\n",
    );
    assert.deepEqual(sqlInRouters(base), [
      "apps/api/src/routers/notes.ts:1: export const list = (db) => db.execute({ sql: 'SELECT 1' });",
    ]);
  });

  it('finds an API import that goes up or beside its room, and a file in no room', () => {
    write(
      'apps/api/src/runs/accept.ts',
      "import { x } from './access.ts';\nimport { e } from '../errors.ts';\n",
    );
    write('apps/api/src/runs/access.ts', "import { p } from '../trpc/procedures.ts';\n");
    write('apps/api/src/http/credential.ts', "import type { U } from '../accounts/users.ts';\n");
    write('apps/api/src/deps.ts', "import type { S } from './stores.ts';\n");
    write('apps/api/src/bin/main.ts', "import { startServer } from '../server.ts';\n");
    write('apps/api/src/stray/thing.ts', 'export const t = 1;\n');
    assert.deepEqual(apiImportsGoingUp(base).sort(), [
      'deps.ts -> stores.ts',
      'http/credential.ts -> accounts/users.ts',
      'runs/access.ts -> trpc/procedures.ts',
      'stray/thing.ts: in no room',
    ]);
  });

  it('finds two Oh versions, and a dependency on Oh not pinned exactly', () => {
    assert.deepEqual(ohPins(base).loose, []);
    write('packages/oh/schema/package.json', manifest('@oh/schema', '0.10.9'));
    assert.deepEqual(ohPins(base).versions.sort(), ['0.10.8', '0.10.9']);
    write('packages/oh/schema/package.json', manifest('@oh/schema', '0.10.8'));
    write('bench/package.json', manifest('@sponge/bench', '0.0.0', { '@oh/schema': 'workspace:*' }));
    write('e2e/package.json', manifest('@sponge/e2e', '0.0.0', { '@oh/memory': '^0.10.8' }));
    assert.deepEqual(ohPins(base).loose.sort(), [
      'bench/package.json dependencies @oh/schema@workspace:*',
      'e2e/package.json dependencies @oh/memory@^0.10.8',
    ]);
  });
});
