/** Dropping every checkpoint of an agent (its refs and private indexes); git gc reclaims the objects later. */
import fs from 'node:fs/promises';
import { gitFailure } from './failures';
import { checkpointAgentName } from './names';
import { resolveCheckpointOptions, type CheckpointOptions } from './options';
import { deleteRefs, listCheckpoints } from './retention';
import { agentIndexDir } from './private-index';
import { locateStore, objectContext } from './store';

/** Deletes the checkpoint refs of `agentId` in the store of `root`; returns how many there were. */
export async function dropAgentCheckpoints(
  root: string,
  agentId: string,
  options?: CheckpointOptions,
): Promise<number> {
  const resolved = resolveCheckpointOptions(options);
  checkpointAgentName(agentId);
  const located = await locateStore(root, resolved, true);
  if (located.kind === 'unavailable') return 0;
  const { store } = located;
  try {
    const objects = objectContext(store);
    const refs = (await listCheckpoints(objects, agentId)).map((stored) => stored.ref);
    await deleteRefs(objects, refs);
    await fs.rm(agentIndexDir(store, agentId), { recursive: true, force: true });
    return refs.length;
  } catch (error) {
    throw gitFailure(`could not drop the checkpoints of agent ${agentId} in ${store.root}`, error);
  }
}
