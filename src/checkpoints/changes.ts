/** What changed: in a workspace since a checkpoint, or between two checkpoints of one store. */
import type { FileChange, TurnCheckpoint } from '../shared/workspace/checkpoints';
import { checkpointAgentId, droppedCheckpoint, isMissingObject } from './availability';
import { diffTrees, parseNameStatus } from './compare';
import { gitFailure } from './failures';
import { runGit } from './git-command';
import { diffCommand, runScript, snapshotLines } from './git-script';
import { recoveringStaleLocks } from './locks';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { preparePrivateIndex } from './private-index';
import { objectContext, storeOfCheckpoint, workTreeContext, type CheckpointStore } from './store';

/** $1 the checkpoint's tree: the workspace (staged into the private index only) compared with it. */
const changesScript = `${snapshotLines}
section changes; ${diffCommand} "$1" "$tree" --
`;

/** The first of the checkpoints whose tree is not in the store. */
async function firstMissing(store: CheckpointStore, checkpoints: TurnCheckpoint[]): Promise<TurnCheckpoint> {
  for (const checkpoint of checkpoints) {
    const present = await runGit(objectContext(store), ['cat-file', '-e', `${checkpoint.tree}^{tree}`]).then(
      () => true,
      () => false,
    );
    if (!present) return checkpoint;
  }
  return checkpoints[0]!;
}

/** The files of `root` (default the checkpoint's root) that differ from the checkpoint; nothing is recorded. */
export async function changesSince(
  checkpoint: TurnCheckpoint,
  root: string | undefined,
  options?: CheckpointOptions,
): Promise<FileChange[]> {
  const resolved = resolveCheckpointOptions(options);
  const agentId = checkpointAgentId(checkpoint);
  const store = await storeOfCheckpoint(checkpoint, root, resolved);
  try {
    const sections = await recoveringStaleLocks(store.commonDir, async () =>
      runScript(workTreeContext(store, await preparePrivateIndex(store, agentId)), 'changes', changesScript, [
        checkpoint.tree,
      ]),
    );
    return parseNameStatus(sections.get('changes') ?? '');
  } catch (error) {
    if (isMissingObject(error)) throw droppedCheckpoint(checkpoint, resolved.env);
    throw gitFailure(`could not compare ${store.root} with turn ${checkpoint.turn} of agent ${agentId}`, error);
  }
}

/** The files that differ from checkpoint `a` to checkpoint `b` (both in `a`'s store). */
export async function compareCheckpoints(
  a: TurnCheckpoint,
  b: TurnCheckpoint,
  options?: CheckpointOptions,
): Promise<FileChange[]> {
  const resolved = resolveCheckpointOptions(options);
  checkpointAgentId(a);
  checkpointAgentId(b);
  const store = await storeOfCheckpoint(a, undefined, resolved);
  try {
    return await diffTrees(objectContext(store), a.tree, b.tree);
  } catch (error) {
    if (isMissingObject(error)) throw droppedCheckpoint(await firstMissing(store, [a, b]), resolved.env);
    throw gitFailure(`could not compare turn ${a.turn} (${a.ref}) with turn ${b.turn} (${b.ref})`, error);
  }
}
