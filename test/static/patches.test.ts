// Patch ids in workflow code: a handful at most, each declared once with its reason (docs/testing.md, "Patches in use").
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const workflowsDir = path.join(import.meta.dirname, '..', '..', 'src', 'workflows');
const patchesFile = path.join('runtime', 'patches.ts');
const sources = readdirSync(workflowsDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(path.join(workflowsDir, file), 'utf8') }));

/** Every `hasPatch(...)` call outside patches.ts, with its argument as written. */
const asked = sources
  .filter(({ file }) => file !== patchesFile)
  .flatMap(({ file, text }) => [...text.matchAll(/\bhasPatch\(([^)]*)\)/g)].map((match) => ({ file, arg: match[1]! })));
/** Every patch id constant, with whether a doc comment (its why) sits right above it. */
const declared = sources.flatMap(({ file, text }) =>
  [...text.matchAll(/(\*\/\n)?export const (\w+Patch) = '([^']+)'/g)].map((match) => ({
    file,
    name: match[2]!,
    id: match[3]!,
    commented: match[1] !== undefined,
  })),
);

// Versioned workers pin a run to the code it started on (docs/operations.md, "Upgrades"): a branch is the exception.
describe('patch ids in workflow code', () => {
  it('only runtime/patches.ts imports the SDK patched() (the lint rule in eslint.config.js says the same)', () => {
    const importers = sources.filter(({ text }) =>
      /import\s*{[^}]*\bpatched\b[^}]*}\s*from\s*'@temporalio\/workflow'/.test(text),
    );
    expect(importers.map(({ file }) => file)).toEqual([patchesFile]);
    expect(readFileSync(path.join(workflowsDir, '..', '..', 'eslint.config.js'), 'utf8')).toContain(
      "ImportSpecifier[imported.name='patched']",
    );
  });

  it('are a handful, each asked by a declared constant with a comment why, no id twice', () => {
    expect(declared.length).toBeLessThanOrEqual(5);
    expect(declared.filter(({ commented }) => !commented)).toEqual([]);
    expect(new Set(declared.map(({ id }) => id)).size).toBe(declared.length);
    // A literal id, or one no constant declares, would escape the count above.
    expect(asked.filter(({ arg }) => !declared.some(({ name }) => name === arg.trim()))).toEqual([]);
  });
});
