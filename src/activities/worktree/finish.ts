/** The `finishWorktree` activity: remove an unused worktree, keep one with work in it. */
import { ApplicationFailure } from '@temporalio/common';
import { ErrorType } from '../../shared/protocol/errors';
import type { FinishWorktreeInput, WorktreeInfo, WorktreeOutcome } from '../../shared/workspace/worktree';
import { gitFailure, worktreeFailure } from '../../worktree/failures';
import { branchExists, changedFiles, commitsSince, gitAt } from '../../worktree/git';
import { removeWorktreeAndBranch } from '../../worktree/remove';
import { locateRepository, realDirectory } from '../../worktree/repository';
import { withRepositoryLock } from '../../worktree/repository-lock';
import { listWorktrees } from '../../worktree/worktree-list';

/** True when `worktreePath` is the top level of a working tree (not merely a leftover directory). */
async function isWorkingTree(worktreePath: string): Promise<boolean> {
  const real = await realDirectory(worktreePath);
  if (!real) return false;
  const repository = await locateRepository(real);
  return repository?.toplevel === real;
}

async function settle(worktree: WorktreeInfo, present: boolean, anchor: string): Promise<WorktreeOutcome> {
  const repository = await locateRepository(anchor);
  if (!repository) {
    throw worktreeFailure(
      ErrorType.WorktreeFinishFailed,
      `${anchor} is no longer inside a git repository; cannot finish ${worktree.path}.`,
    );
  }
  return withRepositoryLock(repository.commonDir, async () => {
    const git = gitAt(repository.controlDir);
    const hasBranch = await branchExists(git, worktree.branch);
    const changed = present ? await changedFiles(worktree.path) : [];
    // The worktree's HEAD counts too: the agent may have committed on a detached HEAD or another branch.
    const tips = [...(hasBranch ? [`refs/heads/${worktree.branch}`] : []), ...(present ? ['HEAD'] : [])];
    const commits = await commitsSince(
      gitAt(present ? worktree.path : repository.controlDir),
      worktree.baseCommit,
      tips,
    );
    const registered = await listWorktrees(git);
    const entry = registered.find((candidate) => candidate.path === worktree.path);
    const outcome = { path: worktree.path, branch: worktree.branch, changedFiles: changed, commits };
    if (changed.length === 0 && commits.length === 0) {
      await removeWorktreeAndBranch(git, registered, worktree.path, worktree.branch);
      return { kept: false, ...outcome };
    }
    if (entry && !present) {
      // The directory is gone but its commits are on the branch: drop git's stale record so the branch can be checked out.
      await git.raw(['worktree', 'remove', '--force', '--force', worktree.path]);
    } else if (entry?.locked) {
      // Unlocked once its agent is done, so `subagents worktrees --prune` can remove it after a merge.
      await git.raw(['worktree', 'unlock', worktree.path]);
    }
    return { kept: true, ...outcome };
  });
}

/** Removes a worktree and branch with no changes or commits since baseCommit, else keeps both; idempotent. */
export async function finishWorktree(input: FinishWorktreeInput): Promise<WorktreeOutcome> {
  const { worktree } = input;
  const present = await isWorkingTree(worktree.path);
  const anchor = present ? worktree.path : await realDirectory(worktree.repoRoot);
  if (!anchor) {
    throw worktreeFailure(
      ErrorType.WorktreeFinishFailed,
      `neither the worktree ${worktree.path} nor its repository ${worktree.repoRoot} exists any more; ` +
        `if the repository moved, delete branch ${worktree.branch} there by hand.`,
    );
  }
  try {
    return await settle(worktree, present, anchor);
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    throw gitFailure(
      ErrorType.WorktreeFinishFailed,
      `could not finish the worktree ${worktree.path} (branch ${worktree.branch})`,
      error,
    );
  }
}
