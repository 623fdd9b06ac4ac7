/** Whether a checkpoint can still be read: its ref kept by retention, its tree in the store. */
import { ErrorType } from '../shared/protocol/errors';
import { defaultCheckpointRetention, type TurnCheckpoint } from '../shared/workspace/checkpoints';
import { checkpointFailure } from './failures';
import { GitCommandError } from './git-command';
import { isObjectId, parseCheckpointRef } from './names';
import { retentionFromEnv, retentionVariables } from './retention';

/** The agent id a checkpoint's ref names (refused when the ref or tree is not one the store records). */
export function checkpointAgentId(checkpoint: TurnCheckpoint): string {
  const parsed = typeof checkpoint.ref === 'string' ? parseCheckpointRef(checkpoint.ref) : undefined;
  if (!parsed || !isObjectId(checkpoint.tree)) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `${JSON.stringify(checkpoint.ref)} with tree ${JSON.stringify(checkpoint.tree)} is not a checkpoint recorded by checkpointWorkspace.`,
    );
  }
  return parsed.agentId;
}

/** The failure for a checkpoint retention (or dropCheckpoints) removed, saying how to keep more. */
export function droppedCheckpoint(checkpoint: TurnCheckpoint, env: NodeJS.ProcessEnv): Error {
  let retention = defaultCheckpointRetention;
  try {
    retention = retentionFromEnv(env);
  } catch {
    // An invalid setting is reported where checkpoints are recorded; here the defaults explain enough.
  }
  return checkpointFailure(
    ErrorType.CheckpointUnavailable,
    `the checkpoint of turn ${checkpoint.turn} (${checkpoint.ref}) was dropped, by retention (the newest ` +
      `${retention.keep} checkpoints of an agent, at most ${retention.maxAgeDays} days old, are kept) or with the ` +
      `agent's checkpoints. Set ${retentionVariables.keep} or ${retentionVariables.maxAgeDays} on the workers to keep more.`,
  );
}

/** The script lines checking objects: names in "$@"-like order on stdin of cat-file, answers in the `available` section. */
export function availabilityCheck(names: string): string {
  return `check=$(printf '%s\\n' ${names} | git cat-file --batch-check='%(objectname)')
section available; printf '%s' "$check"
case "$check" in *' missing'*) exit 0 ;; esac
`;
}

/** The first of `checkpoints` whose tree (or, for `restored`, ref) the `available` section says is missing. */
export function missingCheckpoint(
  available: string,
  checkpoints: readonly TurnCheckpoint[],
  restored?: TurnCheckpoint,
): TurnCheckpoint | undefined {
  const missing = new Set(
    available
      .split('\n')
      .filter((line) => line.endsWith(' missing'))
      .map((line) => line.slice(0, -' missing'.length)),
  );
  if (restored && missing.has(restored.ref)) return restored;
  return checkpoints.find((checkpoint) => missing.has(`${checkpoint.tree}^{tree}`));
}

/** True when git failed because an object it was given is not in the store ("bad object"). */
export function isMissingObject(error: unknown): boolean {
  return error instanceof GitCommandError && /bad object|not a tree object|unable to read tree/i.test(error.stderr);
}
