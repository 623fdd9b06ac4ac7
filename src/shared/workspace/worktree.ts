/** Wire types and names of worktree isolation (docs/worktrees.md), shared by the workflow, the activities and the CLI. */

/** Branches of subagent worktrees are `subagents/<agentId>` (or `-2`, `-3`… when the name is taken). */
export const worktreeBranchPrefix = 'subagents/';

/** Default place of worktrees, relative to the main checkout; `.subagents/` is git-ignored through `.git/info/exclude`. */
export const defaultWorktreeDir = '.subagents/worktrees';

/** Input of the `createWorktree` activity. */
export interface CreateWorktreeInput {
  agentId: string;
  /** The parent's cwd (inside a git repository). */
  cwd: string;
  /** Where worktrees go; default `<main checkout>/.subagents/worktrees`. A relative path resolves against `cwd`. */
  baseDir?: string;
}

/** A subagent's worktree, carried by the workflow until `finishWorktree`. */
export interface WorktreeInfo {
  /** Top level of the checkout the parent's cwd is in. */
  repoRoot: string;
  path: string;
  branch: string;
  /** The commit the branch was made from (the parent checkout's HEAD at creation). */
  baseCommit: string;
  /** The agent's cwd inside the worktree (same relative position as input.cwd in the repository). */
  cwd: string;
  /** Parent path → worktree path, for the fork notice. */
  mapping: { from: string; to: string };
}

/** Input of the `finishWorktree` activity. */
export interface FinishWorktreeInput {
  worktree: WorktreeInfo;
}

/** What `finishWorktree` did: removed (kept: false) or kept with the work found in it. */
export interface WorktreeOutcome {
  kept: boolean;
  path: string;
  branch: string;
  /** Uncommitted changes, untracked files included (paths relative to the worktree). */
  changedFiles: string[];
  /** `<sha7> <subject>` of the commits on the branch since baseCommit, newest first. */
  commits: string[];
}

/** One subagent worktree of a repository, as `subagents worktrees` lists it. */
export interface SubagentWorktreeEntry {
  path: string;
  branch: string;
  /** False when the directory is gone but git still has it registered. */
  exists: boolean;
  /** Locked while its agent runs; `--prune` never touches a locked worktree. */
  locked: boolean;
  changedFiles: number;
  /** Commits on the branch that the main checkout's HEAD does not have. */
  commitsAhead: number;
  /** Every commit is already in the main checkout's HEAD and nothing is uncommitted: removing it loses nothing. */
  mergedOrEmpty: boolean;
}

/** The subagent worktrees of one repository. */
export interface SubagentWorktreeList {
  /** Root of the main checkout. */
  repoRoot: string;
  mainHead: string;
  worktrees: SubagentWorktreeEntry[];
}

/** What `subagents worktrees --prune` did. */
export interface SubagentWorktreePruneResult extends SubagentWorktreeList {
  /** The worktrees removed (with their branches). */
  removed: SubagentWorktreeEntry[];
}
