import type { AgentParts } from '../loop/agent-parts';
import { treeCapsOf } from '../../shared/protocol/limits';

/**
 * A root with a token budget runs stoppable: when its tree reaches the budget it
 * stops every running agent of the tree and then itself, like a stop from outside whose notice says
 * "stopped by budget" (docs/architecture.md, Limits). Its result is status cancelled with its
 * partial text; each stopped agent reports its own partial result to its parent.
 */
export function stopsWholeTreeAtBudget({
  input,
  tree,
  control,
  progress,
}: Pick<AgentParts, 'input' | 'tree' | 'control' | 'progress'>): boolean {
  if (!tree.coordinator || treeCapsOf(input.limits) === undefined) return false;
  tree.stopWholeTreeAtBudget((notice) => {
    if (!progress.finished) control.stopFromWithin(notice);
  });
  return true;
}
