import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGlob, splitLiteralPrefix } from '../../../src/activities/tools/glob';
import { findRipgrep } from '../../../src/activities/tools/ripgrep';
import { createTestWorkspace, setMtime, type TestWorkspace } from './helpers';
import { buildIgnoreTree, expectedListing } from './ignore-tree';
import { expectResults } from '../../helpers/unit-cases';

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace();
});
afterEach(() => workspace.cleanup());

const ripgrep = await findRipgrep();
const lines = (content: string) => content.split('\n');

describe('Glob', () => {
  it('lists matching files, newest first', async () => {
    await setMtime(await workspace.write('old.ts', ''), 1_000_000);
    await setMtime(await workspace.write('src/new.ts', ''), 3_000_000);
    await setMtime(await workspace.write('src/mid.ts', ''), 2_000_000);
    await workspace.write('src/readme.md', '');
    const result = await runGlob(workspace.call({ pattern: '**/*.ts' }), workspace.env);
    expect(result).toEqual({ isError: false, content: 'src/new.ts\nsrc/mid.ts\nold.ts' });
  });

  it('matches relative to path, so *.ts is not recursive', async () => {
    await workspace.write('top.ts', '');
    await workspace.write('src/inner.ts', '');
    await workspace.write('src/deeper/inner2.ts', '');
    expect((await runGlob(workspace.call({ pattern: '*.ts' }), workspace.env)).content).toBe('top.ts');
    const inSrc = await runGlob(workspace.call({ pattern: '*.ts', path: 'src' }), workspace.env);
    expect(inSrc.content).toBe('src/inner.ts');
    const fromSub = await runGlob(
      workspace.call({ pattern: '**/*.ts' }, { context: { cwd: path.join(workspace.root, 'src') } }),
      workspace.env,
    );
    expect(lines(fromSub.content).sort()).toEqual(['deeper/inner2.ts', 'inner.ts']);
  });

  it('supports braces, classes, ? and absolute patterns inside the workspace', async () => {
    for (const file of ['a1.ts', 'a2.tsx', 'b1.js', 'c1.md', 'dir/x.ts']) await workspace.write(file, '');
    const sorted = async (input: Record<string, unknown>) =>
      lines((await runGlob(workspace.call(input), workspace.env)).content).sort();
    expect(await sorted({ pattern: '*.{ts,tsx}' })).toEqual(['a1.ts', 'a2.tsx']);
    expect(await sorted({ pattern: '[ab]?.*' })).toEqual(['a1.ts', 'a2.tsx', 'b1.js']);
    expect(await sorted({ pattern: `${workspace.root}/dir/*.ts` })).toEqual(['dir/x.ts']);
    expect(await sorted({ pattern: 'dir/x.ts' })).toEqual(['dir/x.ts']);
  });

  it('does not return directories', async () => {
    await fs.mkdir(path.join(workspace.root, 'only-dir.ts'));
    await workspace.write('file.ts', '');
    expect((await runGlob(workspace.call({ pattern: '*' }), workspace.env)).content).toBe('file.ts');
  });

  it('respects .gitignore and always skips .git and node_modules', async () => {
    await buildIgnoreTree(workspace.root);
    const result = await runGlob(workspace.call({ pattern: '**/*' }), workspace.env);
    expect(lines(result.content).sort()).toEqual(expectedListing);
  });

  it.skipIf(!ripgrep)('gives the same answer through rg when rg is installed', async () => {
    await buildIgnoreTree(workspace.root);
    const viaWalk = await runGlob(workspace.call({ pattern: '**/*.{ts,log}' }), workspace.env);
    const viaRipgrep = await runGlob(workspace.call({ pattern: '**/*.{ts,log}' }), {
      ...workspace.env,
      ripgrep: ripgrep!,
    });
    expect(lines(viaRipgrep.content)).toContain('important.log');
    expect(lines(viaRipgrep.content).sort()).toEqual(lines(viaWalk.content).sort());
  });

  it('caps results at 100 with a note', async () => {
    for (let index = 0; index < 130; index += 1)
      await workspace.write(`many/f${String(index).padStart(3, '0')}.txt`, '');
    const result = await runGlob(workspace.call({ pattern: 'many/*.txt' }), workspace.env);
    const output = lines(result.content);
    expect(output).toHaveLength(101);
    expect(output[100]).toBe('(results truncated: 30 more; narrow the pattern)');
  });

  it('says so when nothing matches, and refuses a file or missing directory as path', async () => {
    await workspace.write('a.txt', '');
    expect(await runGlob(workspace.call({ pattern: '*.rs' }), workspace.env)).toEqual({
      isError: false,
      content: `No files found matching *.rs in ${workspace.root}.`,
    });
    expect(await runGlob(workspace.call({ pattern: 'missing/*.rs' }), workspace.env)).toMatchObject({ isError: false });
    const onFile = await runGlob(workspace.call({ pattern: '*', path: 'a.txt' }), workspace.env);
    expect(onFile.content).toMatch(/^NotADirectory: /);
    const missing = await runGlob(workspace.call({ pattern: '*', path: 'nope' }), workspace.env);
    expect(missing.content).toMatch(/^FileNotFound: /);
    const invalid = await runGlob(workspace.call({ pattern: '' }), workspace.env);
    expect(invalid.content).toMatch(/^InvalidToolInput: .*"pattern"/);
  });
});

describe('splitLiteralPrefix', () => {
  it('moves leading literal directories into the base', () => {
    expectResults(splitLiteralPrefix, [
      [['src/lib/**/*.ts'], { prefix: 'src/lib', rest: '**/*.ts' }],
      [['**/*.ts'], { prefix: '', rest: '**/*.ts' }],
      [['/abs/dir/*.ts'], { prefix: '/abs/dir', rest: '*.ts' }],
      [['/*.ts'], { prefix: '/', rest: '*.ts' }],
      [['a/b.ts'], { prefix: 'a', rest: 'b.ts' }],
      [['{a,b}/c.ts'], { prefix: '', rest: '{a,b}/c.ts' }],
    ]);
  });
});
