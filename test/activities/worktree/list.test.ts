// @slow
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorktreeActivities } from '../../../src/activities/worktree/index';
import { listSubagentWorktrees, pruneSubagentWorktrees } from '../../../src/worktree/list';
import { worktreesCommand } from '../../../src/cli/commands/worktrees';
import type { SubagentWorktreeEntry, WorktreeInfo } from '../../../src/shared/workspace/worktree';
import { createTestRepository, exists, type TestRepository } from './helpers';
import { freshForEachTest } from '../../helpers/unit-fixture';

const { createWorktree, finishWorktree } = createWorktreeActivities();

let repository: TestRepository;
freshForEachTest(createTestRepository, (created) => (repository = created));
afterEach(() => vi.restoreAllMocks());

interface Scenario {
  committed: WorktreeInfo;
  uncommitted: WorktreeInfo;
  merged: WorktreeInfo;
  emptied: WorktreeInfo;
  running: WorktreeInfo;
}

/** Five agents: kept with a commit, kept with an uncommitted edit, merged into main, kept then emptied, still running. */
async function scenario(): Promise<Scenario> {
  const create = (agentId: string) => createWorktree({ agentId, cwd: repository.repo });
  const [committed, uncommitted, merged, emptied, running] = await Promise.all(
    ['committed', 'uncommitted', 'merged', 'emptied', 'running'].map(create),
  );
  await repository.write('a.txt', 'a\n', committed!.path);
  await repository.commit('committed work', committed!.path);
  await repository.write('README.md', '# edit\n', uncommitted!.path);
  await repository.write('m.txt', 'm\n', merged!.path);
  await repository.commit('merged work', merged!.path);
  await repository.write('scratch.txt', 'x\n', emptied!.path);
  for (const worktree of [committed!, uncommitted!, merged!, emptied!])
    expect((await finishWorktree({ worktree })).kept).toBe(true);
  await repository.git.merge(['--ff-only', 'subagents/merged']);
  await fs.rm(path.join(emptied!.path, 'scratch.txt'));
  return { committed: committed!, uncommitted: uncommitted!, merged: merged!, emptied: emptied!, running: running! };
}

function entry(worktree: WorktreeInfo, fields: Partial<SubagentWorktreeEntry>): SubagentWorktreeEntry {
  return {
    path: worktree.path,
    branch: worktree.branch,
    exists: true,
    locked: false,
    changedFiles: 0,
    commitsAhead: 0,
    mergedOrEmpty: true,
    ...fields,
  };
}

describe('listSubagentWorktrees', () => {
  it('lists subagent worktrees with changed files, commits ahead of the main HEAD and the merged-or-empty flag', async () => {
    const { committed, uncommitted, merged, emptied, running } = await scenario();
    await repository.git.raw(['worktree', 'add', '-b', 'feature', path.join(repository.root, 'feature')]);
    const list = await listSubagentWorktrees(path.join(repository.repo, 'src'));
    expect(list.repoRoot).toBe(repository.repo);
    expect(list.mainHead).toBe((await repository.git.revparse(['HEAD'])).trim());
    const byPath = (a: SubagentWorktreeEntry, b: SubagentWorktreeEntry) => a.path.localeCompare(b.path);
    expect([...list.worktrees].sort(byPath)).toEqual(
      [
        entry(committed, { commitsAhead: 1, mergedOrEmpty: false }),
        entry(uncommitted, { changedFiles: 1, mergedOrEmpty: false }),
        entry(merged, {}),
        entry(emptied, {}),
        entry(running, { locked: true }),
      ].sort(byPath),
    );
  });

  it('throws NotAGitRepository outside a repository', async () => {
    await expect(listSubagentWorktrees(repository.root)).rejects.toMatchObject({ type: 'NotAGitRepository' });
  });
});

describe('pruneSubagentWorktrees', () => {
  it('removes merged or empty worktrees and their branches, never one with work or one that is locked', async () => {
    const { committed, uncommitted, merged, emptied, running } = await scenario();
    const result = await pruneSubagentWorktrees(repository.repo);
    expect(result.removed.map((worktree) => worktree.branch).sort()).toEqual(['subagents/emptied', 'subagents/merged']);
    expect(result.worktrees.map((worktree) => worktree.branch).sort()).toEqual([
      'subagents/committed',
      'subagents/running',
      'subagents/uncommitted',
    ]);
    expect(await exists(merged.path)).toBe(false);
    expect(await exists(emptied.path)).toBe(false);
    expect(await repository.read('README.md', uncommitted.path)).toBe('# edit\n');
    expect(await exists(committed.path)).toBe(true);
    expect(await exists(running.path)).toBe(true);
    expect(await repository.branches()).toEqual([
      'main',
      'subagents/committed',
      'subagents/running',
      'subagents/uncommitted',
    ]);
  });

  it('removes a merged worktree whose directory was deleted, and prunes stale records of other worktrees', async () => {
    const { merged } = await scenario();
    await fs.rm(merged.path, { recursive: true, force: true });
    const stray = path.join(repository.root, 'stray');
    await repository.git.raw(['worktree', 'add', '-b', 'stray', stray]);
    await fs.rm(stray, { recursive: true, force: true });
    expect(
      (await listSubagentWorktrees(repository.repo)).worktrees.find((worktree) => worktree.branch === merged.branch),
    ).toMatchObject({ exists: false, mergedOrEmpty: true });
    const result = await pruneSubagentWorktrees(repository.repo);
    expect(result.removed.map((worktree) => worktree.branch)).toContain('subagents/merged');
    expect(await repository.worktreePaths()).not.toContain(stray);
    expect(await repository.worktreePaths()).not.toContain(merged.path);
  });
});

describe('subagents worktrees', () => {
  function captureOutput() {
    const lines: string[] = [];
    const errors: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args.join(' ')));
    return { out: () => lines.join('\n'), err: () => errors.join('\n') };
  }

  it('prints a table of kept worktrees, paths relative to the repository', async () => {
    await scenario();
    const output = captureOutput();
    expect(await worktreesCommand(['--dir', repository.repo])).toBe(0);
    const lines = output.out().split('\n');
    expect(lines[0]).toMatch(/^PATH\s+BRANCH\s+CHANGED\s+AHEAD\s+STATE$/);
    expect(lines.find((line) => line.startsWith('.subagents/worktrees/committed '))).toMatch(
      /subagents\/committed\s+0\s+1\s+has work$/,
    );
    expect(lines.find((line) => line.startsWith('.subagents/worktrees/merged '))).toMatch(/0\s+0\s+merged-or-empty$/);
    expect(lines.find((line) => line.startsWith('.subagents/worktrees/running '))).toMatch(
      /locked \(agent running\?\), merged-or-empty$/,
    );
    expect(output.out()).toContain('git worktree unlock <path>');
  });

  it('says so when there are none', async () => {
    const output = captureOutput();
    expect(await worktreesCommand(['--dir', repository.repo])).toBe(0);
    expect(output.out()).toBe(`No subagent worktrees in ${repository.repo}.`);
  });

  it('--json prints the list; --prune --json the removals', async () => {
    await scenario();
    let output = captureOutput();
    expect(await worktreesCommand(['--dir', repository.repo, '--json'])).toBe(0);
    expect(JSON.parse(output.out()).worktrees).toHaveLength(5);
    vi.restoreAllMocks();
    output = captureOutput();
    expect(await worktreesCommand(['--dir', repository.repo, '--prune', '--json'])).toBe(0);
    const result = JSON.parse(output.out()) as { removed: SubagentWorktreeEntry[]; worktrees: SubagentWorktreeEntry[] };
    expect(result.removed).toHaveLength(2);
    expect(result.worktrees).toHaveLength(3);
  });

  it('--prune prints what it removed, and nothing to prune the second time', async () => {
    await scenario();
    let output = captureOutput();
    expect(await worktreesCommand(['--dir', repository.repo, '--prune'])).toBe(0);
    expect(output.out()).toContain('Removed .subagents/worktrees/merged and branch subagents/merged');
    expect(output.out()).toContain('Removed .subagents/worktrees/emptied and branch subagents/emptied');
    vi.restoreAllMocks();
    output = captureOutput();
    expect(await worktreesCommand(['--dir', repository.repo, '--prune'])).toBe(0);
    expect(output.out()).toMatch(/^Nothing to prune/);
  });

  it('exits 2 with a message on bad arguments or outside a repository', async () => {
    const output = captureOutput();
    expect(await worktreesCommand(['--bogus'])).toBe(2);
    expect(await worktreesCommand(['extra'])).toBe(2);
    expect(await worktreesCommand(['--dir'])).toBe(2);
    expect(await worktreesCommand(['--dir', repository.root])).toBe(2);
    const errors = output.err();
    expect(errors).toContain("Unknown option '--bogus'");
    expect(errors).toContain(`${repository.root} is not inside a git repository`);
    expect(errors).toContain('usage: subagents worktrees [--dir DIR] [--prune] [--json]');
  });
});
