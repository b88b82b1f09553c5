import { defineConfig } from 'vitest/config';

// TEST_DATABASES=sqld runs the suites whose databases come from src/testing/ (the harness, and the
// library's test database) on libSQL servers of their own instead of files; links and marks open no
// database, and would only run twice.
const onServers = process.env.TEST_DATABASES === 'sqld';

export default defineConfig({
  test: {
    include: onServers
      ? ['src/knowledge.test.ts', 'src/store.test.ts', 'src/review.test.ts', 'src/verify.test.ts']
      : ['src/**/*.test.ts'],
    // Real libSQL files (or servers), in forks as the other packages' suites run (the native driver
    // is happier in separate processes than in worker threads).
    pool: 'forks',
    maxWorkers: 2,
    // The JSON report feeds the root test summary (scripts/summarize-tests.mjs); the run on libSQL
    // servers keeps its own.
    reporters: [
      'default',
      ['json', { outputFile: onServers ? 'test-results/vitest-sqld.json' : 'test-results/vitest.json' }],
    ],
  },
});
