import { createWorktree } from './create';
import { finishWorktree } from './finish';

/** The worktree isolation activities (SPEC §1.6); the workflow calls them around an isolated child. */
export function createWorktreeActivities() {
  return { createWorktree, finishWorktree };
}
