import { maxConcurrentToolCalls } from '../shared/limits';
import type { ToolUseBlock } from '../shared/messages';

/** A group of tool calls run together: consecutive read-only calls concurrently, others alone. */
export interface ToolBatch {
  concurrent: boolean;
  calls: ToolUseBlock[];
}

/**
 * Splits one turn's tool calls into batches, keeping their order: runs of consecutive read-only
 * calls become one concurrent batch (at most `maxConcurrent`), every other call is its own batch.
 */
export function partitionToolCalls(
  calls: readonly ToolUseBlock[],
  isReadOnly: (name: string) => boolean,
  maxConcurrent = maxConcurrentToolCalls,
): ToolBatch[] {
  const batches: ToolBatch[] = [];
  for (const call of calls) {
    const last = batches[batches.length - 1];
    if (isReadOnly(call.name) && last?.concurrent && last.calls.length < maxConcurrent) {
      last.calls.push(call);
    } else {
      batches.push({ concurrent: isReadOnly(call.name), calls: [call] });
    }
  }
  return batches;
}
