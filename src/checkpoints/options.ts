/** What the checkpoint functions take from the worker's surroundings; tests pass their own. */
import os from 'node:os';

/** The environment, home directory and clock of the checkpoint functions (defaults: the process's). */
export interface CheckpointOptions {
  /** Read for SUBAGENTS_HOME and the SUBAGENTS_CHECKPOINT_* retention settings. */
  env?: NodeJS.ProcessEnv;
  /** The user's home: never checkpointed, and the default parent of the private stores (~/.subagents). */
  homeDir?: string;
  /** Milliseconds since the epoch: the checkpoint's date, and the age retention compares with. */
  now?: () => number;
}

export type ResolvedCheckpointOptions = Required<CheckpointOptions>;

export function resolveCheckpointOptions(options: CheckpointOptions = {}): ResolvedCheckpointOptions {
  return { env: options.env ?? process.env, homeDir: options.homeDir ?? os.homedir(), now: options.now ?? Date.now };
}
