// The patch baseline against the ids workflow code declares (docs/testing.md, "Patches in use").
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const workflowsDir = path.join(import.meta.dirname, '..', '..', 'src', 'workflows');
const sources = readdirSync(workflowsDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file, text: readFileSync(path.join(workflowsDir, file), 'utf8') }));
const patchesSource = sources.find((source) => source.file === path.join('runtime', 'patches.ts'))!.text;
/** The ids the baselines stand for, as listed in patches.ts (each baseline adds its ids to its predecessor's). */
const covered = [...patchesSource.matchAll(/const coveredByBaseline\d+[^=]*= new Set\(\[([^\]]*)\]/g)].flatMap((list) =>
  [...list[1]!.matchAll(/'([^']+)'/g)].map((match) => match[1]),
);
/** Every patch id constant workflow code declares (`export const somethingPatch = 'id'`). */
const declared = sources.flatMap(({ text }) =>
  [...text.matchAll(/export const \w+Patch = '([^']+)'/g)].map((match) => match[1]),
);

// That only patches.ts calls the SDK patched() is a lint rule (eslint.config.js, no-restricted-syntax).
describe('patch ids in workflow code', () => {
  it('are each covered by the baseline or asked on their own — and the baseline names no id that nothing declares', () => {
    expect(covered.length).toBeGreaterThan(10);
    // Every id the baseline stands for is still declared where its change lives (its old path replays).
    expect(covered.filter((id) => !declared.includes(id))).toEqual([]);
    expect(new Set(covered).size).toBe(covered.length);
  });
});
