// @slow
import { MockActivityEnvironment } from '@temporalio/testing';
import fs from 'node:fs/promises';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorktree } from '../../../src/activities/worktree/create';
import { createWorktreeActivities } from '../../../src/activities/worktree/index';
import { worktreeSlug, type WorktreeInfo } from '../../../src/shared/workspace/worktree';
import { createTestRepository, exists, type TestRepository } from './helpers';

let repository: TestRepository;
beforeEach(async () => {
  repository = await createTestRepository();
});
afterEach(() => repository.cleanup());

function worktreesDir(): string {
  return path.join(repository.repo, '.subagents', 'worktrees');
}

function inRun(runId: string, agentId: string, cwd: string): Promise<WorktreeInfo> {
  const environment = new MockActivityEnvironment({ workflowExecution: { workflowId: `agent-${agentId}`, runId } });
  return environment.run(createWorktreeActivities().createWorktree, { agentId, cwd });
}

describe('createWorktree', () => {
  it('creates a branch from HEAD and a worktree, mapping a subdirectory cwd to the same place inside it', async () => {
    const head = (await repository.git.revparse(['HEAD'])).trim();
    const info = await createWorktree({ agentId: 'agent-1', cwd: path.join(repository.repo, 'src') });
    const worktreePath = path.join(worktreesDir(), 'agent-1');
    expect(info).toEqual({
      repoRoot: repository.repo,
      path: worktreePath,
      branch: 'subagents/agent-1',
      baseCommit: head,
      cwd: path.join(worktreePath, 'src'),
      mapping: { from: repository.repo, to: worktreePath },
    });
    expect(await repository.read('src/app.ts', worktreePath)).toBe('export const answer = 42;\n');
    expect(await repository.worktreePaths()).toEqual([repository.repo, worktreePath]);
    expect((await simpleGit({ baseDir: info.cwd }).revparse(['--abbrev-ref', 'HEAD'])).trim()).toBe(
      'subagents/agent-1',
    );
    expect((await repository.git.revparse(['subagents/agent-1'])).trim()).toBe(head);
  });

  it('creates the cwd in the worktree when the parent works in a directory git does not track', async () => {
    await fs.mkdir(path.join(repository.repo, 'notes', 'drafts'), { recursive: true });
    const info = await createWorktree({ agentId: 'agent-1', cwd: path.join(repository.repo, 'notes', 'drafts') });
    expect(info.cwd).toBe(path.join(info.path, 'notes', 'drafts'));
    expect((await fs.stat(info.cwd)).isDirectory()).toBe(true);
    expect(await repository.status(info.path)).toBe('');
  });

  it('git-ignores .subagents/ through .git/info/exclude, keeping the main checkout clean and tracked files untouched', async () => {
    await fs.appendFile(path.join(repository.repo, '.git', 'info', 'exclude'), '*.log');
    await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    await createWorktree({ agentId: 'agent-2', cwd: repository.repo });
    const exclude = await fs.readFile(path.join(repository.repo, '.git', 'info', 'exclude'), 'utf8');
    expect(exclude).toMatch(/^\*\.log\n/m);
    expect(exclude.split('\n').filter((line) => line === '.subagents/')).toHaveLength(1);
    expect(await repository.status()).toBe('');
    expect(await exists(path.join(repository.repo, '.gitignore'))).toBe(false);
  });

  it('is idempotent: a retry of the same run finds the registered worktree and returns the same info', async () => {
    const first = await inRun('run-1', 'agent-1', repository.repo);
    const retry = await inRun('run-1', 'agent-1', repository.repo);
    expect(retry).toEqual(first);
    expect(await repository.branches()).toEqual(['main', 'subagents/agent-1']);
    expect(await repository.worktreePaths()).toHaveLength(2);
  });

  it('does not reuse a worktree left by an earlier run of the same agent id: the new one gets -2', async () => {
    const earlier = await inRun('run-1', 'agent-1', repository.repo);
    await repository.write('work.txt', 'from the earlier run\n', earlier.path);
    const later = await inRun('run-2', 'agent-1', repository.repo);
    expect(later.branch).toBe('subagents/agent-1-2');
    expect(later.path).toBe(path.join(worktreesDir(), 'agent-1-2'));
    expect(await exists(path.join(later.path, 'work.txt'))).toBe(false);
    expect(await repository.read('work.txt', earlier.path)).toBe('from the earlier run\n');
  });

  it('picks a unique branch name when subagents/<agentId> is already taken by a branch that is not its worktree', async () => {
    await repository.git.branch(['subagents/agent-1']);
    await repository.git.branch(['subagents/agent-1-2']);
    const info = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    expect(info.branch).toBe('subagents/agent-1-3');
    expect(info.path).toBe(path.join(worktreesDir(), 'agent-1-3'));
    expect(await repository.branches()).toEqual([
      'main',
      'subagents/agent-1',
      'subagents/agent-1-2',
      'subagents/agent-1-3',
    ]);
    // Asking again still finds its own worktree, not a fourth name.
    expect(await createWorktree({ agentId: 'agent-1', cwd: repository.repo })).toEqual(info);
  });

  it('skips a directory already in the way', async () => {
    await repository.write('keep.txt', 'not ours\n', path.join(worktreesDir(), 'agent-1'));
    const info = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    expect(info.path).toBe(path.join(worktreesDir(), 'agent-1-2'));
    expect(await repository.read('keep.txt', path.join(worktreesDir(), 'agent-1'))).toBe('not ours\n');
  });

  it('claims its own untouched worktree when a crash came before the ownership marker was written, but not a used one', async () => {
    const first = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    const adminDir = path.join(repository.repo, '.git', 'worktrees', 'agent-1');
    await fs.rm(path.join(adminDir, 'subagents-owner.json'));
    expect(await createWorktree({ agentId: 'agent-1', cwd: repository.repo })).toEqual(first);

    await fs.rm(path.join(adminDir, 'subagents-owner.json'));
    await repository.write('README.md', 'edited\n', first.path);
    const second = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    expect(second.branch).toBe('subagents/agent-1-2');
  });

  it('makes unsafe agent ids safe for branch and directory names', async () => {
    expect(worktreeSlug('team/lead one..x')).toBe('team-lead-one-x');
    expect(worktreeSlug('.hidden.lock')).toBe('hidden-lock');
    expect(worktreeSlug('///')).toBe('agent');
    const info = await createWorktree({ agentId: '../escape me', cwd: repository.repo });
    expect(info.branch).toBe('subagents/escape-me');
    expect(path.dirname(info.path)).toBe(worktreesDir());
  });

  it('puts worktrees in a custom directory, relative to cwd, and git-ignores it when it is inside the repository', async () => {
    const inside = await createWorktree({ agentId: 'agent-1', cwd: repository.repo, baseDir: 'tmp/worktrees' });
    expect(inside.path).toBe(path.join(repository.repo, 'tmp', 'worktrees', 'agent-1'));
    expect(await fs.readFile(path.join(repository.repo, '.git', 'info', 'exclude'), 'utf8')).toMatch(
      /^\/tmp\/worktrees\/$/m,
    );
    expect(await repository.status()).toBe('');

    const outsideDir = path.join(repository.root, 'elsewhere');
    const outside = await createWorktree({ agentId: 'agent-2', cwd: repository.repo, baseDir: outsideDir });
    expect(outside.path).toBe(path.join(outsideDir, 'agent-2'));
    expect(await fs.readFile(path.join(repository.repo, '.git', 'info', 'exclude'), 'utf8')).not.toContain('elsewhere');
  });

  it('from inside a worktree, branches from that worktree and still places the new one in the main checkout', async () => {
    const parent = await createWorktree({ agentId: 'parent', cwd: repository.repo });
    await repository.write('parent.txt', 'parent work\n', parent.path);
    const parentCommit = await repository.commit('parent work', parent.path);
    const child = await createWorktree({ agentId: 'child', cwd: parent.cwd });
    expect(child.path).toBe(path.join(worktreesDir(), 'child'));
    expect(child.baseCommit).toBe(parentCommit);
    expect(child.mapping).toEqual({ from: parent.path, to: child.path });
    expect(await repository.read('parent.txt', child.path)).toBe('parent work\n');
    expect(await repository.status(parent.path)).toBe('');
  });

  it('makes two agents editing the same file independent: each on its own branch, no conflict', async () => {
    const [first, second] = await Promise.all([
      createWorktree({ agentId: 'agent-a', cwd: repository.repo }),
      createWorktree({ agentId: 'agent-b', cwd: repository.repo }),
    ]);
    await repository.write('README.md', '# Edited by A\n', first.path);
    await repository.write('README.md', '# Edited by B\n', second.path);
    await Promise.all([repository.commit('A edits', first.path), repository.commit('B edits', second.path)]);
    expect(await repository.read('README.md')).toBe('# Test\n');
    expect(await repository.git.show(['subagents/agent-a:README.md'])).toBe('# Edited by A\n');
    expect(await repository.git.show(['subagents/agent-b:README.md'])).toBe('# Edited by B\n');
  });
});

describe('createWorktree errors', () => {
  it('refuses a cwd outside any git repository with NotAGitRepository', async () => {
    const plain = path.join(repository.root, 'plain');
    await fs.mkdir(plain);
    const expected = {
      type: 'NotAGitRepository',
      nonRetryable: true,
      message: `NotAGitRepository: ${plain} is not inside a git repository; worktree isolation needs one. Run without isolation or use cwd.`,
    };
    await expect(createWorktree({ agentId: 'agent-1', cwd: plain })).rejects.toMatchObject(expected);
    const missing = path.join(repository.root, 'missing');
    await expect(createWorktree({ agentId: 'agent-1', cwd: missing })).rejects.toMatchObject({
      type: 'NotAGitRepository',
    });
  });

  it('refuses a repository without commits: there is no HEAD to branch from', async () => {
    const empty = await createTestRepository({ empty: true });
    try {
      await expect(createWorktree({ agentId: 'agent-1', cwd: empty.repo })).rejects.toMatchObject({
        type: 'WorktreeCreateFailed',
        nonRetryable: true,
        message: expect.stringMatching(
          /has no commits yet, so there is no HEAD to branch a worktree from\. Make a first commit/,
        ),
      });
    } finally {
      await empty.cleanup();
    }
  });

  it('reports WorktreeDirNotWritable for a worktree directory below a regular file', async () => {
    const file = await repository.write('not-a-dir', 'file\n', repository.root);
    const baseDir = path.join(file, 'worktrees');
    await expect(createWorktree({ agentId: 'agent-1', cwd: repository.repo, baseDir })).rejects.toMatchObject({
      type: 'WorktreeDirNotWritable',
      nonRetryable: true,
      message: expect.stringContaining(
        `cannot create worktrees in ${baseDir} (part of that path is a file, not a directory)`,
      ),
    });
    expect(await repository.branches()).toEqual(['main']);
  });

  it('reports WorktreeDirNotWritable when the worktree directory is itself a file', async () => {
    const file = await repository.write('taken', 'file\n', repository.root);
    await expect(createWorktree({ agentId: 'agent-1', cwd: repository.repo, baseDir: file })).rejects.toMatchObject({
      type: 'WorktreeDirNotWritable',
      message: expect.stringContaining('it exists and is not a directory'),
    });
  });

  it.skipIf(process.getuid?.() === 0)('reports WorktreeDirNotWritable for a read-only worktree directory', async () => {
    const baseDir = path.join(repository.root, 'read-only');
    await fs.mkdir(baseDir, { mode: 0o500 });
    try {
      await expect(createWorktree({ agentId: 'agent-1', cwd: repository.repo, baseDir })).rejects.toMatchObject({
        type: 'WorktreeDirNotWritable',
        message: expect.stringContaining(`cannot create worktrees in ${baseDir} (permission denied)`),
      });
    } finally {
      await fs.chmod(baseDir, 0o700);
    }
  });
});
