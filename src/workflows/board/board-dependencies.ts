import { boardLimits } from '../../shared/board/board-limits';
import { ErrorType, errorText } from '../../shared/protocol/errors';
import type { BoardDraft } from './board-draft';

// Task dependencies kept symmetric; one that would make a task wait for itself is refused, naming the cycle.

/** The chain of `blocks` edges from `from` to `to` (both included), or undefined when there is none. */
export function blockingPath(draft: BoardDraft, from: string, to: string): string[] | undefined {
  const previous = new Map<string, string>();
  const queue = [from];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (current === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
      return path;
    }
    for (const next of draft.get(current)?.blocks ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      previous.set(next, current);
      queue.push(next);
    }
  }
  return undefined;
}

/** Makes `taskId` wait for `blockerId` (both must exist); a refusal, or undefined when added. */
export function addDependency(draft: BoardDraft, blockerId: string, taskId: string): string | undefined {
  if (blockerId === taskId) return errorText(ErrorType.DependencyCycle, `task #${taskId} cannot wait for itself.`);
  const blocker = draft.get(blockerId);
  const task = draft.get(taskId);
  if (!blocker) return errorText(ErrorType.TaskNotFound, `task #${blockerId} does not exist on this board.`);
  if (!task) return errorText(ErrorType.TaskNotFound, `task #${taskId} does not exist on this board.`);
  if (task.blockedBy.includes(blockerId)) return undefined;
  // blocker → task closes a cycle when the task already (transitively) blocks the blocker.
  const cycle = blockingPath(draft, taskId, blockerId);
  if (cycle) {
    const shown = [...cycle, taskId].map((id) => `#${id}`).join(' → ');
    return errorText(
      ErrorType.DependencyCycle,
      `#${taskId} waiting for #${blockerId} would close the cycle ${shown} (each blocks the next). Drop one of these dependencies.`,
    );
  }
  if (task.blockedBy.length >= boardLimits.maxDependencies || blocker.blocks.length >= boardLimits.maxDependencies) {
    return errorText(
      ErrorType.BoardLimitReached,
      `a task may have at most ${boardLimits.maxDependencies} dependencies in each direction.`,
    );
  }
  draft.edit(taskId).blockedBy.push(blockerId);
  draft.edit(blockerId).blocks.push(taskId);
  return undefined;
}

/** `taskId` no longer waits for `blockerId` (no-op when it did not). */
export function removeDependency(draft: BoardDraft, blockerId: string, taskId: string): void {
  const task = draft.get(taskId);
  if (task?.blockedBy.includes(blockerId)) {
    const edited = draft.edit(taskId);
    edited.blockedBy = edited.blockedBy.filter((id) => id !== blockerId);
  }
  const blocker = draft.get(blockerId);
  if (blocker?.blocks.includes(taskId)) {
    const edited = draft.edit(blockerId);
    edited.blocks = edited.blocks.filter((id) => id !== taskId);
  }
}

/** Removes every edge to and from a task that is being deleted. */
export function detachTask(draft: BoardDraft, taskId: string): void {
  const task = draft.get(taskId);
  if (!task) return;
  for (const blockerId of [...task.blockedBy]) removeDependency(draft, blockerId, taskId);
  for (const blockedId of [...task.blocks]) removeDependency(draft, taskId, blockedId);
}
