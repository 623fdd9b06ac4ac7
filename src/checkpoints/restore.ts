/** Restoring a checkpoint: the target holds exactly the checkpoint's files, for every path git sees. */
import fs from 'node:fs/promises';
import type { FileChange, RestoreInput, RestoreResult } from '../shared/workspace/checkpoints';
import { availabilityCheck, checkpointAgentId, droppedCheckpoint, missingCheckpoint } from './availability';
import { parseNameStatus } from './compare';
import { gitFailure } from './failures';
import { diffCommand, runScript, snapshotLines } from './git-script';
import { recoveringStaleLocks } from './locks';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { preparePrivateIndex } from './private-index';
import { storeOfCheckpoint, workTreeContext } from './store';

/**
 * $1 the checkpoint's tree, $2 its ref, $3 the latest checkpoint's tree (or empty): what a restore would change, and
 * what changed since the latest checkpoint. Writes nothing but the private index: its snapshot is what makes the
 * index list every file git sees, for the reset that follows.
 */
const restoreScript = `${availabilityCheck('"$2" "$1^{tree}" ${3:+"$3^{tree}"}')}
${snapshotLines}
section current; printf '%s' "$tree"
if [ "$tree" = "$1" ]; then exit 0; fi
if [ -n "$3" ] && [ "$tree" != "$3" ]; then
  section since; ${diffCommand} "$3" "$tree" --
  section unlike-checkpoint; ${diffCommand} "$1" "$tree" --
fi
section changes; ${diffCommand} "$tree" "$1" --
`;

/** $1 the checkpoint's tree: a one-tree reset of the private index with -u writes and deletes exactly the differing files. */
const resetScript = `git read-tree --reset -u "$1"
section restored
`;

/**
 * The files changed since the latest checkpoint that a restore would overwrite: those holding neither its content nor
 * the checkpoint's. A file already holding the checkpoint's content is the work of a restore a crash interrupted (or a
 * change that loses nothing), so a retry goes on.
 */
export function overwrittenChanges(sinceLatest: FileChange[], unlikeCheckpoint: FileChange[]): FileChange[] {
  const differs = new Set(unlikeCheckpoint.map((change) => change.path));
  return sinceLatest.filter((change) => differs.has(change.path));
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
  const indexFile = await preparePrivateIndex(store, agentId);
  // A restore writes this first and removes it when done: a retry that finds it finishes its own interrupted work
  // (a killed git can leave files deleted or half-written, which would otherwise look like someone else's changes).
  const intentFile = `${indexFile}.restoring`;
  const intent = `${checkpoint.tree} ${latest?.tree ?? '-'}\n`;
  const resuming = (await fs.readFile(intentFile, 'utf8').catch(() => '')) === intent;
  const context = workTreeContext(store, indexFile);
  const { found: sections, refused } = await recoveringStaleLocks(store.commonDir, async () => {
    const found = await runScript(context, 'restore', restoreScript, [
      checkpoint.tree,
      checkpoint.ref,
      latest?.tree ?? '',
    ]);
    // A missing checkpoint or nothing to change: the script stopped before listing changes.
    if (!found.has('changes')) return { found, refused: [] };
    const refused = resuming
      ? []
      : overwrittenChanges(
          parseNameStatus(found.get('since') ?? ''),
          parseNameStatus(found.get('unlike-checkpoint') ?? ''),
        );
    if (refused.length > 0) return { found, refused };
    await fs.writeFile(intentFile, intent);
    const reset = await runScript(context, 'restore', resetScript, [checkpoint.tree]);
    return { found: new Map([...found, ...reset]), refused };
  }).catch((error: unknown) => {
    throw gitFailure(`could not restore turn ${checkpoint.turn} of agent ${agentId} into ${store.root}`, error);
  });
  const missing = missingCheckpoint(
    sections.get('available') ?? '',
    latest ? [checkpoint, latest] : [checkpoint],
    checkpoint,
  );
  if (missing) throw droppedCheckpoint(missing, resolved.env);
  if (!sections.has('changes')) {
    await fs.rm(intentFile, { force: true });
    return { kind: 'restored', changes: [] };
  }
  if (!sections.has('restored')) return { kind: 'refused', changedSince: refused };
  await fs.rm(intentFile, { force: true });
  return { kind: 'restored', changes: parseNameStatus(sections.get('changes') ?? '') };
}
