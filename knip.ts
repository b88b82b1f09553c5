// knip: unused files, exports, types and dependencies, dependencies a file uses but its package
// does not list, and exports made twice. `npm test` runs it (the step "unused exports and
// dependencies" of scripts/test.sh), and any finding fails the step; scripts/unused.test.mjs shows
// it failing. By hand: `pnpm exec knip`.
//
// What knip finds by itself, and this file does not repeat: the workspaces (pnpm-workspace.yaml);
// each package's `exports`, mapped from dist/ to src/ through the outDir of tsconfig.base.json, so
// an import of another package lands on its source; tests, test helpers and the configs of vitest,
// playwright, vite and eslint (its plugins); the threads a Worker starts from
// `new URL('./x.ts', import.meta.url)` (the PDF and OCR threads, the store's database thread);
// commands in package.json scripts.
//
// What it cannot know is said below, each with its reason. A deliberate export that nothing in
// the repository imports is tagged `/** @public */` at the export.
import { globSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KnipConfig } from 'knip';

type Workspace = NonNullable<KnipConfig['workspaces']>[string];

// The repository's root, wherever knip runs from (`knip --directory`).
const ROOT = import.meta.dirname;

/** The workspace folders, from pnpm-workspace.yaml's `packages:` list. */
function workspaceDirs(): string[] {
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8');
  const list = /^packages:\n((?:[ \t]+-.*\n)+)/m.exec(yaml)?.[1] ?? '';
  const patterns = [...list.matchAll(/^[ \t]+-\s*['"]?([^'"\s#]+)/gm)].map((m) => m[1]!);
  return patterns
    .flatMap((p) => globSync(`${p}/package.json`, { cwd: ROOT }).map((file) => dirname(file)))
    .sort();
}

/**
 * The source of every built file a package.json script runs (`node dist/main.js`,
 * `node [flags] dist/bin/purge.js`): dist/x.js is built from src/x.ts. Knip maps `exports` from
 * dist/ to src/ but not a script's argument, so without this an entry point run only from its
 * build (`pnpm --filter @sponge/api purge`) would be reported unused. Read from the scripts, so
 * an entry point that moves needs nothing here.
 */
function scriptEntries(dir: string): string[] {
  const { scripts = {} } = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const all = Object.values(scripts).join('\n');
  const entries = new Set<string>();
  for (const [name, script] of Object.entries(scripts)) {
    for (const [, path] of script.matchAll(/(?:^|\s)(?:\.\/)?dist\/(\S+)\.js(?=\s|$)/g)) {
      const source = `src/${path}.ts`;
      if (globSync(join(dir, source), { cwd: ROOT }).length === 0)
        throw new Error(
          `${dir}/package.json: the script "${name}" runs dist/${path}.js, but ${source} is not there`,
        );
      // A source another script runs itself (`tsx watch src/main.ts`) knip has already.
      if (!all.includes(source)) entries.add(`${source}!`);
    }
  }
  return [...entries];
}

/** What each workspace starts from beyond its scripts and `exports`, and what knip cannot see. */
const EXTRA: Record<string, Workspace> = {
  '.': {
    // Run by scripts/test.sh (node --test 'scripts/*.test.mjs', node scripts/summarize-tests.mjs),
    // which knip does not read.
    entry: ['scripts/*.mjs'],
  },
  'apps/api': {
    // conformance.test.ts runs the MCP conformance suite's CLI, found by
    // createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'),
    // a call knip does not read as a use.
    ignoreDependencies: ['@modelcontextprotocol/conformance'],
  },
  bench: {
    // The purge figure spawns it by path (`node --import tsx src/purge-child.ts`).
    entry: ['src/purge-child.ts'],
    // Never imported: the bench runs the API's build (apps/api/dist/bin/main.js) as a process. The
    // dependency is what makes turbo build the API before the bench's tests (`^build`).
    ignoreDependencies: ['@sponge/api'],
  },
  e2e: {
    // Never imported: the API the tests start serves the web's build (apps/web/dist). The
    // dependency is what makes turbo build the web before the end-to-end tests (`^build`).
    ignoreDependencies: ['@sponge/web'],
  },
  'packages/library': {
    ignoreDependencies: [
      // read-pdf.ts reads pdf.js's character maps and standard fonts from the installed package's
      // folder (createRequire(…).resolve('pdfjs-dist/package.json')); nothing imports it.
      'pdfjs-dist',
      // OCR languages are packages named by configuration (OCR_LANGUAGES, ocr/languages.ts
      // resolves `@tesseract.js-data/${code}`); English is the one the library depends on.
      '@tesseract.js-data/eng',
    ],
  },
  'packages/oh/memory': {
    // db/local-client.ts loads the native driver with createRequire(import.meta.url)('libsql')
    // (it is CommonJS with `module.exports = Database`), a call knip does not read as a use.
    ignoreDependencies: ['libsql'],
  },
};

const workspaces: Record<string, Workspace> = {};
for (const dir of ['.', ...workspaceDirs()]) {
  const extra = EXTRA[dir] ?? {};
  const entry = [...scriptEntries(dir), ...[extra.entry ?? []].flat()];
  workspaces[dir] = {
    // Sponge's packages are imported only inside this repository: an entry's export that no
    // other package imports is dead like any other. Oh's entries are its public API for users
    // outside it (each package's README, versioned in its CHANGELOG), used by Sponge or not.
    includeEntryExports: !dir.startsWith('packages/oh/'),
    ...extra,
    ...(entry.length > 0 ? { entry } : {}),
  };
}

export default {
  workspaces,
  // A hint is config that no longer fits the code (an ignore nothing needs, an entry or a
  // package.json `exports` target that matches no file): it fails the check as a finding does.
  treatConfigHintsAsErrors: true,
} satisfies KnipConfig;
