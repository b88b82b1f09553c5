// The house rules of issue 25 that no linter holds: no product file over 600 lines, no package over
// 40% of the product's lines, and every Sponge package pins Oh's one version exactly. Product code
// is a package's or an app's src/ without tests, test harnesses, fixtures and bench scripts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const MAX_FILE_LINES = 600;
const MAX_PACKAGE_SHARE = 0.4;

/** Every workspace folder with a package.json: packages/*, packages/oh/*, apps/*. */
export function workspaces(base = root) {
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
  !/(^|\/)(test-support\.ts|remember-race-child\.ts)$/.test(path) &&
  !path.endsWith('.d.ts');

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Lines of every product file, by workspace. */
export function productLines(base = root) {
  const out = [];
  for (const ws of workspaces(base)) {
    const src = join(base, ws, 'src');
    if (!existsSync(src)) continue;
    for (const file of walk(src)) {
      const path = relative(base, file);
      if (!isProduct(path)) continue;
      out.push({ workspace: ws, path, lines: readFileSync(file, 'utf8').split('\n').length });
    }
  }
  return out;
}

describe('the house', () => {
  const files = productLines();
  const total = files.reduce((n, f) => n + f.lines, 0);

  it('no product file is over 600 lines', (t) => {
    const largest = [...files].sort((a, b) => b.lines - a.lines);
    t.diagnostic(
      `largest: ${largest
        .slice(0, 5)
        .map((f) => `${f.path} ${f.lines}`)
        .join(', ')}`,
    );
    assert.ok(files.length > 100, 'found the product files');
    const over = largest.filter((f) => f.lines > MAX_FILE_LINES);
    assert.deepEqual(
      over.map((f) => `${f.path}: ${f.lines} lines`),
      [],
    );
  });

  it('no package holds over 40% of the product lines', (t) => {
    const shares = new Map();
    for (const f of files) shares.set(f.workspace, (shares.get(f.workspace) ?? 0) + f.lines);
    const list = [...shares].sort((a, b) => b[1] - a[1]).map(([ws, n]) => ({ ws, n, share: n / total }));
    t.diagnostic(
      `${total} product lines: ${list.map((p) => `${p.ws} ${(100 * p.share).toFixed(1)}%`).join(', ')}`,
    );
    const over = list.filter((p) => p.share > MAX_PACKAGE_SHARE);
    assert.deepEqual(
      over.map((p) => `${p.ws}: ${(100 * p.share).toFixed(1)}%`),
      [],
    );
  });

  it("every Oh package has Oh's one version, and every dependency on one pins it exactly", () => {
    const manifests = [...workspaces(), 'bench', 'e2e'].map((ws) => ({
      ws,
      json: JSON.parse(readFileSync(join(root, ws, 'package.json'), 'utf8')),
    }));
    const oh = manifests.filter((m) => m.json.name.startsWith('@oh/'));
    assert.ok(oh.length >= 4, 'found the Oh packages');
    const versions = new Set(oh.map((m) => m.json.version));
    assert.equal(versions.size, 1, `one Oh version, got ${[...versions].join(', ')}`);
    const [version] = versions;
    const loose = [];
    for (const { ws, json } of manifests)
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies'])
        for (const [name, range] of Object.entries(json[field] ?? {}))
          if (name.startsWith('@oh/') && range !== `workspace:${version}`)
            loose.push(`${ws} ${name}@${range}`);
    assert.deepEqual(loose, []);
  });
});
