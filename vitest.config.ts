import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Temporal's native bridge is not safe in worker threads: one forked process per test file.
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    reporters: ['default', 'json'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
