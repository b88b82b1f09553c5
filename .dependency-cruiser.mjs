// The import rules of SPEC §2, checked by dependency-cruiser in `npm test` (the step "dependency
// rules") and by hand with `pnpm deps`. The map in docs/architecture.md draws the same arrows;
// scripts/dependency-rules.test.mjs shows each rule failing on a file that breaks it.
//
// Paths are from the repository's root. Workspace packages resolve to their source entries
// (.dependency-cruiser.tsconfig.json), so an import across packages lands on the file it reaches
// and the rules, cycles included, follow it there. Type-only imports (`import type`) are
// dependencies too: they count for cycles and orphans, and only the rules that say so let them
// through, because they load nothing at run time.

// Test code: never in a build (each package's tsconfig.build.json leaves it out).
const TEST = [
  '\\.(test|spec|bench)\\.tsx?$',
  '(^|/)(testing|fixtures)/',
  '^(e2e|bench)/',
  '(^|/)(vitest|vite|playwright)\\.config\\.ts$',
];
// What only tests load from npm.
const TEST_MODULES = '(^|/)node_modules/(vitest|@vitest|fast-check|@playwright|playwright|tinybench)/';
// The notebook store and the database drivers it runs on.
const STORE = ['^packages/oh/memory/', '(^|/)node_modules/(@libsql|libsql)/'];
// A workspace's folder: $1 in a rule's `to` is the importer's own workspace.
const WORKSPACE = '^(packages/oh/[^/]+|packages/[^/]+|apps/[^/]+|e2e|bench)/';
// The files other workspaces may import: each package's entries (package.json `exports`).
const ENTRIES = [
  '^(packages/oh/[^/]+|packages/[^/]+|apps/api)/src/index\\.ts$',
  '^packages/(oh/memory|library)/src/testing/index\\.ts$',
  '^packages/library/src/settings\\.ts$',
  '^packages/oh/embeddings/src/retry-after\\.ts$',
  '^packages/testing/src/[^/]+\\.ts$',
];
// What the web and the hosted runtime load, and all of it loads: never the store or a driver.
const STORE_FREE = '^(apps/web|packages/agent|packages/contract|packages/oh/schema|packages/oh/embeddings)/';
// All @oh/embeddings the web and the runtime may load: the Retry-After parser, which imports nothing.
const RETRY_AFTER = '^packages/oh/embeddings/src/retry-after\\.ts$';
// Product files nothing else in the product imports: what a process, a worker, a page or
// another package starts from (package.json `exports` and scripts, index.html).
const STARTS = [
  ...ENTRIES,
  '^apps/api/src/bin/(main|purge-main|verify-main|users-main)\\.ts$',
  // The library's PDF and OCR threads, which a Worker starts by their URL.
  '^packages/library/src/(extract/pdf-worker|ocr/ocr-worker)\\.ts$',
  '^apps/web/src/main\\.tsx$',
  // The document page's quote search over a long stretch, a Web Worker started by its URL.
  '^apps/web/src/document/quote-worker\\.ts$',
  '^packages/agent/src/(demo|runtime/main)\\.ts$',
  '^packages/oh/memory/src/db/thread/entry\\.mjs$',
  '^packages/oh/profiles/src/build-packs\\.ts$',
  '\\.d\\.ts$',
];

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No cycles, type-only imports included: a cycle means two files are one.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'A file that imports nothing and that nothing imports is dead or forgotten.',
      severity: 'error',
      from: { orphan: true, pathNot: '\\.d\\.ts$' },
      to: {},
    },
    {
      name: 'no-dead-product-files',
      comment:
        'A product file that no product file imports is dead code (tests alone do not keep it), ' +
        'unless something starts from it: list it in STARTS.',
      severity: 'error',
      module: { path: WORKSPACE, pathNot: [...TEST, ...STARTS], numberOfDependentsLessThan: 1 },
      from: { pathNot: TEST },
    },
    {
      name: 'oh-imports-nothing-of-sponge',
      comment: 'Oh packages import only Oh packages and third-party modules (SPEC §2).',
      severity: 'error',
      from: { path: '^packages/oh/' },
      to: { pathNot: ['^packages/oh/', '(^|/)node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'oh-schema-imports-only-zod',
      comment: "Oh's schema entry loads only zod: browser- and runtime-safe (SPEC §2).",
      severity: 'error',
      from: { path: '^packages/oh/schema/', pathNot: TEST },
      to: { pathNot: ['^packages/oh/schema/', '(^|/)node_modules/zod/'] },
    },
    {
      name: 'contract-imports-only-zod-and-oh-schema',
      comment: '@sponge/contract imports only zod and @oh/schema (SPEC §2).',
      severity: 'error',
      from: { path: '^packages/contract/', pathNot: TEST },
      to: { pathNot: ['^packages/(contract|oh/schema)/', '(^|/)node_modules/zod/'] },
    },
    {
      name: 'no-package-imports-an-app',
      comment: "No package imports an app's source; a type-only import (AppRouter) loads nothing.",
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(apps|e2e|bench)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domains-import-no-app',
      comment:
        'The library (@sponge/library) and reviewed knowledge (@sponge/reviewed) are domains below ' +
        'the apps: they import no app, not even its types; the app hands them what they need (a ' +
        'client, an adapter, its notebook store, its own tables by name).',
      severity: 'error',
      from: { path: '^packages/(library|reviewed)/' },
      to: { path: '^(apps|e2e|bench)/' },
    },
    {
      name: 'routers-hold-no-sql',
      comment:
        "The API's routers map inputs to domain calls and errors to codes: no database driver, not " +
        'even its types; statements live in the rooms and the domains (scripts/house.test.mjs checks ' +
        'their text too).',
      severity: 'error',
      from: { path: '^apps/api/src/routers/', pathNot: TEST },
      to: { path: '(^|/)node_modules/(@libsql|libsql)/' },
    },
    {
      name: 'web-imports-the-api-by-type-only',
      comment: 'The web knows the API by its types (AppRouter) and talks to it over tRPC.',
      severity: 'error',
      from: { path: '^apps/web/' },
      to: { path: '^apps/api/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-and-runtime-load-only-store-free-packages',
      comment:
        'The web, the hosted runtime and what they load (contract, @oh/schema, @oh/embeddings) ' +
        'load no other workspace package, so nothing they load reaches the store.',
      severity: 'error',
      from: { path: STORE_FREE, pathNot: TEST },
      to: {
        path: '^(apps|packages)/',
        pathNot: STORE_FREE,
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'web-and-runtime-never-load-the-store',
      comment: 'Neither they nor what they load load @oh/memory or a database driver (SPEC §2).',
      severity: 'error',
      from: { path: STORE_FREE, pathNot: TEST },
      to: { path: STORE, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-and-runtime-load-no-embedding-adapter',
      comment:
        'From @oh/embeddings the web and the runtime take only the Retry-After parser (its entry ' +
        '@oh/embeddings/retry-after), and it imports nothing: no adapter, HTTP client or retry loop.',
      severity: 'error',
      from: {
        path: ['^(apps/web|packages/agent|packages/contract|packages/oh/schema)/', RETRY_AFTER],
        pathNot: TEST,
      },
      to: { path: '^packages/oh/embeddings/', pathNot: RETRY_AFTER },
    },
    {
      name: 'product-imports-no-test-code',
      comment: 'Product files import no test code: @sponge/testing, testing/ folders, tests, vitest.',
      severity: 'error',
      from: { path: WORKSPACE, pathNot: TEST },
      to: { path: [...TEST, TEST_MODULES] },
    },
    {
      name: 'only-entries-across-packages',
      comment: 'Every package exports from its entries: another package imports nothing else of it.',
      severity: 'error',
      from: { path: WORKSPACE },
      to: { path: '^(packages/oh/[^/]+|packages/[^/]+|apps/[^/]+)/', pathNot: ['^$1/', ...ENTRIES] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves (a missing file or an undeclared module).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dist',
      comment:
        "An import reached a package's build output: map its entry to its source in " +
        '.dependency-cruiser.tsconfig.json.',
      severity: 'error',
      from: {},
      to: { path: '^(packages/oh/[^/]+|packages/[^/]+|apps/[^/]+)/dist/' },
    },
  ],
  options: {
    // Neither modules from npm nor a package's build output are source: an import of one is
    // seen (and judged: not-to-dist) but not read, and neither is scanned.
    doNotFollow: { path: ['(^|/)node_modules/', '^(packages/oh/[^/]+|packages/[^/]+|apps/[^/]+)/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: '.dependency-cruiser.tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
