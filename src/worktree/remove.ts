/** Removing a subagent worktree and its branch, tolerating either being gone already. */
import type { SimpleGit } from 'simple-git';
import { branchExists } from './git';
import type { RegisteredWorktree } from './worktree-list';

/** Removes the worktree (even locked or deleted by hand) and then `branch`; run from the control directory. */
export async function removeWorktreeAndBranch(
  git: SimpleGit,
  registered: readonly RegisteredWorktree[],
  worktreePath: string,
  branch: string,
): Promise<void> {
  if (registered.some((worktree) => worktree.path === worktreePath)) {
    // Twice --force: also removes a locked worktree (ours are locked while their agent runs).
    await git.raw(['worktree', 'remove', '--force', '--force', worktreePath]);
  }
  // -D: the caller has checked that the branch holds nothing the repository would lose.
  if (await branchExists(git, branch)) await git.raw(['branch', '-D', branch]);
}
