import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inProcessListingMaxEntries, listFiles, listFilesWithWalk } from '../../../src/activities/tools/file-list';
import { findRipgrep, listFilesWithRipgrep } from '../../../src/activities/tools/ripgrep';
import { createTestWorkspace, type TestWorkspace } from './helpers';
import { buildIgnoreTree, expectedListing } from './ignore-tree';

let workspace: TestWorkspace;
beforeEach(async () => {
  workspace = await createTestWorkspace();
  await buildIgnoreTree(workspace.root);
});
afterEach(() => workspace.cleanup());

const ripgrep = await findRipgrep();

describe('built-in file walker', () => {
  it('respects root and nested .gitignore files, negations, anchors and directory-only rules', async () => {
    expect(await listFilesWithWalk(workspace.root, workspace.env)).toEqual(expectedListing);
  });

  it('applies .gitignore files of parent directories when listing a subdirectory', async () => {
    await workspace.write('src/deep/x.log', '');
    await workspace.write('src/deep/y.ts', '');
    expect(await listFilesWithWalk(path.join(workspace.root, 'src'), workspace.env)).toEqual([
      '.gitignore',
      'build/keep.ts',
      'deep/y.ts',
      'keep.gen.ts',
      'main.ts',
    ]);
  });

  it('applies .gitignore files above the workspace when no repository root is in between', async () => {
    await fs.rm(path.join(workspace.root, '.git'), { recursive: true });
    const above = path.join(path.dirname(workspace.root), '.gitignore');
    await fs.writeFile(above, 'a.ts\n');
    expect(await listFilesWithWalk(workspace.root, workspace.env)).toEqual(
      expectedListing.filter((file) => file !== 'a.ts'),
    );
  });

  it('stops when cancelled', async () => {
    workspace.abort.abort();
    await expect(listFilesWithWalk(workspace.root, workspace.env)).rejects.toThrow('cancelled');
  });
});

describe.skipIf(!ripgrep)('rg --files gives the same set as the walker', () => {
  it('for the whole tree, a subdirectory and a nested repository', async () => {
    for (const relative of ['', 'src', 'nested', 'docs']) {
      const base = path.join(workspace.root, relative);
      const viaRipgrep = await listFilesWithRipgrep(ripgrep!, base, workspace.env);
      expect(viaRipgrep, relative || '.').toEqual(await listFilesWithWalk(base, workspace.env));
    }
    expect(await listFilesWithRipgrep(ripgrep!, workspace.root, workspace.env)).toEqual(expectedListing);
  });

  it('also without any repository, with a .gitignore above the base', async () => {
    await fs.rm(path.join(workspace.root, '.git'), { recursive: true });
    await fs.writeFile(path.join(path.dirname(workspace.root), '.gitignore'), 'a.ts\n');
    const base = path.join(workspace.root, 'src');
    expect(await listFilesWithRipgrep(ripgrep!, workspace.root, workspace.env)).toEqual(
      await listFilesWithWalk(workspace.root, workspace.env),
    );
    expect(await listFilesWithRipgrep(ripgrep!, base, workspace.env)).toEqual(
      await listFilesWithWalk(base, workspace.env),
    );
  });
});

describe('listFiles: small trees in this process, large ones with rg', () => {
  it('starts no process for a small tree, and rg (here a recording stand-in on its path) once the walk passes its limit', async () => {
    // The stand-in answers like `rg --files --null` and leaves a mark, so the test sees whether a process was started.
    const mark = path.join(workspace.outside, 'rg-started');
    const standIn = path.join(workspace.outside, 'rg');
    await fs.writeFile(standIn, `#!/bin/sh\ntouch '${mark}'\nprintf 'from-rg.txt\\0'\n`, { mode: 0o755 });
    const env = { ...workspace.env, ripgrep: standIn };
    expect(await listFiles(workspace.root, env)).toEqual(expectedListing);
    await expect(fs.stat(mark)).rejects.toThrow();
    const big = path.join(workspace.root, 'big');
    await fs.mkdir(big);
    await Promise.all(
      Array.from({ length: inProcessListingMaxEntries + 1 }, (_, index) =>
        fs.writeFile(path.join(big, `f${index}.txt`), ''),
      ),
    );
    expect(await listFiles(workspace.root, env)).toEqual(['from-rg.txt']);
    await fs.stat(mark);
  });
});
