/** What changed: in a workspace since a checkpoint, or between two checkpoints of one store. */
import type { FileChange, TurnCheckpoint } from '../shared/workspace/checkpoints';
import { checkpointAgentId, ensureAvailable, whileChecking } from './availability';
import { diffTrees } from './compare';
import { gitFailure } from './failures';
import { recoveringStaleLocks } from './locks';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { snapshotTree } from './snapshot';
import { objectContext, storeOfCheckpoint } from './store';

/** The files of `root` (default the checkpoint's root) that differ from the checkpoint; nothing is recorded. */
export async function changesSince(
  checkpoint: TurnCheckpoint,
  root: string | undefined,
  options?: CheckpointOptions,
): Promise<FileChange[]> {
  const resolved = resolveCheckpointOptions(options);
  const agentId = checkpointAgentId(checkpoint);
  const store = await storeOfCheckpoint(checkpoint, root, resolved);
  const objects = objectContext(store);
  const available = ensureAvailable(objects, [checkpoint], resolved.env);
  try {
    const current = await whileChecking(
      available,
      recoveringStaleLocks(store.commonDir, () => snapshotTree(store, agentId)),
    );
    return await diffTrees(objects, checkpoint.tree, current);
  } catch (error) {
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
  const objects = objectContext(await storeOfCheckpoint(a, undefined, resolved));
  try {
    return await whileChecking(ensureAvailable(objects, [a, b], resolved.env), diffTrees(objects, a.tree, b.tree));
  } catch (error) {
    throw gitFailure(`could not compare turn ${a.turn} (${a.ref}) with turn ${b.turn} (${b.ref})`, error);
  }
}
