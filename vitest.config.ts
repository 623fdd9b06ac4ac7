import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Temporal's native bridge is not safe in worker threads: one forked process per test file.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    // Each test process ends with the run, even one stopped by Ctrl-C or killed.
    setupFiles: ['test/fork-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
