import { ErrorType, errorText } from '../../shared/protocol/errors';

// Every limit check of a spawn and its refusal text (docs/architecture.md, Limits); nothing is queued.

const refusal = (detail: string): string => errorText(ErrorType.SpawnLimitReached, detail);

/** What the spawning agent itself checks. */
export interface LocalSpawnCheck {
  depth: number;
  maxDepth: number;
  /** Running children plus spawns already granted but not yet started. */
  runningChildren: number;
  maxChildrenPerAgent: number;
  childId: string;
  /** The spawning agent's lineage: the child may not be one of them. */
  ancestorIds: readonly string[];
}

/** Checks made by the agent that spawns: its depth, its running children, and lineage. */
export function localSpawnRefusal(check: LocalSpawnCheck): string | undefined {
  if (check.depth >= check.maxDepth) {
    return refusal(
      `maximum nesting depth ${check.maxDepth} reached; this agent cannot start subagents. Do the work yourself.`,
    );
  }
  if (check.runningChildren >= check.maxChildrenPerAgent) {
    return refusal(
      `this agent already has ${check.runningChildren} running subagents (limit ${check.maxChildrenPerAgent}). Wait for one to finish; do not retry at once.`,
    );
  }
  if (check.ancestorIds.includes(check.childId))
    return refusal(`lineage cycle — ${check.childId} is already an ancestor.`);
  return undefined;
}

/** What the root knows of its whole tree. */
export interface TreeSpawnCheck {
  paused: boolean;
  budgetExceeded: boolean;
  runningAgents: number;
  maxAgentsPerTree: number;
}

/** Checks made by the tree's root, which alone sees the whole tree: the pause switch, the token budget, the tree's size. */
export function treeSpawnRefusal(check: TreeSpawnCheck): string | undefined {
  if (check.paused)
    return refusal('spawning is paused for this agent tree. Do the work yourself, or end your turn and try later.');
  if (check.budgetExceeded)
    return refusal(
      'this agent tree has used its token budget; no new agents can be started. Finish with what you have.',
    );
  if (check.runningAgents >= check.maxAgentsPerTree) {
    return refusal(
      `this agent tree already has ${check.runningAgents} ${treeFullMarker} ${check.maxAgentsPerTree}). Wait for some to finish; do not retry at once.`,
    );
  }
  return undefined;
}

const treeFullMarker = 'running agents (limit';

/** A refusal because the tree runs as many agents as it may: a caller with agents of its own running may wait for one. */
export function isTreeFullRefusal(text: string): boolean {
  return text.includes(treeFullMarker);
}

/** The refusal when the root's answer gave no reason. */
export const treeRefusedSpawn = refusal('the tree refused the spawn.');

/** Ancestors of an agent, from its id (`root.1.2` → `root`, `root.1`): lineage is cycle-free by construction. */
export function ancestorsOf(agentId: string): string[] {
  const parts = agentId.split('.');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('.'));
}
