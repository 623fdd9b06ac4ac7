/** Listing and pruning the kept subagent worktrees of a repository (`subagents worktrees`). */
import type { SimpleGit } from 'simple-git';
import {
  worktreeBranchPrefix,
  type SubagentWorktreeEntry,
  type SubagentWorktreeList,
  type SubagentWorktreePruneResult,
} from '../shared/workspace/worktree';
import { notAGitRepository } from './failures';
import { changedFiles, gitAt, headCommit } from './git';
import { removeWorktreeAndBranch } from './remove';
import { locateRepository, realDirectory, type Repository } from './repository';
import { withRepositoryLock } from './repository-lock';
import { listWorktrees, type RegisteredWorktree } from './worktree-list';

/** Commits on `branch` that `mainHead` does not have, i.e. past their merge base. */
async function commitsAhead(git: SimpleGit, branch: string, mainHead: string | undefined): Promise<number> {
  const exclude = mainHead ? [`^${mainHead}`] : [];
  return Number((await git.raw(['rev-list', '--count', `refs/heads/${branch}`, ...exclude, '--'])).trim());
}

async function describe(
  git: SimpleGit,
  worktree: RegisteredWorktree & { branch: string },
  mainHead: string | undefined,
): Promise<SubagentWorktreeEntry> {
  const exists = (await realDirectory(worktree.path)) !== undefined;
  const changed = exists ? (await changedFiles(worktree.path)).length : 0;
  const ahead = await commitsAhead(git, worktree.branch, mainHead);
  return {
    path: worktree.path,
    branch: worktree.branch,
    exists,
    locked: worktree.locked,
    changedFiles: changed,
    commitsAhead: ahead,
    mergedOrEmpty: ahead === 0 && changed === 0,
  };
}

async function inspect(
  repository: Repository,
): Promise<{ list: SubagentWorktreeList; registered: RegisteredWorktree[] }> {
  const git = gitAt(repository.controlDir);
  const mainHead = await headCommit(git);
  const registered = await listWorktrees(git);
  const ours = registered.filter(
    (worktree): worktree is RegisteredWorktree & { branch: string } =>
      worktree.branch?.startsWith(worktreeBranchPrefix) ?? false,
  );
  const worktrees = await Promise.all(ours.map((worktree) => describe(git, worktree, mainHead)));
  return {
    list: { repoRoot: repository.mainRoot ?? repository.controlDir, mainHead: mainHead ?? '', worktrees },
    registered,
  };
}

async function repositoryAt(directory: string): Promise<Repository> {
  const repository = await locateRepository(directory);
  if (!repository) throw notAGitRepository(directory);
  return repository;
}

/** The `subagents/*` worktrees of the repository at `directory`. Throws NotAGitRepository outside one. */
export async function listSubagentWorktrees(directory: string): Promise<SubagentWorktreeList> {
  return (await inspect(await repositoryAt(directory))).list;
}

/** Removes unlocked subagent worktrees that are clean and merged into HEAD, then prunes git's stale records. */
export async function pruneSubagentWorktrees(directory: string): Promise<SubagentWorktreePruneResult> {
  const repository = await repositoryAt(directory);
  return withRepositoryLock(repository.commonDir, async () => {
    const git = gitAt(repository.controlDir);
    const { list, registered } = await inspect(repository);
    const removed: SubagentWorktreeEntry[] = [];
    for (const worktree of list.worktrees) {
      if (!worktree.mergedOrEmpty || worktree.locked) continue;
      await removeWorktreeAndBranch(git, registered, worktree.path, worktree.branch);
      removed.push(worktree);
    }
    await git.raw(['worktree', 'prune']);
    return { ...(await inspect(repository)).list, removed };
  });
}
