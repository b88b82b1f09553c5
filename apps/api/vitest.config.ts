import { configDefaults, defineConfig } from 'vitest/config';

// TEST_DATABASES=sqld runs the suites that start their server through src/testing/harness.ts
// with both databases on libSQL servers. Left out: suites that start API processes on files of
// their own (security/, forgetting-on-disk, mcp/oauth-limits) or open no database (config),
// which would only run twice; faults/, which start sqld servers of their own in the file run
// already (left out here, not counted as skipped); and db-thread, which compares the embedded
// database's two thread modes (a server has neither, and which of its racing calls wins is up to
// the server, not the arrival order the test expects).
const onServers = process.env.TEST_DATABASES === 'sqld';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    exclude: onServers
      ? [
          ...configDefaults.exclude,
          'src/security/**',
          'src/forgetting-on-disk.test.ts',
          'src/mcp/oauth-limits.test.ts',
          'src/faults/**',
          'src/config.test.ts',
          'src/db-thread.test.ts',
        ]
      : configDefaults.exclude,
    // Each file starts its own servers on temp libSQL files; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report feeds the root test summary (scripts/summarize-tests.mjs); the run with
    // both databases on libSQL servers (TEST_DATABASES=sqld) keeps its own.
    reporters: [
      'default',
      ['json', { outputFile: onServers ? 'test-results/vitest-sqld.json' : 'test-results/vitest.json' }],
    ],
    env: { LOG_LEVEL: 'silent' },
  },
});
