/** The checkpoint activities (docs/rewind.md): thin wrappers of src/checkpoints/, which the CLI also uses. */
import {
  changesSince,
  compareCheckpoints,
  dropAgentCheckpoints,
  recordCheckpoint,
  restoreWorkspace,
  type CheckpointOptions,
} from '../../checkpoints/index';
import type {
  CheckpointInput,
  CheckpointResult,
  FileChange,
  RestoreInput,
  RestoreResult,
  TurnCheckpoint,
} from '../../shared/workspace/checkpoints';

/** The workspace checkpoint activities; `options` (environment, home, clock) default to the worker process's. */
export function createCheckpointActivities(options: CheckpointOptions = {}) {
  return {
    /** Records the agent's workspace at a turn boundary if it changed since `previous`. */
    checkpointWorkspace: (input: CheckpointInput): Promise<CheckpointResult> => recordCheckpoint(input, options),
    /** Makes the target hold the checkpoint's files, or refuses when the workspace changed since `latest`. */
    restoreCheckpoint: (input: RestoreInput): Promise<RestoreResult> => restoreWorkspace(input, options),
    /** The workspace's files that differ from a checkpoint. */
    workspaceChangesSince: (input: { checkpoint: TurnCheckpoint; root?: string }): Promise<FileChange[]> =>
      changesSince(input.checkpoint, input.root, options),
    /** The files that differ between two checkpoints of one store. */
    diffCheckpoints: (input: { a: TurnCheckpoint; b: TurnCheckpoint }): Promise<FileChange[]> =>
      compareCheckpoints(input.a, input.b, options),
    /** Deletes all checkpoint refs of an agent; returns how many. */
    dropCheckpoints: (input: { root: string; agentId: string }): Promise<number> =>
      dropAgentCheckpoints(input.root, input.agentId, options),
  };
}
