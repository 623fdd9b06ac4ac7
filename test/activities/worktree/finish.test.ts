// @slow
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorktreeActivities } from '../../../src/activities/worktree/index';
import { createTestRepository, exists, type TestRepository } from './helpers';

const { createWorktree, finishWorktree } = createWorktreeActivities();

let repository: TestRepository;
beforeEach(async () => {
  repository = await createTestRepository();
});
afterEach(() => repository.cleanup());

async function lockedPaths(): Promise<string[]> {
  const blocks = (await repository.git.raw(['worktree', 'list', '--porcelain'])).split('\n\n');
  return blocks
    .filter((block) => /^locked/m.test(block))
    .map((block) => block.split('\n')[0]!.slice('worktree '.length));
}

/** The outcome for agent-1's worktree at `path` with no uncommitted changes. */
const cleanOutcome = (worktreePath: string, kept: boolean, commits: string[]) => ({
  kept,
  path: worktreePath,
  branch: 'subagents/agent-1',
  changedFiles: [],
  commits,
});

describe('finishWorktree', () => {
  it('removes an unchanged worktree and its branch, leaving nothing behind', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: path.join(repository.repo, 'src') });
    const outcome = await finishWorktree({ worktree });
    expect(outcome).toEqual(cleanOutcome(worktree.path, false, []));
    expect(await exists(worktree.path)).toBe(false);
    expect(await repository.branches()).toEqual(['main']);
    expect(await repository.worktreePaths()).toEqual([repository.repo]);
    expect(await repository.status()).toBe('');
  });

  it('keeps a worktree with uncommitted changes, untracked files included, and unlocks it', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    expect(await lockedPaths()).toEqual([worktree.path]);
    await repository.write('README.md', '# Changed\n', worktree.path);
    await repository.write('docs/new notes.md', 'new\n', worktree.path);
    await fs.rm(path.join(worktree.path, 'src', 'app.ts'));
    const outcome = await finishWorktree({ worktree });
    expect(outcome.kept).toBe(true);
    expect(outcome.commits).toEqual([]);
    expect([...outcome.changedFiles].sort()).toEqual(['README.md', 'docs/new notes.md', 'src/app.ts']);
    expect(await repository.read('README.md', worktree.path)).toBe('# Changed\n');
    expect(await repository.branches()).toContain('subagents/agent-1');
    expect(await lockedPaths()).toEqual([]);
  });

  it('keeps a worktree with a new commit and lists it as "<sha7> <subject>"', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    await repository.write('feature.ts', 'export {};\n', worktree.path);
    const sha = await repository.commit('Add feature', worktree.path);
    const outcome = await finishWorktree({ worktree });
    expect(outcome).toEqual(cleanOutcome(worktree.path, true, [`${sha.slice(0, 7)} Add feature`]));
    expect(await exists(path.join(worktree.path, 'feature.ts'))).toBe(true);
  });

  it('counts commits made on a detached HEAD in the worktree', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    await repository.write('x.txt', 'x\n', worktree.path);
    await repository.git.cwd(worktree.path).raw(['checkout', '--detach']);
    const sha = await repository.commit('Detached work', worktree.path);
    const outcome = await finishWorktree({ worktree });
    expect(outcome.kept).toBe(true);
    expect(outcome.commits).toEqual([`${sha.slice(0, 7)} Detached work`]);
  });

  it('does not count git-ignored files as changes', async () => {
    await repository.write('.gitignore', 'build/\n');
    await repository.commit('ignore build output');
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    await repository.write('build/out.js', 'compiled\n', worktree.path);
    expect(await finishWorktree({ worktree })).toMatchObject({ kept: false });
    expect(await exists(worktree.path)).toBe(false);
  });

  it('is idempotent: finishing again after removal, or after keeping, gives the same outcome without error', async () => {
    const removed = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    const first = await finishWorktree({ worktree: removed });
    expect(await finishWorktree({ worktree: removed })).toEqual(first);

    const kept = await createWorktree({ agentId: 'agent-2', cwd: repository.repo });
    await repository.write('work.txt', 'work\n', kept.path);
    const keptFirst = await finishWorktree({ worktree: kept });
    expect(keptFirst.kept).toBe(true);
    expect(await finishWorktree({ worktree: kept })).toEqual(keptFirst);
  });

  it('handles a worktree directory deleted by hand whose branch still exists', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    await fs.rm(worktree.path, { recursive: true, force: true });
    expect(await finishWorktree({ worktree })).toMatchObject({ kept: false, changedFiles: [], commits: [] });
    expect(await repository.branches()).toEqual(['main']);
    expect(await repository.worktreePaths()).toEqual([repository.repo]);
  });

  it('keeps the branch of a deleted worktree directory when it has commits, and drops the stale record', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    await repository.write('feature.ts', 'export {};\n', worktree.path);
    const sha = await repository.commit('Add feature', worktree.path);
    await fs.rm(worktree.path, { recursive: true, force: true });
    const outcome = await finishWorktree({ worktree });
    expect(outcome).toMatchObject({
      kept: true,
      branch: 'subagents/agent-1',
      commits: [`${sha.slice(0, 7)} Add feature`],
    });
    expect(await repository.worktreePaths()).toEqual([repository.repo]);
    expect(await repository.git.show(['subagents/agent-1:feature.ts'])).toBe('export {};\n');
  });

  it('finishes two parallel agents that edited the same file: both kept, each on its own branch', async () => {
    const [first, second, idle] = await Promise.all(
      ['agent-a', 'agent-b', 'agent-c'].map((agentId) => createWorktree({ agentId, cwd: repository.repo })),
    );
    await repository.write('README.md', '# By A\n', first!.path);
    await repository.write('README.md', '# By B\n', second!.path);
    await repository.commit('A', first!.path);
    const outcomes = await Promise.all([
      finishWorktree({ worktree: first! }),
      finishWorktree({ worktree: second! }),
      finishWorktree({ worktree: idle! }),
    ]);
    expect(
      outcomes.map((outcome) => [outcome.kept, outcome.branch, outcome.changedFiles, outcome.commits.length]),
    ).toEqual([
      [true, 'subagents/agent-a', [], 1],
      [true, 'subagents/agent-b', ['README.md'], 0],
      [false, 'subagents/agent-c', [], 0],
    ]);
    expect(await repository.git.show(['subagents/agent-a:README.md'])).toBe('# By A\n');
    expect(await repository.read('README.md', second!.path)).toBe('# By B\n');
    expect(await repository.read('README.md')).toBe('# Test\n');
    expect(await repository.branches()).toEqual(['main', 'subagents/agent-a', 'subagents/agent-b']);
  });

  it('removes many unchanged worktrees finished at once', async () => {
    const agentIds = Array.from({ length: 6 }, (_, index) => `agent-${index}`);
    const worktrees = await Promise.all(agentIds.map((agentId) => createWorktree({ agentId, cwd: repository.repo })));
    const outcomes = await Promise.all(worktrees.map((worktree) => finishWorktree({ worktree })));
    expect(outcomes.every((outcome) => !outcome.kept)).toBe(true);
    expect(await repository.branches()).toEqual(['main']);
    expect(await repository.worktreePaths()).toEqual([repository.repo]);
  });

  it('fails clearly when neither the worktree nor its repository exists', async () => {
    const worktree = await createWorktree({ agentId: 'agent-1', cwd: repository.repo });
    const moved = {
      ...worktree,
      path: path.join(repository.root, 'gone', 'wt'),
      repoRoot: path.join(repository.root, 'gone'),
    };
    await expect(finishWorktree({ worktree: moved })).rejects.toMatchObject({
      type: 'WorktreeFinishFailed',
      nonRetryable: true,
      message: expect.stringContaining('neither the worktree'),
    });
  });
});
