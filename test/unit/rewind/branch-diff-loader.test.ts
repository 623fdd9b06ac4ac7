import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCheckpoint } from '../../../src/checkpoints';
import { compareLatestFiles } from '../../../src/client/branch-diff-loader';
import type { TurnCheckpoint } from '../../../src/shared/workspace/checkpoints';

// compareLatestFiles on real repositories (loadBranchSide is exercised by the integration tests of diff).

let scratch: string;

async function repository(name: string): Promise<string> {
  const root = path.join(scratch, name);
  await fs.mkdir(root);
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}

async function record(root: string, agentId: string, turn: number): Promise<TurnCheckpoint> {
  const result = await recordCheckpoint(
    { agentId, cwd: root, turn },
    {
      env: { ...process.env, SUBAGENTS_HOME: path.join(scratch, 'home', '.subagents') },
      homeDir: path.join(scratch, 'home'),
    },
  );
  if (result.kind !== 'recorded') throw new Error(`expected a checkpoint, got ${JSON.stringify(result)}`);
  return result.checkpoint;
}

beforeAll(async () => {
  scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'branch-diff-loader-')));
  await fs.mkdir(path.join(scratch, 'home'));
});
afterAll(async () => {
  await fs.rm(scratch, { recursive: true, force: true });
});

describe('compareLatestFiles', () => {
  it('lists the files that differ between two checkpoints of one repository', async () => {
    const root = await repository('one');
    await fs.writeFile(path.join(root, 'kept.txt'), 'same\n');
    await fs.writeFile(path.join(root, 'changed.txt'), 'before\n');
    await fs.writeFile(path.join(root, 'gone.txt'), 'bye\n');
    const a = await record(root, 'agent-a', 1);
    await fs.writeFile(path.join(root, 'changed.txt'), 'after\n');
    await fs.rm(path.join(root, 'gone.txt'));
    await fs.writeFile(path.join(root, 'new.txt'), 'hi\n');
    const b = await record(root, 'agent-b', 1);
    expect(await compareLatestFiles(a, b)).toEqual([
      { path: 'changed.txt', status: 'modified' },
      { path: 'gone.txt', status: 'deleted' },
      { path: 'new.txt', status: 'added' },
    ]);
    expect(await compareLatestFiles(a, a)).toEqual([]);
  });

  it('compares a checkpoint of a linked worktree (a fork with --worktree) with one of its repository', async () => {
    const root = await repository('linked');
    await fs.writeFile(path.join(root, 'file.txt'), 'main\n');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: root });
    git('add', '.');
    git('commit', '-qm', 'first');
    const worktree = path.join(scratch, 'linked-worktree');
    git('worktree', 'add', '-q', worktree);
    await fs.writeFile(path.join(worktree, 'file.txt'), 'fork\n');
    const a = await record(root, 'agent-a', 2);
    const b = await record(worktree, 'agent-a.fork-1', 3);
    expect(b.root).toBe(worktree);
    await fs.writeFile(path.join(worktree, 'added.txt'), 'new\n');
    const later = await record(worktree, 'agent-a.fork-1', 4);
    expect(await compareLatestFiles(a, later)).toEqual([
      { path: 'added.txt', status: 'added' },
      { path: 'file.txt', status: 'modified' },
    ]);
    // The fork's worktree removed: its checkpoints are still in the repository, read from the other side.
    git('worktree', 'remove', '--force', worktree);
    expect(await compareLatestFiles(later, a)).toEqual([
      { path: 'added.txt', status: 'deleted' },
      { path: 'file.txt', status: 'modified' },
    ]);
  });

  it('says why when a side has no checkpoint, the repositories differ, or the store is gone', async () => {
    const first = await repository('first');
    const second = await repository('second');
    await fs.writeFile(path.join(first, 'a.txt'), 'a\n');
    await fs.writeFile(path.join(second, 'b.txt'), 'b\n');
    const a = await record(first, 'agent-a', 0);
    const b = await record(second, 'agent-b', 0);
    expect(await compareLatestFiles(a, undefined)).toEqual({
      unavailable: 'only one side has a checkpoint of its files.',
    });
    expect(await compareLatestFiles(undefined, undefined)).toEqual({
      unavailable: 'neither side has a checkpoint of its files.',
    });
    expect(await compareLatestFiles(a, b)).toEqual({
      unavailable: `${first} and ${second} are checkouts of two repositories, so their checkpoints are not in one store.`,
    });
    expect(await compareLatestFiles(a, { ...b, store: 'private', gitDir: '/nowhere' })).toMatchObject({
      unavailable: expect.stringContaining('different stores'),
    });
    await fs.rm(first, { recursive: true, force: true });
    const gone = await compareLatestFiles(a, b);
    expect(gone).toEqual({ unavailable: `NotADirectory: the checkpoint's workspace ${first} is not a directory.` });
  });
});
