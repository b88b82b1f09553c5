import { defineConfig } from 'vitest/config';

// Real libSQL files, in forks as the other packages' suites run (the native driver is happier in
// separate processes than in worker threads); the JSON report feeds the root test summary.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
