import { createWorktree } from './create';
import { finishWorktree } from './finish';
import { adoptHookWorktree } from './hook-worktree';

/** The worktree isolation activities (docs/worktrees.md); the workflow calls them around an isolated child. */
export function createWorktreeActivities() {
  return { createWorktree, finishWorktree, adoptHookWorktree };
}
