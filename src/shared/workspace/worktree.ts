/** Wire types and names of worktree isolation (docs/worktrees.md), shared by the workflow, the activities and the CLI. */

/** Branches of subagent worktrees are `subagents/<agentId>` (or `-2`, `-3`… when the name is taken). */
export const worktreeBranchPrefix = 'subagents/';

/** A worktree's slug (an agent id safe as a path segment and ref component): the branch's and directory's name, a WorktreeCreate hook's `name`. */
export function worktreeSlug(agentId: string): string {
  // git refuses `..`, a leading `.` or `-`, and `.lock`.
  const name = agentId
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '-')
    .replace(/\.lock$/i, '-lock')
    .replace(/^[.-]+|[.]+$/g, '');
  return name === '' ? 'agent' : name;
}

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
  /** Made by a WorktreeCreate hook (docs/worktrees.md): a plain directory, no branch; its WorktreeRemove hooks remove it. */
  madeBy?: 'hook';
}

/** Input of the `adoptHookWorktree` activity: the path a WorktreeCreate hook printed, checked where the files are. */
export interface AdoptHookWorktreeInput {
  /** Where the hook ran (the agent's cwd before the worktree). */
  cwd: string;
  /** The agent's workspace root before the worktree (the fork notice's "from"). */
  workspaceRoot: string;
  /** What the hook gave as the path (trimmed stdout, or an http hook's `worktreePath`). */
  printed: string;
  /** The hook, as its label (for the error). */
  hook: string;
}

/** Input of the `finishWorktree` activity. */
export interface FinishWorktreeInput {
  worktree: WorktreeInfo;
}

/** What `finishWorktree` did: removed (kept: false) or kept with the work found in it. */
export interface WorktreeOutcome {
  /** A hook-made worktree: false once handed to the WorktreeRemove hooks, true when none is configured. */
  kept: boolean;
  path: string;
  /** Empty for a hook-made worktree (there is no branch to merge). */
  branch: string;
  /** Made by a WorktreeCreate hook: the runtime cannot tell whether it holds changes (changedFiles, commits stay empty). */
  madeBy?: 'hook';
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
