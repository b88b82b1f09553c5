import { defineConfig } from 'vitest/config';

// TEST_DATABASES=sqld runs the suites whose databases come from src/testing/database.ts on libSQL
// servers of their own instead of files; the others open files or no database at all, and would
// only run twice.
const onServers = process.env.TEST_DATABASES === 'sqld';

export default defineConfig({
  test: {
    include: onServers
      ? [
          'src/work-lease.test.ts',
          'src/uploads/queue-ledger.test.ts',
          'src/ocr/ocr.test.ts',
          'src/documents/reading.test.ts',
          'src/documents/tags-migration.test.ts',
        ]
      : ['src/**/*.test.ts'],
    // Real libSQL files, PDF and OCR threads on a 2-core machine: two files at a time, in forks
    // (the native driver is happier in separate processes than in worker threads).
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report feeds the root test summary (scripts/summarize-tests.mjs); the run on libSQL
    // servers (TEST_DATABASES=sqld) keeps its own.
    reporters: [
      'default',
      ['json', { outputFile: onServers ? 'test-results/vitest-sqld.json' : 'test-results/vitest.json' }],
    ],
  },
});
