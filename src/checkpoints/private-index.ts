/** The private indexes of the checkpoint store: one per agent and work tree, never the checkout's own index. */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { checkpointAgentName } from './names';
import type { CheckpointStore } from './store';

/** Other agents' indexes looked at for a seed, at most (a tree of agents on one checkout has a few). */
const maxSeedCandidates = 20;

function indexesDir(store: Pick<CheckpointStore, 'commonDir'>): string {
  return path.join(store.commonDir, 'subagents', 'checkpoint-index');
}

function rootKey(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 16);
}

/** The folder of an agent's private indexes (one per work tree it recorded or restored). */
export function agentIndexDir(store: Pick<CheckpointStore, 'commonDir'>, agentId: string): string {
  return path.join(indexesDir(store), checkpointAgentName(agentId));
}

/** The private index of one agent on one work tree: git's stat cache in it makes the next snapshot cheap. */
export function privateIndexFile(store: Pick<CheckpointStore, 'commonDir' | 'root'>, agentId: string): string {
  return path.join(agentIndexDir(store, agentId), rootKey(store.root));
}

/**
 * Creates the agent's index folder and, for a first snapshot, copies another agent's index of the same work tree
 * (a subagent sharing its parent's checkout): its stat data is valid there, so git need not rehash every file.
 * Only our own indexes are copied, never the checkout's (assume-unchanged bits, split or sparse indexes).
 */
export async function preparePrivateIndex(store: CheckpointStore, agentId: string): Promise<string> {
  const indexFile = privateIndexFile(store, agentId);
  if (
    await fs.stat(indexFile).then(
      () => true,
      () => false,
    )
  )
    return indexFile;
  await fs.mkdir(path.dirname(indexFile), { recursive: true });
  const others = await fs.readdir(indexesDir(store)).catch(() => [] as string[]);
  for (const other of others.slice(0, maxSeedCandidates)) {
    const candidate = path.join(indexesDir(store), other, rootKey(store.root));
    if (candidate === indexFile) continue;
    // git replaces an index by renaming its lock file over it, so the copy is one whole version or the other.
    const copied = await fs.copyFile(candidate, indexFile, fs.constants.COPYFILE_EXCL).then(
      () => true,
      () => false,
    );
    if (copied) break;
  }
  return indexFile;
}
