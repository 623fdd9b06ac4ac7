import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';

const wasmPrefix = '\0wasm-base64:';

/** A `.wasm` import is its base64 text, as the workflow bundle's rule makes it (src/worker/plugin.ts). */
const wasmAsBase64: Plugin = {
  name: 'wasm-as-base64',
  enforce: 'pre',
  // A virtual id without "node_modules" in it: vitest would hand such a file to Node, which cannot import .wasm.
  async resolveId(source, importer, options) {
    if (!/[./]wasm$/.test(source)) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    return resolved?.id.endsWith('.wasm') ? `${wasmPrefix}${Buffer.from(resolved.id).toString('hex')}` : null;
  },
  load(id) {
    if (!id.startsWith(wasmPrefix)) return null;
    return `export default ${JSON.stringify(readFileSync(Buffer.from(id.slice(wasmPrefix.length), 'hex').toString()).toString('base64'))};`;
  },
};

export default defineConfig({
  plugins: [wasmAsBase64],
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
