/** The workspace checkpoint store (docs/rewind.md): record, restore and compare an agent's files per turn. */
export { changesSince, compareCheckpoints } from './changes';
export { dropAgentCheckpoints } from './drop';
export { listStoredCheckpoints, pruneStoredCheckpoints } from './inventory';
export type { AgentCheckpoints, CheckpointInventory, PruneResult } from './inventory';
export type { CheckpointOptions } from './options';
export { privateStoreDir, privateStoreLimits } from './private-store';
export { restoreWorkspace } from './restore';
export { retentionFromEnv, retentionVariables } from './retention';
export { recordCheckpoint } from './snapshot';
