import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Real libSQL files, PDF and OCR threads on a 2-core machine: two files at a time, in forks
    // (the native driver is happier in separate processes than in worker threads).
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report feeds the root test summary (scripts/summarize-tests.mjs).
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
