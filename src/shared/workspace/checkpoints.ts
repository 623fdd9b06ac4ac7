/** Wire types of workspace checkpoints (docs/rewind.md): the activities, the workflow and the CLI share them. */

/** Checkpoints live on refs under this prefix, one ref per checkpoint: never on the user's branches. */
export const checkpointRefPrefix = 'refs/subagents/checkpoints/';

/** How many checkpoints of one agent are kept, and for how long (SUBAGENTS_CHECKPOINT_KEEP / _MAX_AGE_DAYS). */
export interface CheckpointRetention {
  /** The newest N checkpoints of each agent are kept (default 100, as Claude Code's /rewind). */
  keep: number;
  /** Checkpoints older than this are dropped (default 30 days). */
  maxAgeDays: number;
}

export const defaultCheckpointRetention: CheckpointRetention = { keep: 100, maxAgeDays: 30 };

/** One recorded state of an agent's workspace (the files git would see, ignored files excluded). */
export interface TurnCheckpoint {
  /** The turn boundary it records (0: the agent's start). */
  turn: number;
  /** A commit (no parent) whose tree is the workspace; reachable from `ref` only. */
  commit: string;
  tree: string;
  ref: string;
  /** The directory recorded: the git top level of the agent's cwd (its worktree for an isolated agent). */
  root: string;
  /** `repository`: objects in the workspace's own repository; `private`: a store the worker keeps for a non-git directory. */
  store: 'repository' | 'private';
  /** The private store's git directory (store `private` only). */
  gitDir?: string;
  /**
   * Paths changed since the agent's previous checkpoint (relative to root, at most 50), and how many in all. The first
   * checkpoint is compared with the checkout's HEAD (nothing listed for a clean checkout); in a private store or a
   * repository without commits, with nothing (every file is listed as changed).
   */
  changed: string[];
  changedCount: number;
  atMs: number;
  /** Taken before the agent's first write: the files of every earlier boundary too. */
  baseline?: boolean;
}

/** Input of `checkpointWorkspace`: record the agent's workspace at a turn boundary if it changed since `previous`. */
export interface CheckpointInput {
  agentId: string;
  cwd: string;
  turn: number;
  previous?: Pick<TurnCheckpoint, 'commit' | 'tree' | 'root' | 'store' | 'gitDir'>;
  retention?: CheckpointRetention;
}

export type CheckpointResult =
  | { kind: 'recorded'; checkpoint: TurnCheckpoint }
  | { kind: 'unchanged' }
  /** Nothing recorded, and why (for `status`): e.g. a non-git directory above the private store's size limit. */
  | { kind: 'unavailable'; reason: string };

/** A file of a workspace compared with a checkpoint. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

/** Input of `restoreCheckpoint`: make `targetRoot` hold the checkpoint's files. */
export interface RestoreInput {
  checkpoint: TurnCheckpoint;
  /** Where to write the files (default the checkpoint's root; a fork's new worktree otherwise). */
  targetRoot?: string;
  /** The agent's own latest checkpoint: files differing from it were changed by someone else, and the restore is refused. */
  latest?: TurnCheckpoint;
}

export type RestoreResult =
  { kind: 'restored'; changes: FileChange[] } | { kind: 'refused'; changedSince: FileChange[] };
