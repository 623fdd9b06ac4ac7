// `npm run test:quick`: the suite without test/package and without the files tagged `// @slow` on their first
// line (docs/testing.md says which files get the tag: ~15 s or more of a worker's time on 2 cores).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/** The tag a slow test file carries on its first line. */
export const slowTag = '// @slow';

/** Test files (relative to the project) whose first line is the slow tag. */
export function slowTestFiles(root: string): string[] {
  return readdirSync(path.join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join('test', file))
    .filter((file) => {
      const firstLine = readFileSync(path.join(root, file), 'utf8').split('\n', 1)[0]!.trim();
      return firstLine === slowTag || firstLine.startsWith(`${slowTag} `);
    });
}

export default mergeConfig(
  base,
  defineConfig({
    test: {
      // test/package builds and installs the packed tarball (`npm run test:pack`): never quick.
      exclude: [...configDefaults.exclude, 'test/package/**', ...slowTestFiles(import.meta.dirname)],
      // The full run's record (test-results/vitest.json) is what tells slow files from quick ones: keep it.
      outputFile: { json: 'test-results/vitest-quick.json' },
    },
  }),
);
