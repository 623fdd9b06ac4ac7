import type { AgentParts } from '../loop/agent-parts';
import { treeCapsOf } from '../../shared/protocol/limits';
import { hasPatch } from '../runtime/patches';

/**
 * Marks runs of a root whose tree budget stops every agent of the tree — foreground agents and the
 * root itself included — with the reason and each agent's partial result (before: only background
 * agents were stopped and the rest kept spending).
 */
export const budgetStopsTreePatch = 'tree-budget-stops-all';

/**
 * A root with a token budget (and the patch) runs stoppable: when its tree reaches the budget it
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
  if (!tree.coordinator || treeCapsOf(input.limits) === undefined || !hasPatch(budgetStopsTreePatch)) return false;
  tree.stopWholeTreeAtBudget((notice) => {
    if (!progress.finished) control.stopFromWithin(notice);
  });
  return true;
}
