/** Restoring a checkpoint: the target holds exactly the checkpoint's files, for every path git sees. */
import type { FileChange, RestoreInput, RestoreResult } from '../shared/workspace/checkpoints';
import { checkpointAgentId, ensureAvailable, whileChecking } from './availability';
import { diffTrees } from './compare';
import { gitFailure } from './failures';
import { recoveringStaleLocks } from './locks';
import { runGit, type GitContext } from './git-command';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { snapshotTree } from './snapshot';
import { objectContext, privateIndexFile, storeOfCheckpoint, workTreeContext } from './store';

/**
 * The files changed since `latest` that a restore would overwrite: those holding neither `latest`'s content nor the
 * checkpoint's. A file already holding the checkpoint's content is the work of a restore a crash interrupted (or a
 * change that loses nothing), so the retry goes on.
 */
async function overwrittenChanges(
  context: GitContext,
  latestTree: string,
  checkpointTree: string,
  current: string,
): Promise<FileChange[]> {
  const [sinceLatest, fromCheckpoint] = await Promise.all([
    diffTrees(context, latestTree, current),
    diffTrees(context, checkpointTree, current),
  ]);
  const differsFromCheckpoint = new Set(fromCheckpoint.map((change) => change.path));
  return sinceLatest.filter((change) => differsFromCheckpoint.has(change.path));
}

/**
 * Makes `targetRoot` (default the checkpoint's root) hold the checkpoint's tree: files git sees that the checkpoint
 * lacks are deleted (emptied directories too), the others written with their modes and symlinks; ignored files stay.
 * With `latest`, refused (nothing written) when a file changed since it. Idempotent: a retry after a crash finishes
 * the job, and one after success finds the workspace already restored and reports no changes.
 */
export async function restoreWorkspace(input: RestoreInput, options?: CheckpointOptions): Promise<RestoreResult> {
  const resolved = resolveCheckpointOptions(options);
  const { checkpoint, latest } = input;
  const agentId = checkpointAgentId(checkpoint);
  if (latest) checkpointAgentId(latest);
  const store = await storeOfCheckpoint(checkpoint, input.targetRoot, resolved);
  const objects = objectContext(store);
  const available = ensureAvailable(objects, latest ? [checkpoint, latest] : [checkpoint], resolved.env, checkpoint);
  try {
    return await recoveringStaleLocks(store.commonDir, async () => {
      // The snapshot (private index only) runs while availability is checked; nothing is written before both end.
      // It is also what makes the private index list every file git sees, so the reset below removes them.
      const current = await whileChecking(available, snapshotTree(store, agentId));
      if (current === checkpoint.tree) return { kind: 'restored', changes: [] };
      if (latest && current !== latest.tree) {
        const changedSince = await overwrittenChanges(objects, latest.tree, checkpoint.tree, current);
        if (changedSince.length > 0) return { kind: 'refused', changedSince };
      }
      const [changes] = await Promise.all([
        diffTrees(objects, current, checkpoint.tree),
        // A one-tree reset of the private index with -u: git writes and deletes exactly the differing files.
        runGit(workTreeContext(store, privateIndexFile(store, agentId)), [
          'read-tree',
          '--reset',
          '-u',
          checkpoint.tree,
        ]),
      ]);
      return { kind: 'restored', changes };
    });
  } catch (error) {
    throw gitFailure(`could not restore turn ${checkpoint.turn} of agent ${agentId} into ${store.root}`, error);
  }
}
