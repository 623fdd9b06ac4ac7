/** Whether a checkpoint can still be read: its ref kept by retention, its tree in the store. */
import { ErrorType } from '../shared/protocol/errors';
import { defaultCheckpointRetention, type TurnCheckpoint } from '../shared/workspace/checkpoints';
import { checkpointFailure } from './failures';
import { runGit, type GitContext } from './git-command';
import { parseCheckpointRef } from './names';
import { retentionFromEnv, retentionVariables } from './retention';

/** The agent id a checkpoint's ref names (refused when the ref is not a checkpoint ref). */
export function checkpointAgentId(checkpoint: TurnCheckpoint): string {
  const parsed = typeof checkpoint.ref === 'string' ? parseCheckpointRef(checkpoint.ref) : undefined;
  if (!parsed || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(String(checkpoint.tree))) {
    throw checkpointFailure(
      ErrorType.InvalidCheckpointInput,
      `${JSON.stringify(checkpoint.ref)} with tree ${JSON.stringify(checkpoint.tree)} is not a checkpoint recorded by checkpointWorkspace.`,
    );
  }
  return parsed.agentId;
}

/** Names from the list that the store does not have (`git cat-file --batch-check` answers "<name> missing"). */
async function missing(context: GitContext, names: readonly string[]): Promise<string[]> {
  const output = await runGit(
    context,
    ['cat-file', '--batch-check=%(objectname)'],
    names.map((name) => `${name}\n`).join(''),
  );
  const answers = output.split('\n');
  return names.filter((name, index) => answers[index] === `${name} missing`);
}

function droppedText(checkpoint: TurnCheckpoint, env: NodeJS.ProcessEnv): string {
  let retention = defaultCheckpointRetention;
  try {
    retention = retentionFromEnv(env);
  } catch {
    // An invalid setting is reported where checkpoints are recorded; here the defaults explain enough.
  }
  return (
    `the checkpoint of turn ${checkpoint.turn} (${checkpoint.ref}) was dropped, by retention (the newest ` +
    `${retention.keep} checkpoints of an agent, at most ${retention.maxAgeDays} days old, are kept) or with the ` +
    `agent's checkpoints. Set ${retentionVariables.keep} or ${retentionVariables.maxAgeDays} on the workers to keep more.`
  );
}

/**
 * Refuses checkpoints whose tree is gone or, for `restored`, whose ref retention dropped (its objects may linger
 * until git gc, but what retention dropped is not restored).
 */
export async function ensureAvailable(
  context: GitContext,
  checkpoints: readonly TurnCheckpoint[],
  env: NodeJS.ProcessEnv,
  restored?: TurnCheckpoint,
): Promise<void> {
  const treeName = (checkpoint: TurnCheckpoint) => `${checkpoint.tree}^{tree}`;
  const names = [...checkpoints.map(treeName), ...(restored ? [restored.ref] : [])];
  const gone = new Set(await missing(context, names));
  const dropped =
    restored && gone.has(restored.ref) ? restored : checkpoints.find((checkpoint) => gone.has(treeName(checkpoint)));
  if (dropped) throw checkpointFailure(ErrorType.CheckpointUnavailable, droppedText(dropped, env));
}

/** Awaits `work` and the availability `check` run alongside; an unavailable checkpoint's error wins over work's own. */
export async function whileChecking<T>(check: Promise<void>, work: Promise<T>): Promise<T> {
  const [checked, result] = await Promise.allSettled([check, work]);
  if (checked.status === 'rejected') throw checked.reason;
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}
